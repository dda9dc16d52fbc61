// hcp-plan recipes: the shipped recipes (names usable as RECIPE) and cluster profiles (names
// usable with --cluster), each with its one-line description.
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command.h"
#include "hcp/cluster.h"
#include "hcp/recipe.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct Entry {
  std::string name;
  std::string description;
};

/// The recipe's first comment line ("# Llama 3 8B, 128K ..."), without the "# ".
std::string recipe_description(const std::string& name) {
  auto path = resolve_recipe_path(name);
  if (!path) return "";
  std::ifstream in(*path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) return line.substr(2);
    if (!line.empty() && line[0] != '#') break;
  }
  return "";
}

std::string fit(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

/// The entries, each description shortened to fit `width` columns (0: whole).
std::string table(const std::string& heading, const std::vector<Entry>& entries, size_t width) {
  size_t name_width = 4;
  for (const Entry& e : entries)
    name_width = std::max(name_width, e.name.size());
  std::string out = heading + "\n";
  for (const Entry& e : entries) {
    const size_t indent = std::min<size_t>(name_width + 4, 60);
    const size_t room = width > indent + 10 ? width - indent : 10;
    std::string description = width == 0 ? e.description : fit(e.description, room);
    out += "  " + e.name + std::string(name_width - e.name.size() + 2, ' ') + description + "\n";
  }
  return out;
}

int run_recipes(const OutputOptions& output) {
  std::vector<Entry> recipes, clusters;
  for (const std::string& name : shipped_recipe_names())
    recipes.push_back({name, recipe_description(name)});
  for (const std::string& name : cluster_profile_names()) {
    auto profile = find_cluster_profile(name);
    clusters.push_back({name, profile ? profile->description : ""});
  }
  std::string text;
  if (output.format == "json") {
    auto list = [](const std::vector<Entry>& entries) {
      nlohmann::ordered_json j = nlohmann::ordered_json::array();
      for (const Entry& e : entries)
        j.push_back({{"name", e.name}, {"description", e.description}});
      return j;
    };
    nlohmann::ordered_json doc{{"recipes", list(recipes)}, {"clusters", list(clusters)}};
    text = doc.dump(2) + "\n";
  } else {
    text = table("Shipped recipes (use the name as RECIPE):", recipes, output.width) + "\n" +
           table("Cluster profiles (use the name with --cluster):", clusters, output.width);
  }
  return emit(output, text) ? kExitOk : kExitBadInput;
}

const CommandRegistration kRecipes{"recipes", "List the shipped recipes and cluster profiles",
                                   [](CLI::App& sub) -> std::function<int()> {
                                     auto output = std::make_shared<OutputOptions>();
                                     add_output_options(sub,
                                                        *output);  // --wide: whole descriptions.
                                     return [output] { return run_recipes(*output); };
                                   }};

}  // namespace
}  // namespace hcp::cli
