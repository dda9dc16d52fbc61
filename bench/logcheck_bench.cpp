// Speed and memory of check-log's reader on a generated training log: the start-up block of a
// correct HCP run (tests/fixtures/logs/mlm_hcp_ok.log), then iteration, NCCL, process-group,
// memory and unrelated lines repeated up to HCP_LOGCHECK_BENCH_MB MiB (default 1024), plain and
// gzip. Reports bytes/s and the process's peak resident set (ru_maxrss) after the read.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "hcp/logcheck.h"

namespace {

int64_t target_mib() {
  const char* env = std::getenv("HCP_LOGCHECK_BENCH_MB");
  return env != nullptr ? std::max<int64_t>(1, std::atoll(env)) : 1024;
}

/// One repeated block of the kinds of lines a long run prints, `i` numbering its iteration.
std::string block(int64_t i) {
  std::ostringstream o;
  o << "0:  [2026-11-20 10:00:00.000000] iteration " << i
    << "/ 100000000 | consumed samples: " << 8 * i
    << " | elapsed time per iteration (ms): 18012.4 | throughput per GPU (TFLOP/s/GPU): 390.1 | "
       "learning rate: 1.500000E-05 | global batch size:     8 | lm loss: 2.345678E+00 | loss "
       "scale: 1.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan "
       "iterations:   0 |\n";
  o << "3: node003:4103:4190 [3] NCCL INFO Channel 02/0 : 3[3] -> 4[4] via P2P/CUMEM/read\n";
  o << "1: [rank1]:[W1120 10:00:01.123456789 ProcessGroupNCCL.cpp:4561] [PG ID 3 PG GUID "
       "5(CONTEXT_PARALLEL_GROUP) Rank 1] using GPU 1 to perform barrier\n";
  o << "0: /usr/local/lib/python3.12/dist-packages/torch/utils/checkpoint.py:86: UserWarning: "
       "None of the inputs have requires_grad=True. Gradients will be None\n";
  o << "0: [Rank 0] (after " << i
    << " iterations) memory (MB) | allocated: 30412.18 | max allocated: 66112.31 | reserved: "
       "70144.00 | max reserved: 70144.00\n";
  o << "2:   warnings.warn(\n";
  return o.str();
}

/// Write the log once per process; return its path.
std::string generated_log(bool gz) {
  static std::string plain_path;
  static std::string gz_path;
  std::string& path = gz ? gz_path : plain_path;
  if (!path.empty()) return path;
  std::string dir = std::filesystem::temp_directory_path().string();
  path = dir + "/hcp_logcheck_bench_" + std::to_string(getpid()) + (gz ? ".log.gz" : ".log");
  std::ifstream head_in(HCP_FIXTURES_DIR "/logs/mlm_hcp_ok.log");
  std::stringstream head;
  head << head_in.rdbuf();
  int64_t bytes = target_mib() << 20;
  if (gz) {
    gzFile f = gzopen(path.c_str(), "wb1");
    gzwrite(f, head.str().data(), static_cast<unsigned>(head.str().size()));
    for (int64_t i = 1, written = 0; written < bytes; ++i) {
      std::string b = block(i);
      gzwrite(f, b.data(), static_cast<unsigned>(b.size()));
      written += static_cast<int64_t>(b.size());
    }
    gzclose(f);
  } else {
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(head.str().data(), 1, head.str().size(), f);
    for (int64_t i = 1, written = 0; written < bytes; ++i) {
      std::string b = block(i);
      std::fwrite(b.data(), 1, b.size(), f);
      written += static_cast<int64_t>(b.size());
    }
    std::fclose(f);
  }
  return path;
}

void read_log(benchmark::State& state, bool gz) {
  std::string path = generated_log(gz);
  int64_t bytes = 0;
  for (auto _ : state) {
    auto log = hcp::parse_logs({path});
    if (!log) {
      state.SkipWithError(log.error().str().c_str());
      return;
    }
    bytes = log->bytes;
    benchmark::DoNotOptimize(log->iterations.size());
  }
  state.SetBytesProcessed(bytes * state.iterations());
  state.counters["log_MiB"] = static_cast<double>(bytes) / (1 << 20);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void BM_CheckLogReadPlain(benchmark::State& state) {
  read_log(state, false);
}
void BM_CheckLogReadGzip(benchmark::State& state) {
  read_log(state, true);
}
BENCHMARK(BM_CheckLogReadPlain)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_CheckLogReadGzip)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

/// Remove the generated files when the program ends.
struct Cleanup {
  ~Cleanup() {
    std::string dir = std::filesystem::temp_directory_path().string();
    std::string stem = dir + "/hcp_logcheck_bench_" + std::to_string(getpid());
    std::filesystem::remove(stem + ".log");
    std::filesystem::remove(stem + ".log.gz");
  }
} cleanup;

}  // namespace
