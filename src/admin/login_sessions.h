// The status page's signed-in browsers: a random session id per login, kept in memory with the
// access its token granted, a CSRF token for its forms and an expiry. The cookie carries the id,
// never the token, so a leaked cookie dies with logout, expiry, a token rotation or a restart.
// Owned by AdminServer; control thread only.
#pragma once

#include <array>
#include <chrono>
#include <map>
#include <string>
#include <string_view>

#include "admin/auth.h"
#include "model/admin_override.h"

namespace vigil::admin {

class LoginSessions {
 public:
  // Bounded memory: a login beyond this many of its access level (read or write) forgets that
  // level's session closest to its expiry.
  static constexpr size_t kMax = 256;
  static constexpr std::chrono::hours kLifetime{12};

  struct Session {
    Access access = Access::kNone;
    std::string csrf;  // the hidden field every form of this session posts back
    model::WallTime expires{};
  };
  struct Login {
    std::string id;  // the cookie's value: 64 hex digits from OpenSSL's RAND_bytes
    std::string csrf;
  };

  Login create(Access access, model::WallTime now);
  // The live session of `id`, or null (unknown, ended or expired; an expired one is forgotten).
  const Session* find(std::string_view id, model::WallTime now);
  void end(std::string_view id);
  // Every session ends: the tokens changed, and what they granted goes with them.
  void clear() { sessions_.clear(); }
  size_t size() const { return sessions_.size(); }

 private:
  // Keyed by the SHA-256 of the id: a lookup's timing tells nothing of the ids held.
  using Key = std::array<unsigned char, 32>;
  static Key key_of(std::string_view id);
  std::map<Key, Session> sessions_;
};

// True when `presented` is the session's CSRF token (constant time).
bool csrf_matches(const LoginSessions::Session& session, std::string_view presented);

}  // namespace vigil::admin
