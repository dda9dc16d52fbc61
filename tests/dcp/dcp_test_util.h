// Shared helpers for the dcp tests: fixture loading.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace hcp::dcp::testing {

using RankLists = std::vector<std::vector<std::vector<int64_t>>>;

/// Return the whole fixture file tests/fixtures/<relative> (empty when missing).
inline std::string read_fixture(const std::string& relative) {
  std::ifstream in(std::string(HCP_FIXTURES_DIR) + "/" + relative, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Parse a JSON fixture; a missing or malformed file yields a null document.
inline nlohmann::json load_fixture(const std::string& relative) {
  return nlohmann::json::parse(read_fixture(relative), nullptr, false);
}

}  // namespace hcp::dcp::testing
