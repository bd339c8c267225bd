// The admin credentials the config names: admin.token_file (everything) and
// admin.read_token_file (reads), read from their files. Blocking file reads: the control thread,
// at start and on reload.
#pragma once

#include <optional>
#include <string>

#include "base/error.h"
#include "model/process.h"

namespace vigil::admin {

// A token shorter than this is warned about at start: 16 random hex digits are 64 bits.
inline constexpr size_t kShortToken = 16;

struct AdminTokens {
  std::string write;  // empty: no admin.token_file
  std::string read;   // empty: no admin.read_token_file

  bool operator==(const AdminTokens&) const = default;
};

// The token in `path` (empty: none), for the config key `key`, which an error names; with `warn`,
// a file others may read is logged as a warning.
Result<std::string> read_token_file(std::string_view key, const std::string& path, bool warn);

// Both files' tokens; the error names the key and the file. With `warn`, a file that group or
// others may read is logged as a warning (once per call: at start, and on a reload that names a
// new file).
Result<AdminTokens> read_admin_tokens(const model::Admin& admin, bool warn);

// Why `path` is too open for a secret ("mode 0644: group and others can read it"), or nullopt
// when only its owner can read it (or it cannot be examined: reading it will say why).
std::optional<std::string> loose_permissions(const std::string& path);

}  // namespace vigil::admin
