#include "admin/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>

#include "base/ascii.h"

namespace vigil::admin {
namespace {

using Digest = std::array<unsigned char, 32>;

Digest sha256(std::string_view text) {
  Digest out{};
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view presented_token(std::string_view x_auth_token, std::string_view authorization) {
  x_auth_token = trim(x_auth_token);
  if (!x_auth_token.empty()) return x_auth_token;
  authorization = trim(authorization);
  if (istarts_with(authorization, "bearer ")) return trim(authorization.substr(7));
  return {};
}

bool token_matches(std::string_view expected, std::string_view presented) {
  if (expected.empty()) return false;
  // Comparing fixed-size digests instead of the tokens themselves hides the token's length too,
  // which a length check before CRYPTO_memcmp would give away.
  const Digest a = sha256(expected);
  const Digest b = sha256(presented);
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Access access_of(std::string_view write_token, std::string_view read_token,
                 std::string_view presented) {
  const bool write = token_matches(write_token, presented);
  const bool read = token_matches(read_token, presented);
  if (write) return Access::kWrite;
  return read ? Access::kRead : Access::kNone;
}

Access required_access(std::string_view method) {
  return method == "GET" || method == "HEAD" ? Access::kRead : Access::kWrite;
}

}  // namespace vigil::admin
