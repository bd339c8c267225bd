// The journal beside the state file (`<state_file>.journal`): one line per API write, appended
// and synced before the write is answered, so that a write costs what it changed rather than
// what the state file holds (at ten thousand load balancers, 24 MB written and synced per
// member). Its first line, {"journal": "<id>"}, ties it to the state file that names the same id
// (a random UUID drawn for each state file written): a journal left beside a state file that was
// written after it, removed, or put back from a backup is not replayed. The store writes the
// state file anew, with a new id, and starts the journal over once the journal has grown as large
// as the state file. Control thread only; blocking, as the state file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"

namespace vigil::admin {

class StateJournal {
 public:
  StateJournal() = default;
  StateJournal(const StateJournal&) = delete;
  StateJournal& operator=(const StateJournal&) = delete;
  ~StateJournal();

  static std::string path_for(const std::string& state_file) { return state_file + ".journal"; }

  // The records of the journal at `path` (each line without its newline) when it goes with the
  // state file whose journal is `id`: none when there is no journal, or one of another state file.
  // A last line cut short (the process died while writing a write it never answered) is left out,
  // and `torn` says so. `good` is where the good lines end: what resume() keeps.
  struct Contents {
    std::vector<std::string> records;
    bool current = false;  // of this state file
    bool torn = false;
    // Whole lines after the header of a journal that is not this state file's (or of any, when
    // there is no state file): writes this state file may not hold.
    size_t foreign = 0;
    uint64_t good = 0;
  };
  static Result<Contents> read(const std::string& path, std::string_view id);

  // Starts the journal over for the state file whose journal is `id`: emptied (created when
  // missing), its first line written and synced.
  Result<void> start(const std::string& path, std::string_view id);
  // Goes on appending to the journal read() found current, after its `good` bytes.
  Result<void> resume(const std::string& path, uint64_t good);
  // Appends one record (a line with its newline) and syncs it. On an error the journal is cut
  // back to where it was; when even that fails, broken() is true until start().
  Result<void> append(std::string_view record);

  uint64_t size() const { return size_; }
  bool broken() const { return fd_ < 0; }

 private:
  Result<void> open(const std::string& path);

  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace vigil::admin
