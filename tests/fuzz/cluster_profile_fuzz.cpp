// Cluster profiles (recipes/clusters/*.yaml, probe --save). Property: a profile that loads is
// written by cluster_profile_yaml and reads again to the same text.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/cluster.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static hcp::fuzz::ScratchFile file("-cluster.yaml");
  auto profile = hcp::load_cluster_profile(file.write(hcp::fuzz::as_text(data, size)));
  if (!profile) return 0;
  std::string written = hcp::cluster_profile_yaml(*profile);
  auto again = hcp::load_cluster_profile(file.write(written));
  HCP_FUZZ_CHECK(again.ok(), again ? std::string() : again.error().str());
  HCP_FUZZ_CHECK(hcp::cluster_profile_yaml(*again) == written, "the second write is the same");
  return 0;
}
