// Sequence-length files for dcp (one or more integers per line, '#' comments).
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/dcp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto lengths = hcp::dcp::parse_lengths_text(hcp::fuzz::as_text(data, size), "lengths.txt");
  if (lengths) {
    for (int64_t n : *lengths)
      HCP_FUZZ_CHECK(n > 0, "a sequence length is positive");
  }
  return 0;
}
