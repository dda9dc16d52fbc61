// Megatron indexed-dataset .idx files (MMIDIDX header, dtype, sizes, pointers, documents).
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/dcp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto lengths = hcp::dcp::parse_idx_bytes(hcp::fuzz::as_text(data, size), "data.idx");
  if (lengths) {
    for (int64_t n : *lengths)
      HCP_FUZZ_CHECK(n > 0, "a sequence length is positive");
  }
  return 0;
}
