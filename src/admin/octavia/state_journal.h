// The journal beside the state file (`<state_file>.journal`): one line per API write, appended
// and synced before the write is answered, so that a write costs what it changed rather than
// what the state file holds (at ten thousand load balancers, 24 MB written and synced per
// member). Its first line, {"journal": "<id>"}, ties it to the state file that names the same id
// (a random UUID drawn for each state file written). The store writes the state file anew, with
// a new id, and starts the journal over once the journal has grown as large as the state file.
//
// A new journal is made before the state file that names it: its first line goes to
// `<journal>.next` and is synced, the state file is renamed into place, and only then is the
// `.next` renamed over the journal. So a state file that names a journal always had one on disk,
// and a journal that is missing at start was removed, not never written (start_plan.h decides
// what a start does with what it finds). Control thread only; blocking, as the state file.
#pragma once

#include <cstdint>
#include <optional>
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
  static std::string next_path_for(const std::string& journal) { return journal + ".next"; }

  // What a journal file holds: whether it exists, the id its first line names (none when it has
  // no whole first line, or that line is not a header), and the lines after it (each without its
  // newline). A last line cut short (the process died while writing a write it never answered) is
  // left out, and `torn` says so. `good` is where the good lines end: what resume() keeps.
  struct Contents {
    bool exists = false;
    std::optional<std::string> id;
    std::vector<std::string> records;
    bool torn = false;
    uint64_t good = 0;
  };
  static Result<Contents> read(const std::string& path);

  // Starts a journal for the state file whose journal is `id`, in two steps around the state
  // file's rename: prepare() writes and syncs its first line to `<path>.next` (appends still go to
  // the current journal, if any, until install()); install() renames it over `path`; abandon()
  // removes it when the state file could not be written.
  Result<void> prepare(const std::string& path, std::string_view id);
  Result<void> install();
  void abandon();

  // Goes on appending to the journal file at `path` (which may be a `.next` that start found: it
  // is renamed to `journal` first when they differ), after its `good` bytes.
  Result<void> resume(const std::string& path, uint64_t good, const std::string& journal);
  // Appends one record (a line with its newline) and syncs it. On an error the journal is cut
  // back to where it was; when even that fails, broken() is true until the next install().
  Result<void> append(std::string_view record);
  // True when the file appended to is no longer in the directory (removed, or replaced under its
  // name): appending there would be lost at the next start.
  bool gone() const;

  uint64_t size() const { return size_; }
  bool broken() const { return fd_ < 0; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string next_path_;
  int next_fd_ = -1;
  uint64_t next_size_ = 0;
};

}  // namespace vigil::admin
