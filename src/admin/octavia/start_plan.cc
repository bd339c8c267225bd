#include "admin/octavia/start_plan.h"

#include <fmt/format.h>

namespace vigil::admin {
namespace {

// An empty file is what an operator makes to say "start with the state file alone", and what a
// vigil from before 2026-12-05 left when it died between emptying a journal and writing its
// first line (after the state file holding everything was written).
bool empty_file(const StateJournal::Contents& c) { return c.exists && !c.id && c.good == 0; }

std::string empty_it(const std::string& journal) {
  return fmt::format(
      "To start with what the state file alone holds, dropping those writes, keep a copy of the "
      "journal and empty it (`: > {}`)",
      journal);
}

}  // namespace

StartPlan plan_start(const StartFiles& f) {
  const StateJournal::Contents& j = f.journal;
  if (!f.state_exists) {
    // A journal with a first line exists only once a state file was written: that file is gone.
    if (j.exists && j.id) {
      return {StartAction::kRefuse,
              fmt::format("{} is missing, but its journal {} holds {} acknowledged writes that "
                          "depend on it, and it held every object made before them. Put the state "
                          "file back (from a backup), or move the journal away to start without "
                          "the objects created through the API",
                          f.state_file, f.journal_path, j.records.size())};
    }
    return {StartAction::kStartOver, ""};  // the first start, or one before any write
  }
  if (!f.state_journal.empty() && j.id == f.state_journal) return {StartAction::kReplayJournal, ""};
  if (!f.state_journal.empty() && f.next.id == f.state_journal) {
    return {StartAction::kReplayNext,
            fmt::format("{}: the start of a new journal was cut short; going on with it",
                        f.journal_path)};
  }
  if (empty_file(j)) {
    return {StartAction::kStartOver,
            fmt::format("{} is empty: starting with what {} holds", f.journal_path, f.state_file)};
  }
  if (j.exists && !j.id) {
    return {StartAction::kRefuse,
            fmt::format("{}: its first line is not a journal's ({{\"journal\": \"<id>\"}}), so "
                        "what it holds cannot be trusted. {}",
                        f.journal_path, empty_it(f.journal_path))};
  }
  if (j.exists) {
    // Another state file's journal: the state file was put back from a backup or replaced, or
    // the journal was. Without writes, nothing in it is owed.
    if (j.records.empty()) {
      return {StartAction::kStartOver,
              fmt::format("{} is of another state file and holds no writes: starting it over",
                          f.journal_path)};
    }
    return {StartAction::kRefuse,
            fmt::format(
                "{} holds {} acknowledged writes made on top of another state file than "
                "{} (which names {}): the state file was put back from a backup or "
                "replaced, or the journal was. Put back the state file and journal that "
                "go together. {}",
                f.journal_path, j.records.size(), f.state_file,
                f.state_journal.empty() ? "no journal" : fmt::format("journal {}", f.state_journal),
                empty_it(f.journal_path))};
  }
  if (f.state_journal.empty()) return {StartAction::kStartOver, ""};
  // Made before the state file that names it, the journal was there: it was removed since, with
  // the writes acknowledged after the state file was written.
  return {StartAction::kRefuse,
          fmt::format("{} names the journal {}, which is missing: the API writes acknowledged "
                      "since the state file was last written are in it. Put it back (from a "
                      "backup). To start with what the state file alone holds, create it empty "
                      "(`: > {}`)",
                      f.state_file, f.journal_path, f.journal_path)};
}

}  // namespace vigil::admin
