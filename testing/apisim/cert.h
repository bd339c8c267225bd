// TLS set-up for the simulator's server context: a PEM certificate and key from files, or a
// self-signed EC P-256 certificate made in memory. Plain OpenSSL; called once at start-up.
#pragma once

#include <openssl/types.h>

#include <string>
#include <string_view>

#include "base/error.h"

namespace vigil::apisim {

// TLS 1.2 and 1.3 only; ALPN "h2" when the client offers it, else "http/1.1".
// Requires: cert_file and key_file both empty (self-signed for name) or both set.
Result<void> configure_tls(SSL_CTX* ctx, std::string_view name, const std::string& cert_file,
                           const std::string& key_file);

}  // namespace vigil::apisim
