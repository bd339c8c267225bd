#include "admin/octavia/random_id.h"

#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid_io.hpp>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "base/log.h"

namespace vigil::admin {

std::string random_uuid() {
  // Boost.UUID's generator reads the kernel's CSPRNG (getrandom) and sets the version and
  // variant bits; it throws only when the kernel gives no randomness.
  try {
    thread_local boost::uuids::random_generator generate;
    return boost::uuids::to_string(generate());
  } catch (const std::exception& e) {
    log::error("no random bytes for an object id: {}", e.what());
    std::abort();
  }
}

// Octavia's UuidType takes exactly this form; Boost's string_generator also takes braces and
// no dashes, and throws.
bool is_uuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (c == '-')) return false;
    if (!dash && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

}  // namespace vigil::admin
