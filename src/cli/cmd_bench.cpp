// `hcp-plan bench`: measure on this node what a layout option does per layer (attention on the
// local chunk, one KV ring step, the all-to-all of Q/K/V) with the CUDA kernels and NCCL, and
// write a calibration file for `plan --calibration`. Needs libhcp_gpu_bench.so, the NVIDIA
// driver, a GPU and NCCL; without them it exits 3 and says what is missing.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "command.h"
#include "common_options.h"
#include "hcp/bench_report.h"
#include "hcp/calibration.h"
#include "hcp/json_io.h"
#include "hcp/layout_option.h"
#include "hcp/recipe.h"
#include "hcp/sim.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct BenchArgs {
  OutputOptions out;
  RecipeSources sources;  ///< RECIPE, --mlm-args, --hf-config.
  std::vector<std::string> overrides;
  std::string option;
  std::string dtype = "bf16";
  int warmup = 3;
  int iterations = 10;
  bool no_check = false;
  bool dry_run = false;
  std::string save = "hcp-calibration.json";
};

/// Build an error field by field (GCC 12 warns on the aggregate form here).
Error input_error(const std::string& message, const std::string& file, const std::string& key) {
  Error e;
  e.message = message;
  e.location.file = file;
  e.key = key;
  return e;
}

/// The attention shape and layout of the recipe, with the --option's keys on top.
Result<CpVolumeInput> volume_input_of(const Recipe& recipe, const PartialLayout& option) {
  const Layout par = layout_of(recipe);
  CpVolumeInput in;
  in.batch = recipe.int_or("train.micro_batch_size", 1);
  in.seq_length = recipe.int_or("model.seq_length", recipe.int_or("dataset.seq_length", 0));
  in.heads = recipe.int_or("model.num_attention_heads", 0);
  in.kv_heads = recipe.int_or("model.num_query_groups", in.heads);
  const int64_t hidden = recipe.int_or("model.hidden_size", 0);
  in.head_dim = recipe.int_or("model.kv_channels", in.heads > 0 ? hidden / in.heads : 0);
  if (in.seq_length <= 0 || in.heads <= 0 || in.head_dim <= 0) {
    return input_error(
        "recipe lacks model.seq_length, model.num_attention_heads or the head dim "
        "(model.kv_channels / model.hidden_size)",
        recipe.path, "model");
  }
  in.tp = option.has(LayoutField::kTp) ? option.layout.tp : par.tp;
  in.cp = option.has(LayoutField::kCp) ? option.layout.cp : par.cp;
  const std::vector<std::string> type_texts = cp_comm_type_texts(recipe);
  std::string type_text = type_texts.empty() ? "p2p" : type_texts.front();
  auto type = option.has(LayoutField::kCpCommType) ? Result<CpCommType>(option.layout.comm)
                                                   : parse_cp_comm_type(type_text);
  if (!type) return type.error();
  in.comm_type = *type;
  const std::vector<int64_t> hcp = option.has(LayoutField::kHcp) ? option.layout.hcp : par.hcp;
  if (in.comm_type == CpCommType::kA2aP2p) {
    if (hcp.size() != 2) {
      return input_error("--option: a2a+p2p needs hcp=AxP (or hierarchical_context_parallel_sizes)",
                         "<command line>", "hcp");
    }
    in.hcp_a2a = hcp[0];
    in.hcp_p2p = hcp[1];
  }
  in.bytes_per_element = 2;
  return in;
}

Result<GpuBenchRequest> plan_request(const BenchArgs& args, std::string& option_text) {
  auto subject = load_one_recipe_subject(args.sources, args.overrides);
  if (!subject) return subject.error();
  const Recipe* recipe = &subject->recipe;
  auto option = parse_layout_option(args.option);
  if (!option) return option_value_error("--option", option.error());
  option_text = layout_option_text(*option);
  auto layout = volume_input_of(*recipe, *option);
  if (!layout) return layout.error();
  auto request = gpu_bench_request_for(*layout);
  if (!request) return request.error();
  request->dtype = args.dtype;
  request->warmup = args.warmup;
  request->iterations = args.iterations;
  request->check = !args.no_check;
  return request;
}

std::string describe(const GpuBenchRequest& r) {
  std::string t = "  attention: " + r.dtype + " batch " + std::to_string(r.batch) + ", " +
                  std::to_string(r.heads) + " heads (" + std::to_string(r.kv_heads) +
                  " KV), head dim " + std::to_string(r.head_dim) + ", " + std::to_string(r.seq_q) +
                  " queries x " + std::to_string(r.seq_kv) + " keys" +
                  (r.causal ? ", causal" : "") + "\n";
  if (r.a2a_bytes > 0) {
    t += "  all-to-all: " + std::to_string(r.a2a_bytes) + " bytes per rank over " +
         std::to_string(r.a2a_ranks) + " GPUs\n";
  }
  if (r.ring_step_bytes > 0) {
    t += "  ring step:  " + std::to_string(r.ring_step_bytes) + " bytes to the next of " +
         std::to_string(r.ring_ranks) + " GPUs\n";
  }
  return t;
}

std::string dry_run_json(const GpuBenchRequest& r, const std::string& option) {
  nlohmann::ordered_json j;
  j["option"] = option;
  j["attention"] = {{"dtype", r.dtype},       {"batch", r.batch},       {"heads", r.heads},
                    {"kv_heads", r.kv_heads}, {"head_dim", r.head_dim}, {"seq_q", r.seq_q},
                    {"seq_kv", r.seq_kv},     {"causal", r.causal}};
  j["alltoall"] = {{"bytes", r.a2a_bytes}, {"ranks", r.a2a_ranks}};
  j["sendrecv"] = {{"bytes", r.ring_step_bytes}, {"ranks", r.ring_ranks}};
  j["gpu_available"] = gpu_bench_unavailable_reason().empty();
  return json_dump(j, 2) + "\n";
}

int run_bench(const BenchArgs& args) {
  std::string option_text;
  auto request = plan_request(args, option_text);
  if (!request) {
    print_error(request.error().str());
    return kExitBadInput;
  }
  if (args.dry_run) {
    const std::string text =
        args.out.format == "json"
            ? dry_run_json(*request, option_text)
            : "bench (dry run): " + option_text + " would measure\n" + describe(*request);
    return emit(args.out, text) ? kExitOk : kExitBadInput;
  }
  const bool live = args.out.format == "text" && isatty(2) == 1;
  auto calibration = run_gpu_bench(*request, [live](const std::string& line) {
    if (live) std::cerr << "  ... " << line << std::endl;
  });
  if (!calibration) {
    const std::string& message = calibration.error().message;
    print_error("bench: " + message);
    return message.rfind("unavailable: ", 0) == 0 ? kExitEnvironment : kExitFindings;
  }
  calibration->option = option_text;
  if (auto st = save_calibration(*calibration, args.save); !st) {
    print_error(st.error().str());
    return kExitBadInput;
  }
  const std::string text = args.out.format == "json" ? calibration_to_json(*calibration)
                                                     : format_bench_text(*calibration, args.save);
  return emit(args.out, text) ? kExitOk : kExitBadInput;
}

const CommandRegistration kBench{
    "bench",
    "Measure a layout option's attention and NCCL traffic on this GPU node (writes calibration)",
    [](CLI::App& sub) -> std::function<int()> {
      auto args = std::make_shared<BenchArgs>();
      add_recipe_sources(sub, args->sources,
                         "Recipe path, shipped recipe name, Megatron-LM model_config.yaml or -");
      sub.footer("Arguments after RECIPE that are not options are overrides (k=v, -cp 4, ...).");
      sub.add_option("--option", args->option,
                     "Layout to measure, e.g. \"tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2\"")
          ->required();
      sub.add_option("--dtype", args->dtype, "Attention dtype")
          ->check(one_of({"bf16", "fp16"}))
          ->capture_default_str();
      sub.add_option("--warmup", args->warmup, "Untimed iterations")->capture_default_str();
      sub.add_option("--iterations", args->iterations, "Timed iterations")->capture_default_str();
      sub.add_flag("--no-check", args->no_check, "Skip the cuBLAS reference check");
      sub.add_flag("--dry-run", args->dry_run,
                   "Print what would be measured and exit (needs no GPU)");
      sub.add_option("--save", args->save, "Calibration file to write")->capture_default_str();
      add_output_options(sub, args->out);
      return [args, &sub] {
        args->overrides = sub.remaining(false);
        return run_bench(*args);
      };
    }};

}  // namespace
}  // namespace hcp::cli
