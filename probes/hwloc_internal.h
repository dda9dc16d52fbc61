// hwloc-backed readers inside the probes module.
#pragma once

#include <string>

#include "hcp/diagnostic.h"
#include "hcp/topology.h"

namespace hcp::probe_detail {

/// Load libhwloc (hwloc_library.cpp: it is opened at run time, not linked), once. An error names
/// the library and the Debian package when it is missing or not hwloc 2.x.
Status load_hwloc_library();

/// Discover this node with hwloc (I/O devices on, OpenCL/GL plugins off) and read sysfs for NIC
/// rates. Sources: "hwloc".
Result<Topology> hwloc_live_topology();
/// Import an hwloc 1.x/2.x XML export. Sources: "hwloc-xml:PATH".
Result<Topology> hwloc_xml_topology(const std::string& path);

}  // namespace hcp::probe_detail
