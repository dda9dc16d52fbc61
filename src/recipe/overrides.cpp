// Applying overrides to a recipe: run_recipe.py's command line (shorthand flags first, then
// KEY=VALUE tokens), Hydra struct-mode semantics (bridge.md §1.4), schema checks, and the
// model.seq_length := dataset.seq_length sync.
#include <algorithm>
#include <array>
#include <numeric>
#include <string>

#include "hcp/recipe.h"
#include "hcp/schema.h"
#include "normalize.h"
#include "schema_fields.h"

namespace hcp {
namespace {

enum class FlagType { kInt, kFloat, kString };

struct Flag {
  std::string_view short_name;  ///< "-cp" ("" when the flag has only a long form).
  std::string_view long_name;   ///< "--context_parallel_size" style long form.
  std::string_view key;
  FlagType type;
};

// Bridge scripts/training/run_recipe.py COMMON_OVERRIDE_FIELDS.
constexpr std::array<Flag, 17> kFlags = {{
    {"-ms", "--max_steps", "train.train_iters", FlagType::kInt},
    {"-gb", "--global_batch_size", "train.global_batch_size", FlagType::kInt},
    {"-mb", "--micro_batch_size", "train.micro_batch_size", FlagType::kInt},
    {"-sl", "--seq_length", "dataset.seq_length", FlagType::kInt},
    {"-tp", "--tensor_model_parallel_size", "model.tensor_model_parallel_size", FlagType::kInt},
    {"-pp", "--pipeline_model_parallel_size", "model.pipeline_model_parallel_size", FlagType::kInt},
    {"-cp", "--context_parallel_size", "model.context_parallel_size", FlagType::kInt},
    {"-vp", "--virtual_pipeline_model_parallel_size", "model.virtual_pipeline_model_parallel_size",
     FlagType::kInt},
    {"-ep", "--expert_model_parallel_size", "model.expert_model_parallel_size", FlagType::kInt},
    {"-etp", "--expert_tensor_parallel_size", "model.expert_tensor_parallel_size", FlagType::kInt},
    {"", "--lr", "optimizer.lr", FlagType::kFloat},
    {"", "--min_lr", "optimizer.min_lr", FlagType::kFloat},
    {"", "--warmup_iters", "scheduler.lr_warmup_iters", FlagType::kInt},
    {"", "--pretrained_checkpoint", "checkpoint.pretrained_checkpoint", FlagType::kString},
    {"", "--save_dir", "checkpoint.save", FlagType::kString},
    {"", "--load_dir", "checkpoint.load", FlagType::kString},
    {"", "--save_interval", "checkpoint.save_interval", FlagType::kInt},
}};

/// run_recipe.py's selection, data and runtime arguments (067f987d scripts/training/run_recipe.py
/// :168-259): they pick the recipe, the dataset preset, the mode and determinism rather than one
/// config key. `takes_value` false: a store_true flag. `submission`: an option of train.sh's
/// setup_experiment.py (067f987d scripts/training/setup_experiment.py:65-141), which submits the
/// job with it and forwards the rest to run_recipe.py; it sets nothing in the training config and
/// is ignored, and the load notes say so. (--nodes and --gpus-per-node are hcp-plan's own.)
struct LaunchFlag {
  std::string_view name;
  bool takes_value;
  bool submission = false;
};
constexpr std::array<LaunchFlag, 28> kLaunchFlags = {{
    // setup_experiment.py:101-106: NAME of a variable the container inherits from the launching
    // shell (its value never appears; "NAME=VALUE" is hcp-plan's own --env, which the CLI takes).
    {"--env", true, true},
    {"--account", true, true},
    {"--partition", true, true},
    {"--time", true, true},
    {"--gres", true, true},
    {"--additional-slurm-params", true, true},
    {"--additional_slurm_params", true, true},
    {"--no-gpu-resource-request", false, true},
    {"--container-image", true, true},
    {"--mount", true, true},
    {"--srun-arg", true, true},
    {"-lmc", true, true},
    {"--peak-mem-clk", true, true},
    {"--peak_mem_clk", true, true},
    {"--experiment-name", true, true},
    {"--submission-dry-run", false, true},
    {"--wait", false, true},
    {"--model", true},
    {"--recipe", true},
    {"--mode", true},
    {"--step-func", true},
    {"--step_func", true},
    {"--dataset", true},
    {"--dry-run", false},
    {"--dry_run", false},
    {"--deterministic", false},
    {"--dump-env", false},
    {"--dump_env", false},
}};

/// Options of older Bridge launch scripts that today's run_recipe.py rejects, with what to say.
struct RemovedOption {
  std::string_view name;
  std::string_view why;
};
constexpr std::array<RemovedOption, 1> kRemovedOptions = {{
    {"--config-file",
     "run_recipe.py has no --config-file: Megatron-Bridge 067f987d "
     "scripts/training/run_recipe.py:263-268 rejects it (\"Unknown option: --config-file\"); it "
     "was an option of scripts/training/pretrain_decoder.py and finetune_decoder.py (4466a85b7), "
     "removed with them in f9b0dae5a. Pass the file's keys as KEY=VALUE overrides, or give the "
     "YAML as RECIPE"},
}};

const LaunchFlag* find_launch_flag(std::string_view name) {
  for (const LaunchFlag& f : kLaunchFlags) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

/// run_recipe.py's dataset presets (recipes/utils/dataset_utils.py DATASET_PRESETS @ 067f987d) and
/// the class each builds: GPTDatasetConfig kinds train in pretrain mode, Energon in either, the
/// rest finetune (dataset_train_mode, dataset_utils.py:603-607).
struct DatasetPreset {
  std::string_view name;
  std::string_view target;
};
constexpr std::string_view kGptSft = "megatron.bridge.data.builders.gpt_sft.GPTSFTDatasetConfig";
constexpr std::string_view kDirectHf =
    "megatron.bridge.data.builders.direct_hf_sft.DirectHFSFTDatasetConfig";
constexpr std::array<DatasetPreset, 15> kDatasetPresets = {{
    {"mock", "megatron.bridge.training.config.MockGPTDatasetConfig"},
    {"megatron-indexed", "megatron.bridge.training.config.GPTDatasetConfig"},
    {"energon", "megatron.bridge.data.builders.energon.EnergonDatasetConfig"},
    {"squad", kGptSft},
    {"tulu3", kGptSft},
    {"openmathinstruct2", kGptSft},
    {"openmathinstruct2-thinking", kGptSft},
    {"gsm8k", kGptSft},
    {"local-jsonl", kGptSft},
    {"local-vlm", kDirectHf},
    {"cord-v2", kDirectHf},
    {"llava-video-178k", kDirectHf},
    {"medpix", kDirectHf},
    {"raven", kDirectHf},
    {"rdr", kDirectHf},
}};

const DatasetPreset* find_dataset_preset(std::string_view name) {
  for (const DatasetPreset& d : kDatasetPresets) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

bool pretrain_dataset(std::string_view target) {
  return target.ends_with("GPTDatasetConfig") && !target.ends_with("SFTDatasetConfig");
}

const Flag* find_override_flag(std::string_view name) {
  if (name.empty()) return nullptr;  // a flag without a short name has "" there, which is no flag
  for (const Flag& f : kFlags) {
    if (name == f.short_name || name == f.long_name) return &f;
  }
  return nullptr;
}

std::string override_file(int index) {
  return "<override " + std::to_string(index) + ">";
}

/// Turn a flag's argument into a value the way argparse's type= and json.dumps would.
Result<Value> flag_value(const Flag& flag, const std::string& name, const std::string& arg,
                         int index) {
  Location at{override_file(index), 1, 1};
  std::string bad = "argument " + name + ": invalid " +
                    (flag.type == FlagType::kInt ? "int" : "float") + " value: '" + arg + "'";
  if (flag.type == FlagType::kString) return Value::string(arg, at);
  Result<Override> parsed = parse_override("k=" + arg, index);
  if (!parsed || !parsed->value) return Error{bad, at, std::string(flag.key)};
  Value v = *parsed->value;
  v.set_location(at);
  if (flag.type == FlagType::kInt && v.is_int()) return v;
  if (flag.type == FlagType::kFloat && v.is_number()) return Value::real(v.as_double(), at);
  return Error{bad, at, std::string(flag.key)};
}

/// What run_recipe.py's selection, data and runtime arguments asked for.
struct Launch {
  std::optional<std::string> mode;     ///< --mode pretrain|sft|lora|dora
  std::optional<std::string> dataset;  ///< --dataset PRESET
  int dataset_index = 0;               ///< Its position, for messages.
  bool deterministic = false;          ///< --deterministic
  std::vector<std::string> ignored;    ///< setup_experiment.py's submission options, as given.
};

struct Collected {
  std::vector<Override> overrides;
  Launch launch;
};

/// Split the command line into overrides: flags first (in order), then KEY=VALUE tokens; the
/// selection, data and runtime arguments go to `launch`.
Result<Collected> collect(const std::vector<std::string>& args) {
  Collected out;
  std::vector<Override>& flags = out.overrides;
  std::vector<std::pair<std::string, int>> tokens;
  int index = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    ++index;
    if (arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1]))) {
      std::string name = arg;
      std::string value;
      bool inline_value = false;
      if (size_t eq = arg.find('='); eq != std::string::npos) {
        name = arg.substr(0, eq);
        value = arg.substr(eq + 1);
        inline_value = true;
      }
      if (const LaunchFlag* launch = find_launch_flag(name)) {
        Location at{override_file(index), 1, 1};
        if (!launch->takes_value && inline_value) {
          return Error{"argument " + name + ": ignored explicit argument '" + value + "'", at, ""};
        }
        if (launch->takes_value && !inline_value) {
          if (i + 1 >= args.size()) {
            return Error{"argument " + name + ": expected one argument", at, ""};
          }
          value = args[++i];
        }
        if (launch->submission) {
          out.launch.ignored.push_back(name);
        } else if (name == "--mode") {
          if (value != "pretrain" && value != "sft" && value != "lora" && value != "dora") {
            return Error{"argument --mode: invalid choice: '" + value +
                             "' (choose from 'pretrain', 'sft', 'lora', 'dora')",
                         at, ""};
          }
          out.launch.mode = value;
        } else if (name == "--dataset") {
          if (find_dataset_preset(value) == nullptr) {
            std::string choices;
            for (const DatasetPreset& d : kDatasetPresets)
              choices += (choices.empty() ? "'" : ", '") + std::string(d.name) + "'";
            return Error{
                "argument --dataset: invalid choice: '" + value + "' (choose from " + choices + ")",
                at, ""};
          }
          out.launch.dataset = value;
          out.launch.dataset_index = index;
        } else if (name == "--deterministic") {
          out.launch.deterministic = true;
        }
        continue;  // --model, --recipe, --step-func, --dry-run, --dump-env: nothing to check
      }
      const Flag* flag = find_override_flag(name);
      if (flag == nullptr) {
        std::optional<std::string> removed = removed_launcher_option(name);
        return Error{removed ? *removed : "Unknown option: " + name,
                     Location{override_file(index), 1, 1}, ""};
      }
      if (!inline_value) {
        if (i + 1 >= args.size()) {
          return Error{"argument " + name + ": expected one argument",
                       Location{override_file(index), 1, 1}, std::string(flag->key)};
        }
        value = args[++i];
      }
      Result<Value> v = flag_value(*flag, name, value, index);
      if (!v) return v.error();
      Override o;
      o.kind = OverrideKind::kChange;
      o.key = std::string(flag->key);
      o.value = std::move(*v);
      o.text = name + " " + value;
      o.index = index;
      flags.push_back(std::move(o));
      continue;
    }
    tokens.emplace_back(arg, index);
  }
  for (const auto& [token, at] : tokens) {
    Result<Override> o = parse_override(token, at);
    if (!o) return o.error();
    flags.push_back(std::move(*o));
  }
  return out;
}

/// Return true when the real (fully populated) Bridge config would hold a non-null value at this
/// key although the partial recipe does not: a known field whose upstream default is not None.
bool default_is_set(std::string_view dotted) {
  size_t dot = dotted.find('.');
  if (dot == std::string_view::npos || dotted.find('.', dot + 1) != std::string_view::npos) {
    return false;
  }
  const FieldSpec* spec = find_field(dotted.substr(0, dot), dotted.substr(dot + 1));
  return spec != nullptr && spec->default_value != "None" && spec->default_value != "required";
}

/// Return true when the real config would hold this key even though the recipe lacks it: any
/// field of a known section (we do not model every section's fields), except inside dicts.
bool real_config_has(std::string_view dotted) {
  size_t dot = dotted.find('.');
  if (dot == std::string_view::npos) return true;  // A ConfigContainer section.
  if (dotted.find('.', dot + 1) != std::string_view::npos) return false;  // Below a field.
  return dotted.substr(0, dot) != "env_vars";  // A dict that starts empty.
}

struct Applier {
  Recipe& recipe;

  Status apply(const Override& o);
  Status change(const Override& o, const std::string& key, Value* existing);
  Status add(const Override& o, const std::string& key, Value* existing, bool force);
  Status remove(const Override& o, const std::string& key, Value* existing);
  Result<Value*> slot(const Override& o, const std::string& key, bool create);
};

Error override_error(const Override& o, std::string message) {
  return Error{std::move(message), Location{override_file(o.index), 1, 1}, o.key};
}

std::vector<std::string> split(const std::string& dotted) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    parts.push_back(dotted.substr(start, dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

/// Return the node at key, creating missing maps on the way when `create`; nullptr when absent.
Result<Value*> Applier::slot(const Override& o, const std::string& key, bool create) {
  std::vector<std::string> parts = split(key);
  Value* node = &recipe.root;
  for (size_t i = 0; i < parts.size(); ++i) {
    bool last = i + 1 == parts.size();
    if (node->is_list()) {
      const std::string& seg = parts[i];
      bool numeric = !seg.empty() && std::all_of(seg.begin(), seg.end(), ::isdigit);
      size_t idx = numeric && seg.size() < 10 ? std::stoul(seg) : node->items().size();
      if (idx >= node->items().size()) {
        return override_error(o, "Could not override '" + key + "': no list item '" + seg + "'");
      }
      node = &node->items()[idx];
      continue;
    }
    if (node->is_null()) {
      // A null parent: OmegaConf.update replaces it with an empty map on the way (see add()).
      if (!create) return static_cast<Value*>(nullptr);
      *node = Value::map({}, Location{override_file(o.index), 1, 1});
    }
    if (!node->is_map()) {
      return override_error(
          o, "Could not override '" + key + "': '" + parts[i - 1] + "' is not a map");
    }
    Value* child = node->get(parts[i]);
    if (child == nullptr) {
      if (!create) return static_cast<Value*>(nullptr);
      child = &node->set(parts[i], last ? Value::null() : Value::map());
    }
    node = child;
  }
  return node;
}

/// Merge a dict into a map; new keys are allowed only when `allow_new`.
Status merge_into(Value& target, const Value& dict, bool allow_new, const Override& o,
                  const std::string& key) {
  for (const auto& [k, v] : dict.entries()) {
    Value* existing = target.get(k);
    if (existing == nullptr) {
      if (!allow_new) {
        return override_error(o, "Could not override '" + key + "': key '" + k +
                                     "' is not in the config (use ++" + key + "={...} to add it)");
      }
      target.set(k, v);
    } else if (existing->is_map() && v.is_map()) {
      if (Status s = merge_into(*existing, v, allow_new, o, key + "." + k); !s) return s;
    } else {
      *existing = v;
    }
  }
  return Ok{};
}

/// True when a proper prefix of `key` holds an explicit null in the recipe ("dataset.x.y" with
/// dataset.x: null).
bool null_parent(const Recipe& recipe, const std::string& key) {
  for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1)) {
    const Value* parent = recipe.find(key.substr(0, dot));
    if (parent == nullptr) return false;
    if (parent->is_null()) return true;
  }
  return false;
}

/// KEY=VALUE through a null parent is an error: OmegaConf.update without force_add replaces the
/// null with an empty map, then sets the key in it under Bridge's struct flag, which rejects the
/// new key, and Hydra answers "Could not override" (Megatron-Bridge 067f987d
/// src/megatron/bridge/training/utils/omegaconf_utils.py:180-183 sets struct and calls
/// hydra/_internal/config_loader_impl.py _apply_overrides_to_config, facebookresearch/hydra
/// 03fe5a39; omry/omegaconf omegaconf/omegaconf.py OmegaConf.update).
Status Applier::change(const Override& o, const std::string& key, Value* existing) {
  if ((existing == nullptr && !real_config_has(key)) ||
      (existing == nullptr && null_parent(recipe, key))) {
    return override_error(o, "Could not override '" + key + "'. To append to your config use +" +
                                 o.key + "=" + (o.value ? o.value->str() : ""));
  }
  if (existing != nullptr && existing->is_map() && o.value->is_map()) {
    return merge_into(*existing, *o.value, false, o, key);
  }
  Result<Value*> target = slot(o, key, true);
  if (!target) return target.error();
  **target = *o.value;
  return Ok{};
}

/// +KEY=VALUE and ++KEY=VALUE: Hydra calls OmegaConf.update(..., force_add=True), which replaces
/// a null (or absent) parent with a map and adds the key with the struct flag off, so
/// "+dataset.offline_packing_specs.pad_seq_to_mult=8" after a dataset whose
/// offline_packing_specs is None is valid (Megatron-Bridge 067f987d
/// examples/model_verification_cards/gpt-oss-120b/card.yaml:301 passes it; hydra 03fe5a39
/// config_loader_impl.py _apply_overrides_to_config: is_add with OmegaConf.select(...) is None).
Status Applier::add(const Override& o, const std::string& key, Value* existing, bool force) {
  bool occupied = existing != nullptr ? !existing->is_null() : default_is_set(key);
  if (!force && occupied && !o.value->is_list() && !o.value->is_map()) {
    return override_error(o, "Could not append to config. An item is already at '" + key +
                                 "'. Either remove + prefix: '" + o.key + "=" + o.value->str() +
                                 "' or add a second + to add or override '" + key + "': '++" +
                                 o.key + "=" + o.value->str() + "'");
  }
  if (existing != nullptr && existing->is_map() && o.value->is_map()) {
    return merge_into(*existing, *o.value, true, o, key);
  }
  Result<Value*> target = slot(o, key, true);
  if (!target) return target.error();
  **target = *o.value;
  return Ok{};
}

Status Applier::remove(const Override& o, const std::string& key, Value* existing) {
  bool present = existing != nullptr ? !existing->is_null() : default_is_set(key);
  if (!present) {
    return override_error(o, "Could not delete from config. '" + key + "' does not exist.");
  }
  if (o.value && existing != nullptr && !(*existing == *o.value)) {
    return override_error(o, "Could not delete from config. The value of '" + key + "' is " +
                                 existing->str() + " and not " + o.value->str() + ".");
  }
  // Bridge applies the resolved dict back onto its dataclasses, so a deleted key keeps its value
  // (bridge.md §1.5): deletion changes nothing in the final config.
  return Ok{};
}

Status Applier::apply(const Override& o) {
  std::string key = canonical_key(o.key);
  Location at{override_file(o.index), 1, 1};
  if (Status s = check_key_known(key, at); !s && o.kind != OverrideKind::kChange &&
                                           o.kind != OverrideKind::kDelete &&
                                           recipe.framework == Framework::kBridge) {
    // +key / ++key of a key the config lacks: OmegaConf adds it, then Bridge's _apply_overrides
    // skips it with a warning (a plain key=value fails in Hydra's struct mode, below).
    recipe.load_notes.push_back(skipped_key_note(key, suggest_key(key), at));
    return Ok{};
  }
  if (Status s = check_key_known(key, at); !s) {
    Error e = s.error();
    constexpr std::string_view kUnknownKey = "unknown key '";
    if (o.kind == OverrideKind::kChange && e.message.rfind(kUnknownKey, 0) == 0) {
      // "unknown key 'k' (did you mean ...)" -> "Could not override 'k': no such key (...)".
      size_t end = e.message.find('\'', kUnknownKey.size());
      e.message = "Could not override '" + o.key + "': no such key" + e.message.substr(end + 1);
    }
    return e;
  }
  Result<Value*> found = slot(o, key, false);
  if (!found) return found.error();
  Value* existing = *found;
  switch (o.kind) {
    case OverrideKind::kChange:
      if (Status s = change(o, key, existing); !s) return s;
      break;
    case OverrideKind::kAdd:
    case OverrideKind::kForceAdd:
      if (Status s = add(o, key, existing, o.kind == OverrideKind::kForceAdd); !s) return s;
      break;
    case OverrideKind::kDelete:
      return remove(o, key, existing);
  }
  const Value* now = recipe.find(key);
  bool interpolated =
      now != nullptr && now->is_string() && now->as_string().find("${") != std::string::npos;
  if (now != nullptr && !interpolated) return check_field_value(key, *now);
  return Ok{};
}

bool touches(const std::vector<Override>& overrides, std::string_view key) {
  return std::any_of(overrides.begin(), overrides.end(), [&](const Override& o) {
    return o.kind != OverrideKind::kDelete && canonical_key(o.key) == key;
  });
}

/// run_recipe.py's sync_model_dataset_sequence_length: model.seq_length := dataset.seq_length.
Status sync_sequence_length(Recipe& recipe, const std::vector<Override>& overrides) {
  const Value* data = recipe.find("dataset.seq_length");
  if (data == nullptr || data->is_null()) return Ok{};
  bool data_overridden = touches(overrides, "dataset.seq_length");
  bool model_overridden = touches(overrides, "model.seq_length");
  if (model_overridden && !data_overridden) {
    const Value* model = recipe.find("model.seq_length");
    if (model != nullptr && !(*model == *data)) {
      // A null length is no length to suggest (dataset.seq_length may not be null).
      const std::string length = model->is_null() ? "LENGTH" : model->str();
      return Error{"model.seq_length=" + model->str() +
                       " has no effect: run_recipe.py copies dataset.seq_length (" + data->str() +
                       ") into model.seq_length; use -sl " + length +
                       " or dataset.seq_length=" + length,
                   model->location(), "model.seq_length"};
    }
  }
  if (data_overridden) recipe.set("model.seq_length", *data);
  return Ok{};
}

}  // namespace

/// Bridge turns the distributed optimizer on in both ddp and optimizer when either sets it
/// (Megatron-Bridge 067f987d src/megatron/bridge/training/config.py:2100-2123,
/// _validate_and_sync_distributed_optimizer_settings, run by ConfigContainer.validate).
namespace {
constexpr std::string_view kDdpDistOpt = "ddp.use_distributed_optimizer";
constexpr std::string_view kOptimizerDistOpt = "optimizer.use_distributed_optimizer";
}  // namespace

std::optional<bool> distributed_optimizer_of(const Recipe& recipe) {
  std::optional<bool> ddp = recipe.get_bool(kDdpDistOpt);
  std::optional<bool> optimizer = recipe.get_bool(kOptimizerDistOpt);
  if (!ddp && !optimizer) return std::nullopt;
  return ddp.value_or(false) || optimizer.value_or(false);
}

void sync_distributed_optimizer(Recipe& recipe) {
  if (recipe.framework != Framework::kBridge || !distributed_optimizer_of(recipe).value_or(false)) {
    return;
  }
  bool ddp = recipe.bool_or(kDdpDistOpt, false);
  std::string_view on = ddp ? kDdpDistOpt : kOptimizerDistOpt;
  std::string_view off = ddp ? kOptimizerDistOpt : kDdpDistOpt;
  if (!recipe.bool_or(off, false)) recipe.set(off, Value::boolean(true, recipe.where(on)));
}

namespace {

/// run_recipe.py's test for a finetuning dataset: the dataset object has enable_offline_packing
/// or enable_in_batch_packing (FinetuningDatasetConfig and its subclasses). A full dump lists
/// every field; a partial recipe is known by its dataset `_target_`.
bool has_finetuning_dataset(const Recipe& recipe) {
  const Value* dataset = recipe.find("dataset");
  if (dataset == nullptr || !dataset->is_map()) return false;
  if (dataset->get("enable_offline_packing") || dataset->get("enable_in_batch_packing")) {
    return true;
  }
  auto target = recipe.targets.find("dataset");
  if (target == recipe.targets.end()) return false;
  const schema_detail::FieldSet* fields = schema_detail::class_fields(target->second);
  return fields != nullptr &&
         (fields->find("enable_offline_packing") || fields->find("enable_in_batch_packing"));
}

int64_t lcm(int64_t a, int64_t b) {
  return a / std::gcd(a, b) * b;
}

}  // namespace

/// Megatron-Bridge 067f987d scripts/training/run_recipe.py:513-515 runs, after the overrides and
/// before ConfigContainer.validate, the syncs of scripts/training/recipe_runner.py:
/// sync_finetuning_cp_invariants (350-370) and sync_offline_packing_alignment (430-477).
void sync_run_recipe(Recipe& recipe) {
  if (recipe.framework != Framework::kBridge) return;
  Layout p = layout_of(recipe);
  std::vector<int64_t> cps = {p.cp};
  if (auto eval_cp = recipe.get_int("dist.eval_context_parallel_size")) cps.push_back(*eval_cp);
  bool any_cp = std::any_of(cps.begin(), cps.end(), [](int64_t cp) { return cp > 1; });
  // sync_finetuning_cp_invariants: mode "finetune" (run_recipe.py --mode sft/lora/dora; a
  // finetuning dataset preset requires it, run_recipe.py:438-441) with a finetuning dataset and
  // CP (or eval CP) > 1. --mode pretrain skips it.
  if (any_cp && recipe.run_mode != "pretrain" && has_finetuning_dataset(recipe)) {
    Location at{"<run_recipe.py>", 0, 0};
    recipe.set("model.calculate_per_token_loss", Value::boolean(true, at));
    recipe.set("ddp.average_in_collective", Value::boolean(false, at));
  }
  // sync_offline_packing_alignment: packed_sequence_size := dataset.seq_length, and
  // pad_seq_to_mult := lcm(pad_seq_to_mult or 1, 2*CP for each CP > 1, TP*CP with SP and TP > 1).
  if (!recipe.bool_or("dataset.enable_offline_packing", false)) return;
  const Value* specs = recipe.find("dataset.offline_packing_specs");
  Location at{"<run_recipe.py>", 0, 0};
  if (specs == nullptr || specs->is_null()) {
    recipe.set("dataset.offline_packing_specs", Value::map({}, at));
  }
  if (auto seq = recipe.get_int("dataset.seq_length")) {
    recipe.set("dataset.offline_packing_specs.packed_sequence_size", Value::integer(*seq, at));
  }
  int64_t mult =
      std::max<int64_t>(1, recipe.int_or("dataset.offline_packing_specs.pad_seq_to_mult", 1));
  bool sp = recipe.bool_or("model.sequence_parallel", false);
  for (int64_t cp : cps) {
    if (cp > 1) mult = lcm(mult, 2 * cp);
    if (sp && p.tp > 1) mult = lcm(mult, cp * p.tp);
  }
  recipe.set("dataset.offline_packing_specs.pad_seq_to_mult", Value::integer(mult, at));
}

bool override_flag_takes_value(std::string_view name) {
  if (const LaunchFlag* f = find_launch_flag(name)) return f->takes_value;
  return find_override_flag(name) != nullptr;
}

bool has_run_recipe_arguments(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    std::string_view name = std::string_view(arg).substr(0, arg.find('='));
    if (find_override_flag(name) != nullptr || find_launch_flag(name) != nullptr) return true;
  }
  return false;
}

std::optional<std::string> run_recipe_named_recipe(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("--recipe=", 0) == 0) return args[i].substr(9);
    if (args[i] == "--recipe" && i + 1 < args.size()) return args[i + 1];
  }
  return std::nullopt;
}

std::optional<std::string> removed_launcher_option(std::string_view name) {
  for (const RemovedOption& o : kRemovedOptions) {
    if (name == o.name) return std::string(o.name) + ": " + std::string(o.why);
  }
  return std::nullopt;
}

std::vector<std::string> override_flag_names() {
  std::vector<std::string> names;
  names.reserve(std::size(kLaunchFlags) + 2 * std::size(kFlags));
  for (const LaunchFlag& f : kLaunchFlags)
    names.emplace_back(f.name);
  for (const Flag& f : kFlags) {
    if (!f.short_name.empty()) names.emplace_back(f.short_name);
    names.emplace_back(f.long_name);
  }
  return names;
}

namespace {

/// An override of an older dump's dataset.packed_sequence_specs (the field Bridge had when it
/// wrote the dump, config.py:495 @ a9497c6) reaches the copy the loader made under today's names.
void recopy_packing_specs(Recipe& recipe, const std::vector<Override>& overrides) {
  if (!recipe.packing_specs_copied) return;
  constexpr std::string_view kOld = "dataset.packed_sequence_specs";
  bool touched = false;
  for (const Override& o : overrides) {
    std::string key = canonical_key(o.key);
    touched = touched || key.rfind(kOld, 0) == 0;
  }
  Value* dataset = recipe.root.get("dataset");
  if (!touched || dataset == nullptr || !dataset->is_map()) return;
  dataset->erase("enable_offline_packing");
  dataset->erase("offline_packing_specs");
  recipe.packing_specs_copied = recipe_detail::canonical_packing(recipe.root);
}

}  // namespace

namespace {

/// run_recipe.py's order before the overrides (run_recipe.py:476-479): the dataset preset replaces
/// the recipe's dataset (_apply_dataset, after checking it suits the mode), then --deterministic
/// applies determinism_utils.apply_determinism_overrides.
Status apply_launch(Recipe& recipe, const Launch& launch) {
  if (!launch.mode && !launch.dataset && !launch.deterministic) return Ok{};
  if (recipe.framework != Framework::kBridge) {
    return Error{
        "--mode, --dataset and --deterministic are Megatron-Bridge run_recipe.py "
        "arguments; this is a Megatron-LM recipe",
        Location{"<command line>", 0, 0}, ""};
  }
  if (launch.mode) recipe.run_mode = *launch.mode;
  if (launch.dataset) {
    const DatasetPreset& preset = *find_dataset_preset(*launch.dataset);
    bool pretrain = pretrain_dataset(preset.target);
    Location at{override_file(launch.dataset_index), 1, 1};
    // Energon data suits either loop (dataset_train_mode returns None for it).
    bool agnostic = preset.name == "energon";
    if (launch.mode && !agnostic && (*launch.mode == "pretrain") != pretrain) {
      return Error{
          "Mode '" + *launch.mode + "' is incompatible with dataset '" + *launch.dataset + "'.", at,
          "dataset"};
    }
    // _resolve_seq_length: the recipe's model.seq_length, else 4096 (dataset_utils.py:347-351).
    Value dataset = Value::map({}, at);
    dataset.append("seq_length", Value::integer(recipe.int_or("model.seq_length", 4096), at));
    // An HF source (data/sources/hf.py HFDatasetSourceConfig: its fields, None unless set), so
    // that "dataset.hf_dataset.split=..." changes a key the preset has, as upstream.
    auto hf_source = [&at](std::string_view name) {
      Value source = Value::map({}, at);
      for (const char* field : {"dataset_name", "path_or_dataset", "split", "subset", "load_kwargs",
                                "schema_adapter", "adapter_kwargs"}) {
        source.append(field, Value::null(at));
      }
      if (!name.empty()) *source.get("dataset_name") = Value::string(std::string(name), at);
      return source;
    };
    if (preset.target == kGptSft) {
      // _text_hf_dataset_config (dataset_utils.py:80-112): an HF source, packing off.
      dataset.append("enable_offline_packing", Value::boolean(false, at));
      if (preset.name != "local-jsonl") {
        dataset.append("hf_dataset", hf_source(preset.name));
      }
    } else if (preset.target == kDirectHf && preset.name != "local-vlm") {
      dataset.append("source", hf_source(""));  // _hf_vlm_dataset_config
    }
    recipe.set("dataset", std::move(dataset));
    std::erase_if(recipe.targets, [](const auto& t) { return t.first.rfind("dataset.", 0) == 0; });
    recipe.targets["dataset"] = std::string(preset.target);
    recipe.packing_specs_copied = false;
  }
  if (launch.deterministic) {
    Location at{"<run_recipe.py --deterministic>", 0, 0};
    recipe.set("model.deterministic_mode", Value::boolean(true, at));
    recipe.set("model.cross_entropy_loss_fusion", Value::boolean(false, at));
    recipe.set("env_vars.CUBLAS_WORKSPACE_CONFIG", Value::string(":4096:8", at));
    recipe.set("env_vars.NCCL_ALGO", Value::string("Ring", at));
    recipe.set("env_vars.NVTE_ALLOW_NONDETERMINISTIC_ALGO", Value::integer(0, at));
    const Value* overlap = recipe.find("comm_overlap");
    if (overlap != nullptr && overlap->is_map()) {
      recipe.set("comm_overlap.tp_comm_overlap", Value::boolean(false, at));
    }
  }
  return Ok{};
}

}  // namespace

/// The note that names the submission options given (setup_experiment.py's, not the config's).
Diagnostic ignored_launcher_options_note(const std::vector<std::string>& names) {
  std::vector<std::string> seen;
  std::string list;
  for (const std::string& name : names) {
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    list += (list.empty() ? "" : ", ") + name;
  }
  return Diagnostic::note(Severity::kInfo,
                          "launcher options ignored: " + list +
                              " (train.sh's setup_experiment.py submits the job with them and "
                              "forwards the rest to run_recipe.py; they set nothing in the config)",
                          "", Location{"<command line>", 0, 0});
}

Status apply_overrides(Recipe& recipe, const std::vector<std::string>& args) {
  Result<Collected> collected = collect(args);
  if (!collected) return collected.error();
  if (!collected->launch.ignored.empty()) {
    recipe.load_notes.push_back(ignored_launcher_options_note(collected->launch.ignored));
  }
  if (Status s = apply_launch(recipe, collected->launch); !s) return s;
  const std::vector<Override>* overrides = &collected->overrides;
  Applier applier{recipe};
  for (const Override& o : *overrides) {
    if (Status s = applier.apply(o); !s) return s;
  }
  recopy_packing_specs(recipe, *overrides);
  sync_distributed_optimizer(recipe);
  if (overrides->empty() && !collected->launch.dataset) return check_model_section(recipe);
  if (Status s = resolve_interpolations(recipe); !s) return s;
  if (Status s = sync_sequence_length(recipe, *overrides); !s) return s;
  sync_distributed_optimizer(recipe);
  // Check the keys the overrides touched once more, now that interpolations are resolved. The
  // rest of the recipe was checked by its loader (MLM and HF loaders map their own keys).
  for (const Override& o : *overrides) {
    std::string key = canonical_key(o.key);
    const Value* now = recipe.find(key);
    if (o.kind == OverrideKind::kDelete || now == nullptr) continue;
    if (Status s = check_field_value(key, *now); !s) return s;
  }
  if (Status s = check_model_section(recipe); !s) return s;
  return check_parallel_product(recipe);
}

}  // namespace hcp
