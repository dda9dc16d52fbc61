// hwloc XML exports (lstopo --of xml), through the pre-check and hwloc's own importer.
// The loader only takes a path: the input goes to a scratch file.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "topology_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static hcp::fuzz::ScratchFile file("-hwloc.xml");
  auto topo = hcp::load_hwloc_xml(file.write(hcp::fuzz::as_text(data, size)));
  if (topo) hcp::fuzz::check_topology(*topo);
  return 0;
}
