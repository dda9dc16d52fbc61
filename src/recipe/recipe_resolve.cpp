// RECIPE on the command line: a path, or the name of a recipe shipped in recipes/.
#include <algorithm>
#include <filesystem>

#include "hcp/data_dir.h"
#include "hcp/edit_distance.h"
#include "hcp/recipe.h"

namespace hcp {
namespace {
namespace fs = std::filesystem;

bool looks_like_path(const std::string& s) {
  return s.find('/') != std::string::npos || s.rfind('.', 0) == 0;
}

/// Return the names (file stems) of every shipped recipe, sorted and unique.
std::vector<std::string> shipped_names() {
  std::vector<std::string> names;
  for (const std::string& dir : recipe_search_dirs()) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() == ".yaml" && it->is_regular_file(ec)) names.push_back(p.stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

std::vector<std::string> shipped_recipe_names() {
  return shipped_names();
}

Result<std::string> resolve_recipe_path(const std::string& name_or_path) {
  if (name_or_path.empty()) return Error{"empty recipe name", {}, ""};
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  if (!looks_like_path(name_or_path)) {
    std::string file = name_or_path;
    if (fs::path(file).extension() != ".yaml") file += ".yaml";
    if (std::string found = find_data_file(file); !found.empty()) return found;
    std::string stem = fs::path(file).stem().string();
    std::string message = "no recipe file or shipped recipe named '" + name_or_path + "'";
    std::string close = closest_match(stem, shipped_names());
    message += did_you_mean(stem, close);
    return Error{message, {}, ""};
  }
  // Anything there (a directory, a device, a symlink loop): the loader says what is wrong.
  if (fs::exists(fs::symlink_status(name_or_path, ec))) return name_or_path;
  return Error{"no such file", Location{name_or_path, 0, 0}, ""};
}

}  // namespace hcp
