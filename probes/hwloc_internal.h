// hwloc-backed readers inside the probes module.
#pragma once

#include <string>

#include "hcp/topology.h"

namespace hcp::probe_detail {

/// Discover this node with hwloc (I/O devices on, OpenCL/GL plugins off) and read sysfs for NIC
/// rates. Sources: "hwloc".
Result<Topology> hwloc_live_topology();
/// Import an hwloc 1.x/2.x XML export. Sources: "hwloc-xml:PATH".
Result<Topology> hwloc_xml_topology(const std::string& path);

}  // namespace hcp::probe_detail
