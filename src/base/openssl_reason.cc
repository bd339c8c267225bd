#include "base/openssl_reason.h"

#include <openssl/err.h>

namespace vigil {

std::string openssl_reason(const boost::system::error_code& ec) {
  std::string why = ec ? ec.message() : "";
  if (const unsigned long e = ERR_peek_last_error(); e != 0) {
    const char* reason = ERR_reason_error_string(e);
    if (reason != nullptr && why.find(reason) == std::string::npos) {
      why += why.empty() ? reason : std::string(" (") + reason + ")";
    }
  }
  ERR_clear_error();
  return why.empty() ? "unreadable" : why;
}

}  // namespace vigil
