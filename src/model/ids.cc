#include "model/ids.h"

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <cstdio>

namespace vigil::model {
namespace {

// vigil's namespace UUID, itself uuid_v5(NameSpace_URL, "https://vigil.invalid/").
constexpr std::array<uint8_t, 16> kNamespace = {0x6b, 0x1e, 0x1f, 0x3c, 0x8d, 0x2a, 0x5e, 0x4f,
                                                0x9a, 0x61, 0x2d, 0x77, 0x0c, 0x44, 0x13, 0x5b};

std::string path(std::initializer_list<std::string_view> parts) {
  std::string out = "vigil";
  for (auto p : parts) {
    out += '/';
    out += p;
  }
  return out;
}

}  // namespace

std::string uuid_v5(std::string_view name) {
  std::string input(reinterpret_cast<const char*>(kNamespace.data()), kNamespace.size());
  input.append(name);
  std::array<uint8_t, EVP_MAX_MD_SIZE> digest{};
  unsigned int len = 0;
  EVP_Digest(input.data(), input.size(), digest.data(), &len, EVP_sha1(), nullptr);
  digest[6] = static_cast<uint8_t>((digest[6] & 0x0f) | 0x50);  // version 5
  digest[8] = static_cast<uint8_t>((digest[8] & 0x3f) | 0x80);  // RFC 4122 variant
  char out[37];
  std::snprintf(
      out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
      digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
      digest[8], digest[9], digest[10], digest[11], digest[12], digest[13], digest[14], digest[15]);
  return out;
}

std::string load_balancer_id(std::string_view lb) { return uuid_v5(path({"lb", lb})); }
std::string listener_id(std::string_view lb, std::string_view l) {
  return uuid_v5(path({"listener", lb, l}));
}
std::string pool_id(std::string_view lb, std::string_view p) {
  return uuid_v5(path({"pool", lb, p}));
}
std::string member_id(std::string_view lb, std::string_view p, std::string_view m) {
  return uuid_v5(path({"member", lb, p, m}));
}
std::string health_monitor_id(std::string_view lb, std::string_view p) {
  return uuid_v5(path({"healthmonitor", lb, p}));
}

}  // namespace vigil::model
