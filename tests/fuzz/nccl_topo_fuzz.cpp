// NCCL topology XML (NCCL_TOPO_FILE hints and NCCL_TOPO_DUMP_FILE dumps).
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "topology_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto topo = hcp::parse_nccl_topo(std::string(hcp::fuzz::as_text(data, size)), "nccl.xml");
  if (topo) hcp::fuzz::check_topology(*topo);
  return 0;
}
