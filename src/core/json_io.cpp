#include "hcp/json_io.h"

#include <set>
#include <vector>

namespace hcp {

namespace {

/// Thrown from the parser callback to stop parsing; caught in parse_impl only.
struct StopParse {
  std::string message;
};

/// nlohmann's what() without its "[json.exception.parse_error.101] " prefix.
std::string strip_prefix(const char* what) {
  std::string text = what;
  if (text.starts_with("[json.exception.")) {
    auto close = text.find("] ");
    if (close != std::string::npos) text.erase(0, close + 2);
  }
  return text;
}

Error json_error(const std::string& message, Location where) {
  Error e;
  e.message = message;
  e.location = std::move(where);
  return e;
}

template <typename Json>
Result<Json> parse_impl(std::string_view text, const std::string& name, const std::string& what) {
  text = strip_utf8_bom(text);
  Location file_only;
  file_only.file = name;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return json_error("empty file, expected " + what, file_only);
  }
  // One set of keys per open object, to find duplicates; depth guards the recursive dump and
  // destructor of absurdly nested documents.
  std::vector<std::set<std::string>> keys;
  auto callback = [&](int depth, nlohmann::detail::parse_event_t event, Json& parsed) -> bool {
    using E = nlohmann::detail::parse_event_t;
    if (depth > kMaxJsonDepth) {
      throw StopParse{what + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
    }
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty()) {
      std::string key = parsed.template get<std::string>();
      if (!keys.back().insert(key).second) {
        throw StopParse{"duplicate key '" + key + "' in " + what};
      }
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const StopParse& stop) {
    return json_error(stop.message, file_only);
  } catch (const nlohmann::json::parse_error& e) {
    uint64_t at = e.byte > 0 ? e.byte - 1 : 0;
    return json_error("malformed " + what + ": " + strip_prefix(e.what()),
                      location_at_offset(text, name, at));
  } catch (const nlohmann::json::out_of_range& e) {
    // 1e400 and friends: a number that does not fit a double.
    return json_error("malformed " + what + ": " + strip_prefix(e.what()), file_only);
  } catch (const nlohmann::json::exception& e) {
    return json_error("malformed " + what + ": " + strip_prefix(e.what()), file_only);
  } catch (const std::bad_alloc&) {
    return json_error(what + " is too large to parse", file_only);
  }
}

template <typename Json>
Result<Json> load_impl(const std::string& path, InputKind kind, const std::string& what) {
  Result<std::string> text = read_input_file(path, kind);
  if (!text) return text.error();
  return parse_impl<Json>(*text, path, what);
}

}  // namespace

std::string json_dump(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_dump(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<nlohmann::json> parse_json_input(std::string_view text, const std::string& name,
                                        const std::string& what) {
  return parse_impl<nlohmann::json>(text, name, what);
}

Result<nlohmann::ordered_json> parse_ordered_json_input(std::string_view text,
                                                        const std::string& name,
                                                        const std::string& what) {
  return parse_impl<nlohmann::ordered_json>(text, name, what);
}

Result<nlohmann::json> load_json_file(const std::string& path, InputKind kind,
                                      const std::string& what) {
  return load_impl<nlohmann::json>(path, kind, what);
}

Result<nlohmann::ordered_json> load_ordered_json_file(const std::string& path, InputKind kind,
                                                      const std::string& what) {
  return load_impl<nlohmann::ordered_json>(path, kind, what);
}

}  // namespace hcp
