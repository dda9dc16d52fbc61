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

/// `n` error notes "unknown key 'kI'" located in `file`.
std::vector<Diagnostic> unknown_keys(const std::string& file, int n,
                                     Severity severity = Severity::kError) {
  std::vector<Diagnostic> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    out.push_back(Diagnostic::note(severity, "unknown key 'k" + std::to_string(i) + "'",
                                   "k" + std::to_string(i), Location{file, i + 1, 1}));
  }
  return out;
}

TEST(FoldRepeats, KindsAtOrUnderTheLimitAreUntouched) {
  std::vector<Diagnostic> ds = unknown_keys("a.yaml", static_cast<int>(kFoldAfter));
  for (Diagnostic& d : unknown_keys("b.yaml", 3, Severity::kWarning))
    ds.push_back(std::move(d));
  const std::vector<Diagnostic> folded = fold_repeats(ds);
  ASSERT_EQ(folded.size(), ds.size());
  for (size_t i = 0; i < ds.size(); ++i)
    EXPECT_EQ(folded[i].message, ds[i].message) << i;
}

TEST(FoldRepeats, RepeatsPastTheLimitBecomeOneNoteAfterTheLastKept) {
  // 25 errors in a.yaml interleaved with 3 warnings in a.yaml and 12 errors in b.yaml: each kind
  // (severity and file for notes without an ID) folds on its own and keeps its place.
  std::vector<Diagnostic> a = unknown_keys("a.yaml", 25);
  std::vector<Diagnostic> warnings = unknown_keys("a.yaml", 3, Severity::kWarning);
  std::vector<Diagnostic> b = unknown_keys("b.yaml", 12);
  std::vector<Diagnostic> ds;
  for (int i = 0; i < 25; ++i) {
    ds.push_back(a[i]);
    if (i < 3) ds.push_back(warnings[i]);
    if (i < 12) ds.push_back(b[i]);
  }
  const std::vector<Diagnostic> folded = fold_repeats(ds);
  // 10 + note, 3, 10 + note.
  ASSERT_EQ(folded.size(), 25u);
  std::vector<std::string> notes;
  for (const Diagnostic& d : folded) {
    if (d.message.rfind("... and ", 0) == 0) {
      notes.push_back(d.location.file + ": " + d.message);
      EXPECT_EQ(d.severity(), Severity::kInfo);
      EXPECT_TRUE(d.id().empty());
    }
  }
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "a.yaml: ... and 15 more errors like the above (folded; the summary "
                       "counts them all)",
                       "b.yaml: ... and 2 more errors like the above (folded; the summary counts "
                       "them all)"}));
  // The a.yaml note follows the tenth a.yaml error (k9), the kept ones are the first ten.
  for (size_t i = 0; i + 1 < folded.size(); ++i) {
    if (folded[i + 1].message.rfind("... and 15", 0) == 0) {
      EXPECT_EQ(folded[i].key, "k9");
    }
  }
  const std::vector<FoldedEntry> plan = fold_plan(ds);
  ASSERT_EQ(plan.size(), folded.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    if (!plan[i].note) {
      EXPECT_EQ(ds[plan[i].index].message, folded[i].message) << i;
    }
  }
}

TEST(FoldRepeats, KeepsAtLeastOneOfAKind) {
  const std::vector<Diagnostic> folded = fold_repeats(unknown_keys("a.yaml", 5), 0);
  ASSERT_EQ(folded.size(), 2u);
  EXPECT_EQ(folded[0].key, "k0");
  EXPECT_EQ(folded[1].message.rfind("... and 4 more errors", 0), 0u) << folded[1].message;
}

TEST(FoldRepeats, TwentyThousandRepeatsLeaveElevenEntries) {
  const std::vector<Diagnostic> ds = unknown_keys("a.yaml", 20000);
  const std::vector<Diagnostic> folded = fold_repeats(ds);
  ASSERT_EQ(folded.size(), kFoldAfter + 1);
  EXPECT_EQ(folded.back().message.rfind("... and 19990 more errors", 0), 0u);
}

}  // namespace
}  // namespace hcp
