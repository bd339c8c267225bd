// What a start does with the state file and the journal it finds (state_journal.h), decided
// from what they hold. Every way they can disagree either recovers every acknowledged write or
// refuses to start with a message that names the files and says what to do: starting with less
// than was acknowledged would answer for objects that are gone, and the next write would make
// the loss final. Pure.
#pragma once

#include <string>

#include "admin/octavia/state_journal.h"

namespace vigil::admin {

struct StartFiles {
  std::string state_file;  // its path, for the messages
  bool state_exists = false;
  std::string state_journal;  // the journal id the state file names; empty: none
  std::string journal_path;   // <state_file>.journal
  StateJournal::Contents journal;
  StateJournal::Contents next;  // <journal>.next
};

enum class StartAction {
  kReplayJournal,  // the journal goes with the state file: its records are applied
  kReplayNext,     // so does the `.next` (the last start of a journal was cut short): applied,
                   // then renamed over the journal
  kStartOver,      // nothing in the journal is owed: start with the state file (or empty)
  kRefuse,
};

struct StartPlan {
  StartAction action = StartAction::kStartOver;
  // kRefuse: what is wrong and what to do. Otherwise a line for the log, or empty.
  std::string message;
};

StartPlan plan_start(const StartFiles& files);

}  // namespace vigil::admin
