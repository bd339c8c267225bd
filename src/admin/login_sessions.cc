#include "admin/login_sessions.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>

#include "base/log.h"

namespace vigil::admin {
namespace {

std::string random_hex(size_t bytes) {
  std::array<unsigned char, 32> b{};
  if (bytes > b.size() || RAND_bytes(b.data(), static_cast<int>(bytes)) != 1) {
    log::error("OpenSSL RAND_bytes failed: cannot make a login session");
    std::abort();
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (size_t i = 0; i < bytes; ++i) {
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 0xf];
  }
  return out;
}

}  // namespace

LoginSessions::Key LoginSessions::key_of(std::string_view id) {
  Key out{};
  unsigned int len = 0;
  EVP_Digest(id.data(), id.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

LoginSessions::Login LoginSessions::create(Access access, model::WallTime now) {
  std::erase_if(sessions_, [&](const auto& kv) { return kv.second.expires <= now; });
  // Each access level has its own kMax: sign-ins with the read token cannot push the
  // administrators' sessions out.
  auto same = [&](const auto& kv) { return kv.second.access == access; };
  if (static_cast<size_t>(std::ranges::count_if(sessions_, same)) >= kMax) {
    auto oldest = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (same(*it) && (oldest == sessions_.end() || it->second.expires < oldest->second.expires)) {
        oldest = it;
      }
    }
    sessions_.erase(oldest);
  }
  Login login{.id = random_hex(32), .csrf = random_hex(32)};
  sessions_[key_of(login.id)] = {.access = access, .csrf = login.csrf, .expires = now + kLifetime};
  return login;
}

const LoginSessions::Session* LoginSessions::find(std::string_view id, model::WallTime now) {
  if (id.empty()) return nullptr;
  auto it = sessions_.find(key_of(id));
  if (it == sessions_.end()) return nullptr;
  if (it->second.expires <= now) {
    sessions_.erase(it);
    return nullptr;
  }
  return &it->second;
}

void LoginSessions::end(std::string_view id) { sessions_.erase(key_of(id)); }

bool csrf_matches(const LoginSessions::Session& session, std::string_view presented) {
  return token_matches(session.csrf, presented);
}

}  // namespace vigil::admin
