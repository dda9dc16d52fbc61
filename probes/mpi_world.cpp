// Optional MPI path (built with HCP_WITH_MPI when CMake finds MPI): joining the launcher's MPI
// world, gathering every rank's text on rank 0 and broadcasting rank 0's verdict; the probe's
// topology gather on top of it. The MPI calls live in libhcp_mpi.so (plugins/mpi), loaded with
// dlopen on the first join(): the binary does not link the MPI libraries, whose loading and
// initialisers cost about 2 ms of CPU at every start of every command.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "hcp/json_io.h"
#include "hcp/mpi_plugin_abi.h"
#include "hcp/mpi_world.h"
#include "hcp/topology.h"

namespace hcp {

bool mpi_available() {
#ifdef HCP_WITH_MPI
  return true;
#else
  return false;
#endif
}

bool launched_under_mpi() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(var) != nullptr) return true;
  return false;
}

#ifdef HCP_WITH_MPI

namespace {

Error mpi_error(std::string message) {
  return Error{std::move(message), Location{"<mpi>", 0, 0}, ""};
}

/// The plugin's entry points once loaded (process lifetime; never unloaded).
struct MpiPlugin {
  hcp_mpi_join_fn join = nullptr;
  hcp_mpi_finalize_fn finalize = nullptr;
  hcp_mpi_gather_int_fn gather_int = nullptr;
  hcp_mpi_gatherv_chars_fn gatherv_chars = nullptr;
  hcp_mpi_bcast_int_fn bcast_int = nullptr;
};

constexpr const char* kPluginName = "libhcp_mpi.so";

/// Where the plugin may be: $HCP_MPI_PLUGIN, next to the executable, ../lib/hcp-plan/ from it
/// (the install layout), and the build tree.
std::vector<std::string> plugin_paths() {
  if (const char* env = std::getenv("HCP_MPI_PLUGIN")) return {env};
  std::vector<std::string> paths;
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::string dir = exe.parent_path().string();
    paths.push_back(dir + "/" + kPluginName);
    paths.push_back(dir + "/../lib/hcp-plan/" + kPluginName);
  }
#ifdef HCP_MPI_PLUGIN_BUILD_PATH
  paths.push_back(HCP_MPI_PLUGIN_BUILD_PATH);
#endif
  return paths;
}

template <typename Fn>
Fn symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

Result<MpiPlugin> load_plugin() {
  static MpiPlugin loaded;
  if (loaded.join != nullptr) return loaded;
  std::string tried;
  for (const std::string& path : plugin_paths()) {
    if (!std::filesystem::exists(path)) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    // RTLD_GLOBAL: Open MPI's own components resolve libmpi's symbols through the global scope.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      return mpi_error("cannot load " + path + ": " + (why ? why : "unknown dlopen error"));
    }
    auto version = symbol<hcp_mpi_abi_version_fn>(handle, "hcp_mpi_abi_version");
    MpiPlugin p;
    p.join = symbol<hcp_mpi_join_fn>(handle, "hcp_mpi_join");
    p.finalize = symbol<hcp_mpi_finalize_fn>(handle, "hcp_mpi_finalize");
    p.gather_int = symbol<hcp_mpi_gather_int_fn>(handle, "hcp_mpi_gather_int");
    p.gatherv_chars = symbol<hcp_mpi_gatherv_chars_fn>(handle, "hcp_mpi_gatherv_chars");
    p.bcast_int = symbol<hcp_mpi_bcast_int_fn>(handle, "hcp_mpi_bcast_int");
    if (version == nullptr || version() != HCP_MPI_PLUGIN_ABI_VERSION || p.join == nullptr ||
        p.finalize == nullptr || p.gather_int == nullptr || p.gatherv_chars == nullptr ||
        p.bcast_int == nullptr) {
      return mpi_error(path + " is not a compatible hcp-plan MPI plugin (ABI version " +
                       std::to_string(HCP_MPI_PLUGIN_ABI_VERSION) + " expected)");
    }
    loaded = p;
    return loaded;
  }
  return mpi_error("the MPI plugin " + std::string(kPluginName) + " was not found (looked at " +
                   tried + "; set HCP_MPI_PLUGIN to its path)");
}

}  // namespace

Result<std::unique_ptr<MpiWorld>> MpiWorld::join() {
  auto plugin = load_plugin();
  if (!plugin) return plugin.error();
  std::unique_ptr<MpiWorld> world(new MpiWorld());
  int finalize = 0;
  if (plugin->join(&world->rank_, &world->size_, &finalize) != 0)
    return mpi_error("MPI_Init failed");
  world->finalize_ = finalize != 0;
  return world;
}

MpiWorld::~MpiWorld() {
  if (finalize_) {
    if (auto plugin = load_plugin()) plugin->finalize();
  }
}

Result<std::vector<std::string>> MpiWorld::gather_on_root(const std::string& mine) {
  auto plugin = load_plugin();
  if (!plugin) return plugin.error();
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(is_root() ? size_ : 0);
  if (plugin->gather_int(len, lens.data()) != 0)
    return mpi_error("MPI_Gather of message sizes failed");
  std::vector<int> offsets(lens.size(), 0);
  int total = 0;
  for (size_t i = 0; i < lens.size(); ++i) {
    offsets[i] = total;
    total += lens[i];
  }
  std::string buffer(static_cast<size_t>(total), '\0');
  if (plugin->gatherv_chars(mine.data(), len, buffer.data(), lens.data(), offsets.data()) != 0)
    return mpi_error("MPI_Gatherv of the ranks' reports failed");
  std::vector<std::string> all;
  for (size_t i = 0; i < lens.size(); ++i)
    all.push_back(buffer.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lens[i])));
  return all;
}

Result<int> MpiWorld::broadcast_from_root(int value) {
  auto plugin = load_plugin();
  if (!plugin) return plugin.error();
  if (plugin->bcast_int(&value) != 0) return mpi_error("MPI_Bcast of the verdict failed");
  return value;
}

#else

Result<std::unique_ptr<MpiWorld>> MpiWorld::join() {
  return Error{"this hcp-plan was built without MPI (install libopenmpi-dev and rebuild)",
               Location{"<mpi>", 0, 0}, ""};
}

MpiWorld::~MpiWorld() = default;

Result<std::vector<std::string>> MpiWorld::gather_on_root(const std::string& mine) {
  return std::vector<std::string>{mine};
}

Result<int> MpiWorld::broadcast_from_root(int value) {
  return value;
}

#endif

Status mpi_gather_topologies(const Topology& mine, std::vector<Topology>& all, bool& is_root,
                             int& rank) {
  all.clear();
  is_root = true;
  rank = 0;
  auto world = MpiWorld::join();
  if (!world) return world.error();
  rank = (*world)->rank();
  is_root = (*world)->is_root();
  auto texts = (*world)->gather_on_root(json_dump(topology_to_json(mine)));
  if (!texts) return texts.error();
  for (size_t i = 0; i < texts->size(); ++i) {
    auto j = nlohmann::json::parse((*texts)[i], nullptr, false);
    auto t = topology_from_json(j, "rank " + std::to_string(i));
    if (!t) return t.error();
    all.push_back(*t);
  }
  return Ok{};
}

}  // namespace hcp
