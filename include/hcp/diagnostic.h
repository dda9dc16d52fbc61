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
  int column = 0;  ///< 1-based, in bytes of the line (text, GCC and JSON formats); 0 when unknown.
  /// 1-based, in Unicode code points (SARIF's columnKind); 0 where the reader did not count them
  /// (then `column`, the same on a line of ASCII). Readers that hold the text set it when they
  /// make the location (recipe YAML: yaml_location).
  int code_point_column = 0;

  /// Return "file:line:col", "file:line", "file" or "<unknown>".
  std::string str() const;
  bool known() const { return !file.empty(); }
};

enum class Severity { kInfo, kWarning, kError };

/// Return "info", "warning" or "error".
const char* severity_name(Severity s);

/// One finding of a rule, or a note without a rule, in the JSON contract's shape.
///
/// A rule's finding is made only from its catalog entry (hcp::finding and the rules' Reporter,
/// include/hcp/rules.h): its ID, severity, fix and enforced_by are the entry's, and no code can set
/// or change them afterwards. A note without a rule ID (a loader's warning, an unknown-input line)
/// is made by Diagnostic::note, which states its own severity and fix.
class Diagnostic {
 public:
  Diagnostic() = default;  ///< An empty note (severity error, no ID, no fix).
  /// Return a note without a rule ID: `message` about `key` at `location`, with its `fix`.
  static Diagnostic note(Severity severity, std::string message, std::string key = {},
                         Location location = {}, std::string fix = {});

  /// Rule ID such as "CP013"; empty for a note.
  const std::string& id() const { return id_; }
  Severity severity() const { return severity_; }
  /// One-line fix hint; may be empty.
  const std::string& fix() const { return fix_; }
  /// Frameworks that reject it upstream.
  const std::vector<std::string>& enforced_by() const { return enforced_by_; }

  std::string message;
  std::string key;  ///< Config key the finding is about, e.g. "model.context_parallel_size".
  Location location;

 private:
  /// The rule catalog's one maker of findings (src/rules/registry.cpp): it alone fills the ID,
  /// severity, fix and enforced_by of a finding, from the rule's entry.
  friend class CatalogFinding;

  std::string id_;
  Severity severity_ = Severity::kError;
  std::string fix_;
  std::vector<std::string> enforced_by_;
};

/// "severity: [ID] message" (no brackets without an ID) on one line: line breaks and tabs that
/// the message quotes (a YAML key, a device name from a capture) are written out (one_line).
std::string diagnostic_headline(const Diagnostic& d);

/// "fix: ..." on one line, or "" when `d` has no fix.
std::string diagnostic_fix_line(const Diagnostic& d);

/// Findings of one kind past this many are folded into one "... and N more" note.
inline constexpr size_t kFoldAfter = 10;

/// Return `diagnostics` with repeats folded, for every report format alike (text, JSON, SARIF,
/// JUnit, GitHub, GCC; 400,000 identical findings help no reader, human or machine). A kind is a
/// rule ID with its severity, or, for notes without an ID, their severity and file. The first
/// `keep` of each kind stay where they are; one info note without an ID follows the last of them:
/// "... and N more [ID] errors like the above (folded; ...)". Summaries, verdicts and exit codes
/// count the list before folding.
std::vector<Diagnostic> fold_repeats(const std::vector<Diagnostic>& diagnostics,
                                     size_t keep = kFoldAfter);

/// One entry of a folded list (see fold_repeats): the diagnostic at `index` of the input, or, when
/// `note` is set, the fold note that follows it (for lists whose entries carry more than the
/// diagnostic, such as preflight's source).
struct FoldedEntry {
  size_t index = 0;
  std::optional<Diagnostic> note;
};
/// Return what fold_repeats keeps, as indices into `diagnostics` and fold notes, in order.
std::vector<FoldedEntry> fold_plan(const std::vector<Diagnostic>& diagnostics,
                                   size_t keep = kFoldAfter);

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

/// An error about the file at PATH as a whole (no line or column).
Error file_error(const std::string& path, const std::string& message);

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
