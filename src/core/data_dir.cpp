#include "hcp/data_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#ifndef HCP_SOURCE_RECIPES_DIR
#define HCP_SOURCE_RECIPES_DIR ""
#endif
#ifndef HCP_INSTALL_RECIPES_DIR
#define HCP_INSTALL_RECIPES_DIR ""
#endif

namespace hcp {
namespace fs = std::filesystem;

namespace {

std::string executable_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return exe.parent_path().string();
}

}  // namespace

std::vector<std::string> recipe_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("HCP_PLAN_DATA_DIR"); env && *env) dirs.emplace_back(env);
  std::string exe = executable_dir();
  if (!exe.empty())
    dirs.push_back((fs::path(exe) / ".." / "share" / "hcp-plan" / "recipes").string());
  if (*HCP_SOURCE_RECIPES_DIR) dirs.emplace_back(HCP_SOURCE_RECIPES_DIR);
  if (*HCP_INSTALL_RECIPES_DIR) dirs.emplace_back(HCP_INSTALL_RECIPES_DIR);
  return dirs;
}

std::string find_data_file(const std::string& relative) {
  for (const auto& dir : recipe_search_dirs()) {
    std::error_code ec;
    fs::path candidate = fs::path(dir) / relative;
    if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
  }
  return {};
}

}  // namespace hcp
