// Start-up of the hcp-plan binary as a whole process (issue 29: `validate` on a shipped recipe
// stays well under 5 ms): each iteration spawns it and waits. Wall time counts the exec, ld.so,
// the static initialisers and the command; compare builds on one idle machine.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

extern char** environ;

namespace {

/// The shipped recipes (recipes/*.yaml), sorted by name.
const std::vector<std::string>& shipped_recipes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(HCP_RECIPES_DIR)) {
      if (entry.path().extension() == ".yaml") out.push_back(entry.path().stem().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return names;
}

/// Run hcp-plan with `args` (output to /dev/null) and return its exit code, -1 when it did not
/// start or did not exit normally.
int run_hcp_plan(const std::vector<std::string>& args) {
  std::vector<std::string> words{HCP_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words)
    argv.push_back(w.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, HCP_BINARY, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

/// Time `args` per process; an exit code above `worst_ok` stops the benchmark with an error.
void time_process(benchmark::State& state, const std::vector<std::string>& args, int worst_ok) {
  for (auto _ : state) {
    int code = run_hcp_plan(args);
    if (code < 0 || code > worst_ok) {
      state.SkipWithError(("hcp-plan exited " + std::to_string(code)).c_str());
      return;
    }
  }
}

void BM_Version(benchmark::State& state) {
  time_process(state, {"--version"}, 0);
}
BENCHMARK(BM_Version)->Unit(benchmark::kMillisecond);

/// `validate NAME` on every shipped recipe, alone and on 4 nodes of 8 GPUs (which prices the
/// recipe's memory: CP115). Exit 1 (findings) is still a whole run.
[[maybe_unused]] const bool kRegistered = [] {
  for (const std::string& name : shipped_recipes()) {
    benchmark::RegisterBenchmark(("BM_Validate/" + name).c_str(), [name](benchmark::State& state) {
      time_process(state, {"validate", name}, 1);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("BM_Validate4x8/" + name).c_str(), [name](
                                                                         benchmark::State& state) {
      time_process(state, {"validate", name, "--nodes", "4", "--gpus-per-node", "8"}, 1);
    })->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
