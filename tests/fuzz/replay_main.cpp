// Runs a fuzz harness over files and directories (recursively) without libFuzzer: the seed
// corpora and the inputs of past findings become a plain test in every build (fuzz_replay.NAME).
// Exit 0 when every input ran; a finding aborts (sanitizer report or HCP_FUZZ_CHECK).
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  int failures = 0;
  int inputs = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path arg(argv[i]);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::recursive_directory_iterator(arg, ec))
        if (entry.is_regular_file()) files.push_back(entry.path());
      for (const fs::path& file : files) {
        failures += run_file(file);
        ++inputs;
      }
    } else if (fs::exists(arg, ec)) {
      failures += run_file(arg);
      ++inputs;
    } else {
      std::fprintf(stderr, "no such input: %s\n", argv[i]);
      ++failures;
    }
  }
  std::printf("%d inputs\n", inputs);
  return failures == 0 && inputs > 0 ? 0 : 1;
}
