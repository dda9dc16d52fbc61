// run_recipe.py's selection, data and runtime arguments on the validate command line
// (Megatron-Bridge 067f987d scripts/training/run_recipe.py:168-259 and main 455-530): a train.sh /
// run_recipe.py command can be pasted after the recipe as it is.
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.h"

namespace hcp::testing {
namespace {

const std::string kQwen8b =
    "validate --hf-config tests/fixtures/real/hf/qwen3_8b.json --launcher run_recipe "
    "--world-size 8 --te-version 2.18.0 -tp 4 -q --wide ";

TEST(RunRecipeFlags, AVerifiedCardCommandValidatesAsItRan) {
  // examples/model_verification_cards/qwen3-8b/card.yaml @ 067f987d, sft_long_context.H100, its
  // arguments after train.sh's own (--nodes, --gpus-per-node) verbatim.
  CliResult r = run_cli(
      kQwen8b +
      "--recipe qwen3_8b_sft_32k_config --mode sft --dataset tulu3 "
      "--pretrained_checkpoint work/model-verification/qwen3-8b/imported-megatron/iter_0000000 "
      "--max_steps 20 --seq_length 32768 --context_parallel_size 2 --lr 1e-6 --min_lr 0 "
      "--warmup_iters 2 'dataset.hf_dataset.split=\"train[:10000]\"' "
      "'dataset.hf_dataset.load_kwargs={revision:\"b14afda60f1bbebe55d5d2fa1e4df5042f97f8be\"}' "
      "'++tokenizer.hf_tokenizer_kwargs.revision=\"b968826d9c46dd6066d109eabc6255188de91218\"' "
      "dataset.hf_output_root=work/data/tulu3/qwen3-8b-long-context-b14afda60f1b "
      "dataset.hf_rewrite=true dataset.seed=1234 rng.seed=5678 dataset.do_validation=false "
      "dataset.hf_validation_proportion=null dataset.enable_offline_packing=true "
      "+dataset.offline_packing_specs.pad_seq_to_mult=8 model.sequence_parallel=true "
      "model.cp_comm_type=a2a model.cross_entropy_loss_fusion=false "
      "scheduler.lr_decay_iters=20 validation.eval_iters=0 validation.eval_interval=0 "
      "checkpoint.load=null checkpoint.save=null logger.log_interval=1 "
      "logger.log_throughput=true");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(": 0 errors, 0 warnings"), std::string::npos) << r.out;
}

TEST(RunRecipeFlags, ModeAndDatasetMustAgreeAsUpstreamChecks) {
  // run_recipe.py _apply_dataset: "Mode 'pretrain' is incompatible with dataset 'tulu3'."
  CliResult r = run_cli(kQwen8b + "--mode pretrain --dataset tulu3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Mode 'pretrain' is incompatible with dataset 'tulu3'."), std::string::npos)
      << r.err;
  EXPECT_EQ(run_cli(kQwen8b + "--mode sft --dataset mock").exit_code, 2);
  // Energon data is mode-agnostic (dataset_train_mode returns None).
  EXPECT_EQ(run_cli(kQwen8b + "--mode pretrain --dataset energon").exit_code, 0);
  CliResult bad = run_cli(kQwen8b + "--dataset tulu4");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("argument --dataset: invalid choice: 'tulu4'"), std::string::npos)
      << bad.err;
  CliResult mode = run_cli(kQwen8b + "--mode finetune");
  EXPECT_EQ(mode.exit_code, 2);
  EXPECT_NE(mode.err.find("argument --mode: invalid choice"), std::string::npos) << mode.err;
  EXPECT_EQ(run_cli(kQwen8b + "--deterministic=1").exit_code, 2);  // store_true takes no value
}

TEST(RunRecipeFlags, ADatasetPresetReplacesTheRecipesDataset) {
  // --dataset tulu3 builds a GPTSFTDatasetConfig (an SFT class): with CP 2 and no run_recipe sync
  // (the direct launcher), Bridge's per-token-loss check applies; with --launcher run_recipe,
  // sync_finetuning_cp_invariants sets it first unless --mode pretrain... which tulu3 refuses.
  const std::string pasted =
      "validate --hf-config tests/fixtures/real/hf/qwen3_8b.json --world-size 8 "
      "--te-version 2.18.0 -tp 4 -q --wide --context_parallel_size 2 --seq_length 32768 ";
  const std::string direct = pasted + "--launcher direct ";
  CliResult sft = run_cli(direct + "--dataset tulu3");
  EXPECT_EQ(sft.exit_code, 1) << sft.out << sft.err;
  EXPECT_NE(sft.out.find("[CP045]"), std::string::npos) << sft.out;
  CliResult synced = run_cli(pasted + "--launcher run_recipe --mode sft --dataset tulu3");
  EXPECT_EQ(synced.exit_code, 0) << synced.out << synced.err;
  // Issue #29: without --launcher, run_recipe.py's arguments (--mode, --dataset, -tp) mean the
  // command is run_recipe.py's, as the card's SFT long-context command is.
  CliResult implied = run_cli(pasted + "--mode sft --dataset tulu3");
  EXPECT_EQ(implied.exit_code, 0) << implied.out << implied.err;
  CliResult pretrain = run_cli(direct + "--dataset mock");
  EXPECT_EQ(pretrain.exit_code, 0) << pretrain.out << pretrain.err;
  EXPECT_EQ(pretrain.out.find("[CP045]"), std::string::npos) << pretrain.out;
}

TEST(RunRecipeFlags, DeterministicAppliesBridgesDeterminismOverrides) {
  // recipes/utils/determinism_utils.py apply_determinism_overrides: deterministic_mode, no fused
  // cross entropy, NCCL_ALGO=Ring, NVTE_ALLOW_NONDETERMINISTIC_ALGO=0, CUBLAS_WORKSPACE_CONFIG.
  // A later override still wins (determinism runs before the CLI overrides).
  // The determinism env_vars make the launch environment known: CP111 (CUDA_DEVICE_MAX_CONNECTIONS
  // unset under TP) is judged and warns, where without them it is skipped.
  CliResult r = run_cli(kQwen8b + "--deterministic");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("warning: [CP111]"), std::string::npos) << r.out;
  EXPECT_EQ(run_cli(kQwen8b).out.find("[CP111]"), std::string::npos);
  CliResult later = run_cli(kQwen8b + "--deterministic model.deterministic_mode=false");
  EXPECT_EQ(later.exit_code, 0) << later.out << later.err;
  // With the determinism env in the recipe, the launch environment is no longer unknown.
  const std::string loud =
      "validate --hf-config tests/fixtures/real/hf/qwen3_8b.json --world-size 8 "
      "--te-version 2.18.0 -tp 4 --wide --context_parallel_size 2 --seq_length 8192 ";
  CliResult plain = run_cli(loud);
  EXPECT_NE(plain.out.find("launch environment unknown"), std::string::npos) << plain.out;
  CliResult det = run_cli(loud + "--deterministic");
  EXPECT_EQ(det.out.find("launch environment unknown"), std::string::npos) << det.out;
}

TEST(RunRecipeFlags, FlagValuesAreNeverTakenForRecipes) {
  // "--recipe NAME" and "--save_dir PATH" are run_recipe.py arguments with their values, not a
  // RECIPE to load, whichever comes first.
  for (const char* args : {"--recipe qwen3_8b_sft_32k_config --save_dir out/x",
                           "--save_dir out/x --recipe llama3_8b_128k.yaml"}) {
    CliResult r = run_cli(kQwen8b + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out << r.err;
    EXPECT_EQ(r.out, "tests/fixtures/real/hf/qwen3_8b.json: 0 errors, 0 warnings, 0 infos\n")
        << args;
  }
}

/// A card's command as it is pasted: its lines after train.sh, joined.
std::string card_arguments(const std::string& file) {
  std::string text = read_whole_file(HCP_SOURCE_DIR "/tests/fixtures/real/cards/" + file);
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  const std::string launcher = "./scripts/training/train.sh";
  EXPECT_EQ(text.rfind(launcher, 0), 0u) << text;
  return text.substr(launcher.size());
}

// Issue #29: train.sh runs setup_experiment.py, which takes its own options (--wait, --account,
// --time, ...; setup_experiment.py:65-141 @ 067f987d) and forwards the rest to run_recipe.py.
// Two verified Nemotron-3 card commands (tests/fixtures/real/cards/SOURCES.md) exited 2 on --wait.
TEST(RunRecipeFlags, VerifiedNemotron3CardCommandsPasteWithTheLaunchersOptions) {
  for (const char* card : {"nemotron_3_nano_30b_a3b_gb300_pretrain_performance.txt",
                           "nemotron_3_super_120b_a12b_h100_pretrain.txt"}) {
    CliResult r =
        run_cli("validate nemotronh_56b_32k --te-version 2.18.0 --wide" + card_arguments(card));
    EXPECT_NE(r.exit_code, 2) << card << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("launcher options ignored: --wait"), std::string::npos) << card << "\n"
                                                                                 << r.out;
  }
}

TEST(RunRecipeFlags, SetupExperimentOptionsAreIgnoredAndNamed) {
  CliResult r = run_cli(
      "validate llama3_8b_128k --world-size 16 --te-version 2.18.0 --wide --wait --account acct "
      "--partition batch --time 01:00:00 --container-image nvcr.io/x:y --mount /data "
      "--srun-arg=--mpi=pmix -lmc 4752 --experiment-name e1 --no-gpu-resource-request");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("launcher options ignored: --wait, --account, --partition, --time, "
                       "--container-image, --mount, --srun-arg, -lmc, --experiment-name, "
                       "--no-gpu-resource-request"),
            std::string::npos)
      << r.out;
  // A value-taking option without its value is argparse's error; store_true takes none.
  EXPECT_EQ(run_cli("validate llama3_8b_128k --account").exit_code, 2);
  EXPECT_EQ(run_cli("validate llama3_8b_128k --wait=1").exit_code, 2);
  // Nothing to ignore, nothing said.
  CliResult plain = run_cli("validate llama3_8b_128k --world-size 16 --te-version 2.18.0");
  EXPECT_EQ(plain.out.find("launcher options ignored"), std::string::npos) << plain.out;
}

// Issue #29: the qwen3-30b-a3b card's SFT long-context command (tests/fixtures/real/cards/
// SOURCES.md: examples/model_verification_cards/qwen3-30b-a3b/card.yaml:328-347 @ 067f987d,
// verified on H100) pasted as it is, without --launcher: its run_recipe.py arguments (--recipe,
// --mode sft, --dataset tulu3, -tp ...) mean run_recipe.py launches it, whose
// sync_finetuning_cp_invariants sets the per-token loss Bridge's SFT CP check needs (CP045).
TEST(RunRecipeFlags, TheQwen3_30bCardsSftLongContextCommandValidatesAsItRan) {
  const std::string model =
      "validate --hf-config tests/fixtures/real/hf/qwen3_30b_a3b.json --te-version 2.18.0 --wide";
  const std::string args = card_arguments("qwen3_30b_a3b_h100_sft_long_context.txt");
  CliResult r = run_cli(model + args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("tests/fixtures/real/hf/qwen3_30b_a3b.json: 0 errors"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("[CP045]"), std::string::npos) << r.out;
  // The card's own --nodes 2 --gpus-per-node 8 give the world size: nothing skipped for it, and
  // plan's memory model, priced on it, finds that the verified H100 layout fits (no CP115).
  EXPECT_EQ(r.out.find("world size unknown"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("CP115"), std::string::npos) << r.out;
  // The same arguments launched directly (pretrain()/finetune() on the config, no run_recipe.py
  // sync) fail Bridge's SFT CP check: the implied launcher is what makes the card pass.
  CliResult direct = run_cli(model + " --launcher direct" + args);
  EXPECT_EQ(direct.exit_code, 1) << direct.out << direct.err;
  EXPECT_NE(direct.out.find("error: [CP045]"), std::string::npos) << direct.out;
}

// Issue #29: --config-file as run_recipe.py takes it. Today's run_recipe.py has no such option:
// Megatron-Bridge 067f987d scripts/training/run_recipe.py:263-268 (_collect_overrides) rejects
// every unknown option ("Unknown option: --config-file"); --config-file belonged to
// scripts/training/pretrain_decoder.py and finetune_decoder.py (4466a85b7), removed with them in
// f9b0dae5a. So it is an error that says so, not semantics of our own.
TEST(RunRecipeFlags, ConfigFileIsAnErrorThatSaysRunRecipeHasNoSuchOption) {
  for (const char* form :
       {"--config-file conf/my_config.yaml", "--config-file=conf/my_config.yaml"}) {
    CliResult r = run_cli("validate llama3_8b_128k --world-size 16 " + std::string(form));
    EXPECT_EQ(r.exit_code, 2) << form << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("--config-file: run_recipe.py has no --config-file: Megatron-Bridge "
                         "067f987d scripts/training/run_recipe.py:263-268 rejects it"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("removed with them in f9b0dae5a"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << form;
  }
  // Another unknown option keeps the generic message with its did-you-mean.
  CliResult other = run_cli("validate llama3_8b_128k --world-size 16 --confg x");
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_EQ(other.err.find("run_recipe.py has no"), std::string::npos) << other.err;
}

// Issue #29: train.sh's --env NAME (setup_experiment.py:101-106 @ 067f987d: action="append", a
// variable the container inherits; _parse_env, 143-148, refuses NAME=VALUE) meets hcp-plan's own
// --env NAME=VALUE. A bare NAME is the launcher's: accepted and named, its value unknown.
TEST(RunRecipeFlags, EnvNameIsTheLaunchersAndEnvAssignmentIsHcpPlans) {
  const std::string base = "validate llama3_8b_128k --world-size 16 --te-version 2.18.0 --wide ";
  CliResult name = run_cli(base + "--env HF_TOKEN --mount /shared/data");
  EXPECT_EQ(name.exit_code, 0) << name.out << name.err;
  // (CLI11 takes --env before the loader sees the rest, so it is named last.)
  EXPECT_NE(name.out.find("launcher options ignored: --mount, --env"), std::string::npos)
      << name.out;
  EXPECT_NE(name.out.find("launch environment unknown"), std::string::npos) << name.out;
  // NAME=VALUE states the launch environment (CP111 is judged, not skipped).
  CliResult value = run_cli(base + "--env CUDA_DEVICE_MAX_CONNECTIONS=1 --env HF_TOKEN");
  EXPECT_EQ(value.exit_code, 0) << value.out << value.err;
  EXPECT_EQ(value.out.find("launch environment unknown"), std::string::npos) << value.out;
  EXPECT_NE(value.out.find("launcher options ignored: --env"), std::string::npos) << value.out;
  // A value that is another option is argparse's "expected one argument", never taken as NAME
  // (it took --nodes, and the 2 after it became an override, before).
  for (const char* bad : {"--env --nodes 2", "--env --mount /x", "--env --wait"}) {
    CliResult r = run_cli(base + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("argument --env: expected one argument"), std::string::npos) << bad << "\n"
                                                                                      << r.err;
  }
  EXPECT_EQ(run_cli(base + "--env").exit_code, 2);
}

// Issue #29: --gpus_per_node, as setup_experiment.py spells it besides --gpus-per-node
// (067f987d scripts/training/setup_experiment.py:67-73) and the performance scripts alone
// (scripts/performance/argument_parser.py:463-469).
TEST(RunRecipeFlags, GpusPerNodeTakesTheUnderscoreSpelling) {
  const std::string base = "validate llama3_8b_128k --nodes 2 --te-version 2.18.0 --format json ";
  CliResult dash = run_cli(base + "--gpus-per-node 8");
  CliResult underscore = run_cli(base + "--gpus_per_node 8");
  EXPECT_EQ(underscore.exit_code, 0) << underscore.out << underscore.err;
  EXPECT_EQ(underscore.out, dash.out);
  // 2 x 4 GPUs: CP 16 does not fit, whichever spelling gives the 4.
  CliResult four = run_cli(base + "--gpus_per_node 4");
  EXPECT_EQ(four.exit_code, 1) << four.out << four.err;
  EXPECT_NE(four.out.find("CP001"), std::string::npos) << four.out;
}

// Issue #29: run_recipe.py's --recipe NAME names the recipe when no RECIPE is given.
TEST(RunRecipeFlags, RecipeFlagNamesTheRecipe) {
  CliResult named =
      run_cli("validate --recipe llama3_8b_128k --world-size 16 --te-version 2.18.0 --format json");
  EXPECT_EQ(named.exit_code, 0) << named.out << named.err;
  EXPECT_NE(named.out.find("llama3_8b_128k"), std::string::npos) << named.out;
  CliResult unknown = run_cli("validate --recipe nemotron_3_super_pretrain_config");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.find("nothing to check"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("nemotron_3_super_pretrain_config"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace hcp::testing
