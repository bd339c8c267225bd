// Whole-file reads and crash-safe writes. Blocking; control thread or CLI only.
#pragma once

#include <sys/types.h>

#include <string>

#include "base/error.h"

namespace vigil {

// Larger files are refused: far above any config, token or state file vigil writes (a state file
// at ten thousand load balancers is tens of MB), far below what would exhaust memory.
inline constexpr size_t kMaxFileBytes = size_t{1} << 30;

// The file's bytes; the error names the path and the reason. Only a regular file (through
// symlinks) of at most `max` bytes is read: a FIFO would hang the reader, and a device such as
// /dev/zero would fill memory.
Result<std::string> read_file(const std::string& path, size_t max = kMaxFileBytes);

// A secret such as a token: the file's first line, surrounding white space removed; an empty
// result is an error.
Result<std::string> read_secret_file(const std::string& path);

// Writes to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the
// directory, so a reader sees the old content or the new, never a torn file. The temporary,
// `path.tmp.<pid>.<random>`, is created anew (O_EXCL, O_NOFOLLOW): a file or symlink planted
// under a name that can be guessed is never written through.
// `mode`: 0600 unless another process must read the file (a routing daemon's include).
Result<void> write_file_atomic(const std::string& path, const std::string& content,
                               mode_t mode = 0600);
// The same with the temporary's name given: fails when anything is already there.
Result<void> write_file_atomic_via(const std::string& path, const std::string& tmp,
                                   const std::string& content, mode_t mode = 0600);

// Removes the temporaries that write_file_atomic(path) left when its process died between
// creating and renaming them: those whose pid no longer runs. Returns how many it removed.
size_t remove_stale_temporaries(const std::string& path);

// fsync(fd), through the seam below: 0, or -1 with errno set.
int sync_fd(int fd);
// Syncs the directory that holds `path`, so that a file created or renamed there stays.
void sync_directory_of(const std::string& path);

// Test seam: the fsync write_file_atomic and sync_fd call (nullptr: ::fsync). Not for production
// code.
using FsyncFn = int (*)(int fd);
void set_fsync_for_tests(FsyncFn fsync);

}  // namespace vigil
