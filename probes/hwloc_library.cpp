// libhwloc loaded at run time: hcp-plan does not link it. Only the topology readers (probe,
// preflight, plan --hwloc-xml) use hwloc, and a linked libhwloc (with its libudev) costs every
// start of hcp-plan ld.so's mapping, relocation and symbol binding: about 0.1 ms of a 2 ms
// `validate`. The hwloc functions the readers call (directly or through hwloc.h's inline
// helpers) are defined here, each forwarding to libhwloc's own. An executable does not export
// them, so a library that links libhwloc itself (Open MPI, in the MPI plugin) binds to libhwloc.
#include <dlfcn.h>
#include <hwloc.h>
#include <hwloc/distances.h>

#include <cstdlib>
#include <string>

#include "hwloc_internal.h"

namespace hcp::probe_detail {
namespace {

/// Debian's libhwloc15: the hwloc 2.x ABI hwloc.h describes.
constexpr const char* kHwlocLibrary = "libhwloc.so.15";

struct HwlocLibrary {
  void* handle = nullptr;
  std::string name;     ///< What dlopen was given.
  std::string problem;  ///< Why it is not usable ("" when it is).
};

/// dlopen's answer for `name`, with the API version check hwloc asks of programs that load it.
HwlocLibrary open_hwloc(const std::string& name) {
  HwlocLibrary lib;
  lib.name = name;
  // RTLD_GLOBAL: hwloc's own plugins (hwloc_pci.so, ...) look up its symbols globally.
  lib.handle = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (lib.handle == nullptr) {
    const char* why = dlerror();
    lib.problem = name + " cannot be loaded (" + (why != nullptr ? why : "no reason given") +
                  "): install hwloc's runtime library (Debian: apt-get install libhwloc15)";
    return lib;
  }
  auto api_version = reinterpret_cast<unsigned (*)()>(dlsym(lib.handle, "hwloc_get_api_version"));
  if (api_version == nullptr || (api_version() >> 16) != (HWLOC_API_VERSION >> 16)) {
    lib.problem = name + " is not the hwloc 2.x library hcp-plan was built for";
    dlclose(lib.handle);
    lib.handle = nullptr;
  }
  return lib;
}

/// libhwloc, opened on first use: HCP_HWLOC_LIBRARY names another file (tests use it).
const HwlocLibrary& hwloc_library() {
  static const HwlocLibrary lib = [] {
    const char* chosen = std::getenv("HCP_HWLOC_LIBRARY");
    return open_hwloc(chosen != nullptr && *chosen != '\0' ? chosen : kHwlocLibrary);
  }();
  return lib;
}

/// libhwloc's function `name` as an F; nullptr without the library or the function.
template <typename F>
F hwloc_function(const char* name) {
  const HwlocLibrary& lib = hwloc_library();
  return lib.handle != nullptr ? reinterpret_cast<F>(dlsym(lib.handle, name)) : nullptr;
}

}  // namespace

Status load_hwloc_library() {
  const HwlocLibrary& lib = hwloc_library();
  if (!lib.problem.empty()) return Error{lib.problem, {}, {}};
  return Ok{};
}

}  // namespace hcp::probe_detail

namespace hcp {

Status hwloc_library_status() {
  return probe_detail::load_hwloc_library();
}

}  // namespace hcp

using hcp::probe_detail::hwloc_function;

// The forwarders: without the library (load_hwloc_library() said why) each fails as hwloc's own
// does on an error: -1, nullptr or nothing.
extern "C" {

int hwloc_topology_init(hwloc_topology_t* topology) {
  static const auto real = hwloc_function<decltype(&hwloc_topology_init)>("hwloc_topology_init");
  return real != nullptr ? real(topology) : -1;
}

int hwloc_topology_load(hwloc_topology_t topology) {
  static const auto real = hwloc_function<decltype(&hwloc_topology_load)>("hwloc_topology_load");
  return real != nullptr ? real(topology) : -1;
}

void hwloc_topology_destroy(hwloc_topology_t topology) {
  static const auto real =
      hwloc_function<decltype(&hwloc_topology_destroy)>("hwloc_topology_destroy");
  if (real != nullptr) real(topology);
}

int hwloc_topology_set_xmlbuffer(hwloc_topology_t topology, const char* buffer, int size) {
  static const auto real =
      hwloc_function<decltype(&hwloc_topology_set_xmlbuffer)>("hwloc_topology_set_xmlbuffer");
  return real != nullptr ? real(topology, buffer, size) : -1;
}

int hwloc_topology_set_io_types_filter(hwloc_topology_t topology, enum hwloc_type_filter_e filter) {
  static const auto real = hwloc_function<decltype(&hwloc_topology_set_io_types_filter)>(
      "hwloc_topology_set_io_types_filter");
  return real != nullptr ? real(topology, filter) : -1;
}

int hwloc_topology_set_components(hwloc_topology_t topology, unsigned long flags,
                                  const char* name) {
  static const auto real =
      hwloc_function<decltype(&hwloc_topology_set_components)>("hwloc_topology_set_components");
  return real != nullptr ? real(topology, flags, name) : -1;
}

int hwloc_get_type_depth(hwloc_topology_t topology, hwloc_obj_type_t type) {
  static const auto real = hwloc_function<decltype(&hwloc_get_type_depth)>("hwloc_get_type_depth");
  return real != nullptr ? real(topology, type) : HWLOC_TYPE_DEPTH_UNKNOWN;
}

unsigned hwloc_get_nbobjs_by_depth(hwloc_topology_t topology, int depth) {
  static const auto real =
      hwloc_function<decltype(&hwloc_get_nbobjs_by_depth)>("hwloc_get_nbobjs_by_depth");
  return real != nullptr ? real(topology, depth) : 0;
}

hwloc_obj_t hwloc_get_obj_by_depth(hwloc_topology_t topology, int depth, unsigned idx) {
  static const auto real =
      hwloc_function<decltype(&hwloc_get_obj_by_depth)>("hwloc_get_obj_by_depth");
  return real != nullptr ? real(topology, depth, idx) : nullptr;
}

int hwloc_type_sscanf(const char* string, hwloc_obj_type_t* typep, union hwloc_obj_attr_u* attrp,
                      size_t attrsize) {
  static const auto real = hwloc_function<decltype(&hwloc_type_sscanf)>("hwloc_type_sscanf");
  return real != nullptr ? real(string, typep, attrp, attrsize) : -1;
}

int hwloc_bitmap_first(hwloc_const_bitmap_t bitmap) {
  static const auto real = hwloc_function<decltype(&hwloc_bitmap_first)>("hwloc_bitmap_first");
  return real != nullptr ? real(bitmap) : -1;
}

int hwloc_bitmap_weight(hwloc_const_bitmap_t bitmap) {
  static const auto real = hwloc_function<decltype(&hwloc_bitmap_weight)>("hwloc_bitmap_weight");
  return real != nullptr ? real(bitmap) : -1;
}

int hwloc_bitmap_list_asprintf(char** strp, hwloc_const_bitmap_t bitmap) {
  static const auto real =
      hwloc_function<decltype(&hwloc_bitmap_list_asprintf)>("hwloc_bitmap_list_asprintf");
  return real != nullptr ? real(strp, bitmap) : -1;
}

int hwloc_distances_get_by_name(hwloc_topology_t topology, const char* name, unsigned* nr,
                                struct hwloc_distances_s** distances, unsigned long flags) {
  static const auto real =
      hwloc_function<decltype(&hwloc_distances_get_by_name)>("hwloc_distances_get_by_name");
  return real != nullptr ? real(topology, name, nr, distances, flags) : -1;
}

void hwloc_distances_release(hwloc_topology_t topology, struct hwloc_distances_s* distances) {
  static const auto real =
      hwloc_function<decltype(&hwloc_distances_release)>("hwloc_distances_release");
  if (real != nullptr) real(topology, distances);
}

}  // extern "C"
