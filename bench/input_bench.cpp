// Speed of the input layer's text checks (issue 28): UTF-8 validation and line-end normalisation
// run on every text file read, up to the 1 GiB --lengths limit, so they must stay near memcpy
// speed on ASCII.
#include <benchmark/benchmark.h>

#include <string>

#include "hcp/file_input.h"
#include "hcp/text_util.h"

namespace {

/// `bytes` of a lengths file: one number a line.
std::string ascii_lines(size_t bytes) {
  std::string text;
  text.reserve(bytes + 16);
  for (int i = 0; text.size() < bytes; ++i)
    text += std::to_string(1000 + (i * 7919) % 30000) + "\n";
  return text;
}

void BM_FirstInvalidUtf8Ascii(benchmark::State& state) {
  const std::string text = ascii_lines(static_cast<size_t>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(hcp::first_invalid_utf8(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_FirstInvalidUtf8Ascii)->Arg(1 << 20)->Arg(64 << 20);

void BM_FirstInvalidUtf8Mixed(benchmark::State& state) {
  std::string text;
  while (text.size() < static_cast<size_t>(state.range(0)))
    text += "key: caf\xC3\xA9 \xE2\x82\xAC\n";
  for (auto _ : state)
    benchmark::DoNotOptimize(hcp::first_invalid_utf8(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_FirstInvalidUtf8Mixed)->Arg(1 << 20);

void BM_NormalizeInputText(benchmark::State& state) {
  const std::string text = ascii_lines(static_cast<size_t>(state.range(0)));
  for (auto _ : state) {
    auto r = hcp::normalize_input_text(text, "lengths.txt", "lengths file");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_NormalizeInputText)->Arg(64 << 20);

}  // namespace
