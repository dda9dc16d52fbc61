// hcp-plan dcp: simulate Megatron-LM's Dynamic CP scheduler on a dataset's sequence lengths and
// compare it with static CP (padded bshd and packed thd dp_balanced).
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
#include "hcp/checked.h"
#include "hcp/dcp.h"
#include "hcp/recipe.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct DcpOptions {
  RecipeSources sources;  ///< RECIPE, --mlm-args, --hf-config (all optional).
  std::string lengths_file;
  std::string idx_file;
  std::string synthetic;
  uint64_t seed = 1;
  std::optional<int> dp;
  std::optional<int> cp;
  std::optional<int64_t> world_size;
  std::optional<int64_t> max_seqlen;
  std::optional<int> min_cp;
  std::optional<int64_t> global_batch;
  std::optional<int> vpp_group;
  std::optional<int64_t> seq_length;
  std::string variant = "dev_head";
  std::optional<int> layers, hidden, ffn_hidden, kv_hidden, tp, gpus_per_node;
  std::optional<double> tflops;
  bool gated = false;
  OutputOptions output;
};

Error usage(std::string message) {
  Error e;
  e.message = std::move(message);
  return e;
}

Result<std::vector<int64_t>> read_input(const DcpOptions& o) {
  const int sources = !o.lengths_file.empty() + !o.idx_file.empty() + !o.synthetic.empty();
  if (sources != 1) {
    return usage("give exactly one of --lengths FILE, --idx FILE or --synthetic SPEC");
  }
  if (!o.lengths_file.empty()) return dcp::read_lengths_file(o.lengths_file);
  if (!o.idx_file.empty()) return dcp::read_idx_file(o.idx_file);
  auto spec = dcp::parse_synthetic_spec(o.synthetic);
  if (!spec) return spec.error();
  return dcp::synthetic_lengths(*spec, o.seed);
}

Result<Recipe> load_recipe(const DcpOptions& o, const std::vector<std::string>& overrides) {
  auto subject = load_one_recipe_subject(o.sources, overrides);
  if (!subject) return subject.error();
  return std::move(subject->recipe);
}

/// Fill knobs and time-model sizes the recipe holds (flags given on the command line win).
Status apply_recipe(const DcpOptions& o, const Recipe& recipe, dcp::SimulationInput& in) {
  const Layout par = layout_of(recipe);
  in.knobs.cp = static_cast<int>(par.cp);
  in.time.tp = static_cast<int>(par.tp);
  if (!o.dp) {
    if (!o.world_size) return usage("with a RECIPE, give --world-size N (or --dp D)");
    if (*o.world_size > kMaxWorldGpus) {
      return usage("--world-size " + std::to_string(*o.world_size) + " is larger than " +
                   std::to_string(kMaxWorldGpus) + " GPUs, the largest world accepted");
    }
    // The recipe loader bounds TP x PP x CP by kMaxWorldGpus, so this product cannot overflow.
    const int64_t model_parallel = par.tp * par.pp * par.cp;
    if (*o.world_size <= 0 || *o.world_size % model_parallel != 0) {
      return usage("--world-size " + std::to_string(*o.world_size) +
                   " is not a multiple of TP*PP*CP = " + std::to_string(model_parallel));
    }
    in.knobs.dp = static_cast<int>(*o.world_size / model_parallel);
  }
  if (par.vpp && par.pp > 1) {
    in.knobs.vpp_group =
        static_cast<int>(recipe.int_or("model.microbatch_group_size_per_vp_stage", par.pp));
  }
  in.knobs.max_seqlen_per_rank = recipe.int_or("model.max_seqlen_per_dp_cp_rank", 0);
  in.knobs.min_cp = static_cast<int>(recipe.int_or("model.min_dynamic_context_parallel_size", 1));
  in.global_batch = recipe.int_or("train.global_batch_size", 0);
  in.seq_length = recipe.int_or("model.seq_length", recipe.int_or("dataset.seq_length", 0));
  in.time.n_layers = static_cast<int>(recipe.int_or("model.num_layers", in.time.n_layers));
  in.time.hidden = static_cast<int>(recipe.int_or("model.hidden_size", in.time.hidden));
  in.time.ffn_hidden =
      static_cast<int>(recipe.int_or("model.ffn_hidden_size", 4 * int64_t{in.time.hidden}));
  in.time.gated_linear_unit = recipe.bool_or("model.gated_linear_unit", false);
  const int64_t heads = recipe.int_or("model.num_attention_heads", 0);
  if (heads > 0) {
    const int64_t groups = recipe.int_or("model.num_query_groups", heads);
    const int64_t kv_channels = recipe.int_or("model.kv_channels", in.time.hidden / heads);
    in.time.kv_hidden = static_cast<int>(groups * kv_channels);
  } else {
    in.time.kv_hidden = in.time.hidden;
  }
  return Ok{};
}

/// Command-line flags override the recipe (or stand alone without one).
Status apply_flags(const DcpOptions& o, dcp::SimulationInput& in) {
  if (o.dp) in.knobs.dp = *o.dp;
  if (o.cp) in.knobs.cp = *o.cp;
  if (o.max_seqlen) in.knobs.max_seqlen_per_rank = *o.max_seqlen;
  if (o.min_cp) in.knobs.min_cp = *o.min_cp;
  if (o.vpp_group) in.knobs.vpp_group = *o.vpp_group;
  // Their ranges (1 to 2^31 - 1: a longer padded length only overflows the sums) are checked
  // while parsing (check_count_options).
  if (o.global_batch) in.global_batch = *o.global_batch;
  if (o.seq_length) in.seq_length = *o.seq_length;
  auto variant = dcp::parse_variant(o.variant);
  if (!variant)
    return usage("--variant '" + o.variant + "': expected dev_head, dev_pr2000 or main_hybrid");
  in.knobs.variant = *variant;
  if (o.layers) in.time.n_layers = *o.layers;
  if (o.hidden) in.time.hidden = *o.hidden;
  if (o.ffn_hidden) in.time.ffn_hidden = *o.ffn_hidden;
  if (o.kv_hidden) in.time.kv_hidden = *o.kv_hidden;
  // As --help says: without a recipe (or --kv-hidden) the KV width follows --hidden (MHA).
  const RecipeSources& src = o.sources;
  const bool recipe = !src.recipe.empty() || !src.mlm_args.empty() || !src.hf_config.empty();
  if (o.hidden && !o.kv_hidden && !recipe) in.time.kv_hidden = *o.hidden;
  if (o.tp) in.time.tp = *o.tp;
  if (o.gpus_per_node) in.time.gpus_per_node = *o.gpus_per_node;
  if (o.tflops) in.time.tflops = *o.tflops;
  if (o.gated) in.time.gated_linear_unit = true;
  const dcp::TimeModel& t = in.time;
  if (t.n_layers < 1 || t.hidden < 1 || t.ffn_hidden < 1 || t.kv_hidden < 1 || t.tp < 1 ||
      t.gpus_per_node < 1 || !(t.tflops > 0)) {
    return usage(
        "time-model sizes (--layers, --hidden, --ffn-hidden, --kv-hidden, --tp, "
        "--gpus-per-node, --tflops) must be positive");
  }
  return Ok{};
}

/// Upstream's default when --max-seqlen-per-dp-cp-rank is unset: ceil(seq_length / (dp*cp)).
Status default_max_seqlen(dcp::SimulationInput& in) {
  if (in.knobs.max_seqlen_per_rank > 0) return Ok{};
  const int64_t ranks = static_cast<int64_t>(in.knobs.dp) * in.knobs.cp;
  if (in.seq_length <= 0 || ranks <= 0) {
    return usage(
        "give --max-seqlen-per-dp-cp-rank M (or --seq-length S for upstream's default "
        "ceil(S / (DP*CP)))");
  }
  in.knobs.max_seqlen_per_rank = (in.seq_length + ranks - 1) / ranks;
  return Ok{};
}

Result<dcp::SimulationInput> build_input(const DcpOptions& o,
                                         const std::vector<std::string>& overrides) {
  dcp::SimulationInput in;
  if (!o.sources.recipe.empty() || !o.sources.mlm_args.empty() || !o.sources.hf_config.empty()) {
    auto recipe = load_recipe(o, overrides);
    if (!recipe) return recipe.error();
    if (Status s = apply_recipe(o, *recipe, in); !s) return s.error();
  } else {
    if (!overrides.empty()) return usage("unexpected argument '" + overrides.front() + "'");
    // Without a recipe there is no TP x PP x CP to divide N by: --world-size would be ignored.
    if (o.world_size) return usage("--world-size needs a RECIPE (without one, give --dp D)");
    if (!o.dp || !o.cp) return usage("give --dp D and --cp C, or a RECIPE with --world-size N");
  }
  if (Status s = apply_flags(o, in); !s) return s.error();
  if (Status s = default_max_seqlen(in); !s) return s.error();
  auto lengths = read_input(o);
  if (!lengths) return lengths.error();
  in.lengths = std::move(*lengths);
  return in;
}

int run_dcp(const DcpOptions& o, const std::vector<std::string>& overrides) {
  auto progress = std::make_unique<ElapsedProgress>("reading and scheduling the lengths");
  auto input = build_input(o, overrides);
  auto report = input ? dcp::simulate(*input) : Result<dcp::SimulationReport>(input.error());
  progress.reset();  // before anything is printed
  if (!input) {
    print_error(input.error().str());
    return kExitBadInput;
  }
  if (!report) {
    print_error(report.error().str());
    return kExitBadInput;
  }
  const std::string text =
      o.output.format == "json" ? dcp::report_json(*report) : dcp::report_text(*report);
  return emit(o.output, text) ? kExitOk : kExitBadInput;
}

void add_input_options(CLI::App& sub, DcpOptions& o) {
  sub.add_option("--lengths", o.lengths_file,
                 "Sequence lengths: one integer a line, or a JSON list");
  sub.add_option("--idx", o.idx_file, "Megatron indexed dataset .idx (its sequence_lengths)");
  sub.add_option("--synthetic", o.synthetic,
                 "lognormal:MEAN:SIGMA:COUNT[:MAX[:MIN]] synthetic lengths (mean in tokens), "
                 "drawn as Megatron's mock SFT dataset draws them");
  sub.add_option("--seed", o.seed, "Seed for --synthetic")->capture_default_str();
}

void add_knob_options(CLI::App& sub, DcpOptions& o) {
  sub.add_option("--dp", o.dp, "Data-parallel size D");
  sub.add_option("--cp", o.cp, "Static context-parallel size C (DP*CP is the Dynamic CP pool)");
  sub.add_option("--world-size", o.world_size, "GPUs, with a RECIPE: D = N / (TP*PP*CP)");
  sub.add_option("--max-seqlen-per-dp-cp-rank", o.max_seqlen,
                 "Tokens per rank per micro-batch (m); default ceil(seq-length / (D*C))");
  sub.add_option("--min-cp", o.min_cp, "--min-dynamic-context-parallel-size K (power of two)");
  sub.add_option("--global-batch", o.global_batch,
                 "Sequences per step, in file order (default: the whole input is one step)");
  sub.add_option("--vpp-group", o.vpp_group,
                 "microbatch_group_size_per_vp_stage: align micro-batch counts to it");
  sub.add_option("--seq-length", o.seq_length,
                 "Padded length of the static bshd baseline (default: the longest sequence)");
  sub.add_option("--variant", o.variant, "Scheduler: dev_head (default), dev_pr2000 or main_hybrid")
      ->capture_default_str();
}

void add_time_model_options(CLI::App& sub, DcpOptions& o) {
  sub.add_option("--layers", o.layers,
                 "Time model: transformer layers (default: the recipe's, else 12)");
  sub.add_option("--hidden", o.hidden,
                 "Time model: hidden size (default: the recipe's, else 2048)");
  sub.add_option("--ffn-hidden", o.ffn_hidden,
                 "Time model: MLP size (default: the recipe's, else 8192)");
  sub.add_option("--kv-hidden", o.kv_hidden,
                 "Time model: query groups x kv channels (default: the recipe's, else --hidden)");
  sub.add_option("--tp", o.tp, "Time model: tensor-parallel size (default: the recipe's, else 1)");
  sub.add_flag("--gated-linear-unit", o.gated, "Time model: SwiGLU MLP (three h x ffn matrices)");
  sub.add_option("--tflops", o.tflops, "Time model: sustained TFLOP/s per GPU (default 400)")
      ->check(physical_number(kTflops));
  sub.add_option("--gpus-per-node", o.gpus_per_node,
                 "Time model: GPUs per NVLink node (default 8)");
}

std::function<int()> setup_dcp(CLI::App& sub) {
  auto opts = std::make_shared<DcpOptions>();
  add_recipe_sources(sub, opts->sources,
                     "Optional recipe path, shipped recipe name, Megatron-LM model_config.yaml "
                     "or -");
  sub.footer(
      "Examples:\n"
      "  hcp-plan dcp --lengths lens.txt --dp 8 --cp 4 --max-seqlen-per-dp-cp-rank 2048\n"
      "  hcp-plan dcp --synthetic lognormal:1024:1.5:1000000:8192 --dp 16 --cp 4 \\\n"
      "      --max-seqlen-per-dp-cp-rank 2048 --global-batch 256 --format json\n"
      "Arguments after RECIPE that are not options are Hydra overrides.");
  add_input_options(sub, *opts);
  add_knob_options(sub, *opts);
  add_time_model_options(sub, *opts);
  add_output_options(sub, opts->output);
  return [opts, &sub]() { return run_dcp(*opts, sub.remaining(false)); };
}

const CommandRegistration kDcp{
    "dcp", "Simulate Megatron-LM's Dynamic CP scheduler on sequence lengths vs static CP",
    setup_dcp};

}  // namespace
}  // namespace hcp::cli
