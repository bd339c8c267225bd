// What a start does with each combination of state file, journal and `.next` it can find: every
// disagreement recovers every acknowledged write or refuses, naming the files.
#include "admin/octavia/start_plan.h"

#include <gtest/gtest.h>

namespace vigil::admin {
namespace {

StateJournal::Contents journal_of(std::string id, size_t records) {
  StateJournal::Contents c{.exists = true, .id = std::move(id), .good = 40};
  for (size_t i = 0; i < records; ++i) c.records.push_back("{\"delete\":[]}");
  return c;
}

StartFiles files(bool state, std::string names) {
  return {.state_file = "/var/lib/vigil/state.json",
          .state_exists = state,
          .state_journal = std::move(names),
          .journal_path = "/var/lib/vigil/state.json.journal"};
}

bool mentions(const StartPlan& p, std::string_view text) {
  return p.message.find(text) != std::string::npos;
}

TEST(StartPlan, NothingOnDiskIsTheFirstStart) {
  EXPECT_EQ(plan_start(files(false, "")).action, StartAction::kStartOver);
}

TEST(StartPlan, TheJournalOfTheStateFileIsReplayed) {
  StartFiles f = files(true, "A");
  f.journal = journal_of("A", 3);
  EXPECT_EQ(plan_start(f).action, StartAction::kReplayJournal);
}

TEST(StartPlan, AStateFileGoneUnderItsJournalRefusesEvenWithNoWritesInIt) {
  StartFiles f = files(false, "");
  f.journal = journal_of("A", 7);
  StartPlan p = plan_start(f);
  ASSERT_EQ(p.action, StartAction::kRefuse);
  EXPECT_TRUE(mentions(p, "/var/lib/vigil/state.json is missing, but its journal")) << p.message;
  EXPECT_TRUE(mentions(p, "holds 7 acknowledged writes")) << p.message;
  // Its first line says a state file was written, with every object made before the journal.
  f.journal = journal_of("A", 0);
  EXPECT_EQ(plan_start(f).action, StartAction::kRefuse);
}

TEST(StartPlan, AMissingJournalThatTheStateFileNamesRefuses) {
  StartPlan p = plan_start(files(true, "A"));
  ASSERT_EQ(p.action, StartAction::kRefuse);
  EXPECT_TRUE(mentions(p, "names the journal /var/lib/vigil/state.json.journal, which is missing"))
      << p.message;
  EXPECT_TRUE(mentions(p, ": > /var/lib/vigil/state.json.journal")) << p.message;
}

TEST(StartPlan, AnEmptiedJournalStartsWithTheStateFileAlone) {
  StartFiles f = files(true, "A");
  f.journal = {.exists = true};
  StartPlan p = plan_start(f);
  EXPECT_EQ(p.action, StartAction::kStartOver);
  EXPECT_TRUE(mentions(p, "is empty")) << p.message;
}

TEST(StartPlan, ADotNextOfTheStateFileIsItsJournal) {
  // Died after renaming the state file in, before renaming the `.next` over the old journal.
  StartFiles f = files(true, "B");
  f.journal = journal_of("A", 5);
  f.next = journal_of("B", 0);
  EXPECT_EQ(plan_start(f).action, StartAction::kReplayNext);
  f.journal = {};
  f.next = journal_of("B", 2);  // or it was never renamed, and took writes
  EXPECT_EQ(plan_start(f).action, StartAction::kReplayNext);
}

TEST(StartPlan, ADotNextOfAnotherStateFileIsNoJournal) {
  // Died before renaming its state file in: the old pair is whole.
  StartFiles f = files(true, "A");
  f.journal = journal_of("A", 2);
  f.next = journal_of("B", 0);
  EXPECT_EQ(plan_start(f).action, StartAction::kReplayJournal);
  f = files(false, "");
  f.next = journal_of("B", 0);  // the very first write, never acknowledged
  EXPECT_EQ(plan_start(f).action, StartAction::kStartOver);
}

TEST(StartPlan, WritesOfAnotherStateFileRefuse) {
  // A backup of the state file put back beside the journal of the one it replaced.
  StartFiles f = files(true, "A");
  f.journal = journal_of("B", 4);
  StartPlan p = plan_start(f);
  ASSERT_EQ(p.action, StartAction::kRefuse);
  EXPECT_TRUE(mentions(p, "holds 4 acknowledged writes made on top of another state file"))
      << p.message;
  EXPECT_TRUE(mentions(p, "(which names journal A)")) << p.message;
  f.state_journal = "";  // a state file from before journals
  p = plan_start(f);
  ASSERT_EQ(p.action, StartAction::kRefuse);
  EXPECT_TRUE(mentions(p, "(which names no journal)")) << p.message;
}

TEST(StartPlan, AnotherStateFilesJournalWithoutWritesOwesNothing) {
  StartFiles f = files(true, "A");
  f.journal = journal_of("B", 0);
  EXPECT_EQ(plan_start(f).action, StartAction::kStartOver);
  f.state_journal = "";
  EXPECT_EQ(plan_start(f).action, StartAction::kStartOver);
}

TEST(StartPlan, AStateFileNamingNoJournalWithNoneBesideIt) {
  EXPECT_EQ(plan_start(files(true, "")).action, StartAction::kStartOver);
}

TEST(StartPlan, AJournalWhoseFirstLineIsNoHeaderRefuses) {
  StartFiles f = files(true, "A");
  f.journal = {.exists = true, .records = {"{}"}, .good = 10};
  StartPlan p = plan_start(f);
  ASSERT_EQ(p.action, StartAction::kRefuse);
  EXPECT_TRUE(mentions(p, "its first line is not a journal's")) << p.message;
}

}  // namespace
}  // namespace vigil::admin
