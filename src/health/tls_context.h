// TlsContexts: the client TLS contexts of health checks, one per distinct TLS setting, shared by
// every check with that setting and rebuilt when a CA, certificate or key file changes (mtime),
// so rotated client certificates are picked up without a reload. Control thread only.
#pragma once

#include <expected>
#include <map>
#include <memory>
#include <string>

#include "base/error.h"
#include "model/config.h"

namespace boost::asio::ssl {
class context;
}

namespace vigil::health {

struct TlsContextError {
  std::string message;
  // Out of descriptors or memory while reading the files: ours, not the member's (a check that
  // meets it is a local failure).
  bool local = false;
};

class TlsContexts {
 public:
  TlsContexts();
  ~TlsContexts();
  TlsContexts(const TlsContexts&) = delete;
  TlsContexts& operator=(const TlsContexts&) = delete;

  // A TLS 1.2+ client context for `tls`: verification per tls.verify (CA file, else the system
  // store), the client certificate and key when set. Costs one stat per file when cached. A
  // failure (unreadable file, key not matching) is not cached: the next check tries again. A
  // changed file that cannot be read for a local shortage leaves the last context in use.
  std::expected<std::shared_ptr<boost::asio::ssl::context>, TlsContextError> get(
      const model::TlsCheck& tls);

 private:
  struct Entry;
  std::map<std::string, std::unique_ptr<Entry>> entries_;
};

}  // namespace vigil::health
