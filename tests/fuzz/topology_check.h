// What the topology harnesses do with a capture that loads: derive the findings, write the
// summary and the JSON (`probe --json`), and read the JSON back (every writer round-trips its
// reader: `--topology probe.json` and the MPI gather read what `probe --json` wrote).
#pragma once

#include <string>

#include "fuzz_util.h"
#include "hcp/json_io.h"
#include "hcp/preflight.h"
#include "hcp/topology.h"

namespace hcp::fuzz {

inline void check_topology(const Topology& topo) {
  auto findings = topology_findings(topo);
  (void)topology_text(topo, findings);
  nlohmann::json j = topology_to_json(topo);
  // As `probe --format json` writes it (json_dump: invalid UTF-8 from a capture is replaced).
  std::string text = json_dump(j, 2);
  auto back = topology_from_json(nlohmann::json::parse(text), "probe.json");
  HCP_FUZZ_CHECK(back.ok(), back ? std::string() : back.error().str());
  HCP_FUZZ_CHECK(json_dump(topology_to_json(*back), 2) == text, "the second write is the same");
}

}  // namespace hcp::fuzz
