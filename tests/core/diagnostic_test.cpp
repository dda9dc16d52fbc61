// Diagnostic: a rule finding's ID, severity, fix and enforced_by can only come from the rule
// catalog (include/hcp/rules.h); other code reads them and writes the message, key and location.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "hcp/diagnostic.h"

namespace hcp {
namespace {

// Issue #26: no emitter passes a severity or a fix. The type enforces it: the catalog-owned parts
// are read through accessors that cannot be assigned, Diagnostic is no aggregate and has no
// constructor that takes them, and its one public maker, Diagnostic::note, makes notes without a
// rule ID (so a note cannot pass for a rule's finding).
template <typename D>
concept CanSetId = requires(D d) {
  d.id() = std::string();
};
template <typename D>
concept CanSetSeverity = requires(D d) {
  d.severity() = Severity::kError;
};
template <typename D>
concept CanSetFix = requires(D d) {
  d.fix() = std::string();
};
template <typename D>
concept CanSetEnforcedBy = requires(D d) {
  d.enforced_by() = std::vector<std::string>();
};

static_assert(!CanSetId<Diagnostic>);
static_assert(!CanSetSeverity<Diagnostic>);
static_assert(!CanSetFix<Diagnostic>);
static_assert(!CanSetEnforcedBy<Diagnostic>);
static_assert(!std::is_aggregate_v<Diagnostic>);
// The old field-wise form {id, severity, message, key, location, fix, enforced_by}.
static_assert(!std::is_constructible_v<Diagnostic, std::string, Severity, std::string, std::string,
                                       Location, std::string, std::vector<std::string>>);
static_assert(!std::is_constructible_v<Diagnostic, std::string, Severity>);
// Findings stay values: copied, moved, sorted and kept in vectors.
static_assert(std::is_copy_assignable_v<Diagnostic> && std::is_move_assignable_v<Diagnostic>);

TEST(Diagnostic, ANoteHasItsOwnSeverityAndFixButNoRuleId) {
  Diagnostic d = Diagnostic::note(Severity::kWarning, "unknown key 'model.x'", "model.x",
                                  Location{"r.yaml", 3, 1}, "remove it");
  EXPECT_TRUE(d.id().empty());
  EXPECT_EQ(d.severity(), Severity::kWarning);
  EXPECT_EQ(d.fix(), "remove it");
  EXPECT_EQ(d.message, "unknown key 'model.x'");
  EXPECT_EQ(d.key, "model.x");
  EXPECT_EQ(d.location.str(), "r.yaml:3:1");
  EXPECT_TRUE(d.enforced_by().empty());
}

TEST(Diagnostic, ADefaultDiagnosticIsAnEmptyErrorNote) {
  Diagnostic d;
  EXPECT_TRUE(d.id().empty());
  EXPECT_EQ(d.severity(), Severity::kError);
  EXPECT_TRUE(d.fix().empty());
}

}  // namespace
}  // namespace hcp
