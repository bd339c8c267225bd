#include "admin/token_files.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/log.h"

namespace vigil::admin {

Result<std::string> read_token_file(std::string_view key, const std::string& path, bool warn) {
  if (path.empty()) return std::string();
  if (warn) {
    if (auto why = loose_permissions(path)) {
      log::warn("{}: {} {}; make it readable by vigil's user only (chmod 600 {})", key, path, *why,
                path);
    }
  }
  auto token = read_secret_file(path);
  if (!token) return fail(fmt::format("{}: {}", key, token.error().message));
  if (warn && token->size() < kShortToken) {
    // /login throttles guessing, the API's headers do not: only length protects them.
    log::warn(
        "{}: the token in {} is {} characters long; use at least {} random ones (the package "
        "makes 64 hex digits: od -An -N32 -tx1 /dev/urandom | tr -d ' \\n')",
        key, path, token->size(), kShortToken);
  }
  return token;
}

std::optional<std::string> loose_permissions(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  const bool group = (st.st_mode & S_IRGRP) != 0;
  const bool others = (st.st_mode & S_IROTH) != 0;
  if (!group && !others) return std::nullopt;
  return fmt::format("has mode {:04o}: {} can read it", st.st_mode & 07777,
                     group && others ? "group and others"
                     : group         ? "its group"
                                     : "others");
}

Result<AdminTokens> read_admin_tokens(const model::Admin& admin, bool warn) {
  auto write = read_token_file("admin.token_file", admin.token_file, warn);
  if (!write) return std::unexpected(write.error());
  auto read = read_token_file("admin.read_token_file", admin.read_token_file, warn);
  if (!read) return std::unexpected(read.error());
  if (!write->empty() && *write == *read) {
    // The same token in both would make every reader a writer: refuse, rather than guess.
    return fail(
        "admin.read_token_file holds the same token as admin.token_file: give readers a token of "
        "their own");
  }
  return AdminTokens{.write = std::move(*write), .read = std::move(*read)};
}

}  // namespace vigil::admin
