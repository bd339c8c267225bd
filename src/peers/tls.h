// The peer sync's mutual TLS (`peers_auth.tls`, model::PeerTls): the one context every peer
// connection of this node uses, either way, and the name check of a peer's certificate. Loading
// reads files (blocking): the control thread at start, and `vigil check`.
#pragma once

#include <openssl/types.h>

#include <memory>
#include <string>
#include <string_view>

#include "base/error.h"
#include "model/process.h"

namespace boost::asio::ssl {
class context;
}

namespace vigil::peers {

// TLS 1.3 only (both ends are vigil), this node's certificate and key, the peer's certificate
// required and verified against `tls.ca`. An error names the key and file that failed and why
// (missing, not PEM, the key not the certificate's); the caller adds the config's file:line.
Result<std::shared_ptr<boost::asio::ssl::context>> tls_context(const model::PeerTls& tls);

// Whether `cert` names the peer `name`: a DNS SAN equal to it, or its CN when it has no DNS SAN
// (OpenSSL's X509_check_host, without wildcards in part of a label).
bool certificate_names(X509* cert, std::string_view name);

}  // namespace vigil::peers
