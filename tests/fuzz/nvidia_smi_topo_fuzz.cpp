// `nvidia-smi topo -m` / `-mp` text captures.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "topology_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto topo = hcp::parse_nvidia_smi_topo(std::string(hcp::fuzz::as_text(data, size)), "topo.txt");
  if (topo) hcp::fuzz::check_topology(*topo);
  return 0;
}
