// Diagnostics and error values shared by every module of hcp-plan.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace hcp {

/// Where a value came from: a file position, an override, or the command line.
struct Location {
  std::string file;  ///< Path, "<override N>" or "<command line>"; empty when unknown.
  int line = 0;      ///< 1-based; 0 when unknown.
  int column = 0;    ///< 1-based; 0 when unknown.

  /// Return "file:line:col", "file:line", "file" or "<unknown>".
  std::string str() const;
  bool known() const { return !file.empty(); }
};

enum class Severity { kInfo, kWarning, kError };

/// Return "info", "warning" or "error".
const char* severity_name(Severity s);

/// One finding of a rule (or of a loader), in the JSON contract's shape.
struct Diagnostic {
  std::string id;  ///< Rule ID such as "CP013"; empty for loader errors.
  Severity severity = Severity::kError;
  std::string message;
  std::string key;  ///< Config key the finding is about, e.g. "model.context_parallel_size".
  Location location;
  std::string fix;                       ///< One-line fix hint; may be empty.
  std::vector<std::string> enforced_by;  ///< Frameworks that reject it upstream.
};

/// An error passed back as a value: a one-line message with its context.
struct Error {
  std::string message;
  Location location;
  std::string key;
  /// Further errors of the same input found in the same pass (every unknown key of a recipe
  /// file, not only the first); each has no `more` of its own.
  std::vector<Error> more{};

  /// Return "file:line:col: message" (or just the message when unlocated).
  std::string str() const;
};

/// A value or an error. Small stand-in for C++23 std::expected.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Result of an operation that returns nothing on success.
struct Ok {};
using Status = Result<Ok>;

}  // namespace hcp
