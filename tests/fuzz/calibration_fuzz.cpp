// Calibration JSON (hcp-plan bench --save). Property: whatever loads is written back by
// calibration_to_json and reads again to the same text (every writer round-trips its reader).
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "hcp/calibration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto cal = hcp::parse_calibration(std::string(hcp::fuzz::as_text(data, size)), "cal.json");
  if (!cal) return 0;
  std::string written = hcp::calibration_to_json(*cal);
  auto again = hcp::parse_calibration(written, "written.json");
  HCP_FUZZ_CHECK(again.ok(), again ? std::string() : again.error().str());
  HCP_FUZZ_CHECK(hcp::calibration_to_json(*again) == written, "the second write is the same");
  return 0;
}
