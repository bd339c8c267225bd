// Whole-file reads and crash-safe writes. Blocking; control thread or CLI only.
#pragma once

#include <string>

#include "base/error.h"

namespace vigil {

// The file's bytes; the error names the path and the reason.
Result<std::string> read_file(const std::string& path);

// A secret such as a token: the file's first line, surrounding white space removed; an empty
// result is an error.
Result<std::string> read_secret_file(const std::string& path);

// Writes to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs the
// directory, so a reader sees the old content or the new, never a torn file.
Result<void> write_file_atomic(const std::string& path, const std::string& content);

}  // namespace vigil
