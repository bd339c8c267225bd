// TlsResumption: the TLS session one member's last HTTPS check ended with, offered to its next
// check. A resumed handshake skips the certificate exchange and the server's signature, a large
// part of the check's CPU on both sides (the API server's too), as HAProxy's checks reuse their
// sessions. It is offered for at most its period (the monitor's fresh_connection_every, by default
// kFullHandshakeEvery) after the last full handshake, so the
// member's certificate is still verified that often, and only to checks made with the same TLS
// context: a changed CA file, certificate or key means a full handshake at once.
// Control thread only, like the probes that use it.
#pragma once

#include <openssl/ssl.h>

#include "base/clock.h"

namespace vigil::health {

class TlsResumption {
 public:
  static constexpr Duration kFullHandshakeEvery = std::chrono::seconds(60);

  // `full_handshake_every`: the monitor's fresh_connection_every, drawn lower by up to a fifth: the
  // checker spreads members' full handshakes over [0.8, 1] of it, so that members added together
  // don't make theirs together.
  explicit TlsResumption(Duration full_handshake_every = kFullHandshakeEvery)
      : every_(full_handshake_every) {}
  ~TlsResumption() { forget(); }
  TlsResumption(const TlsResumption&) = delete;
  TlsResumption& operator=(const TlsResumption&) = delete;

  // Offers the kept session to `ssl`, before its handshake, when it is fresh at `now` and was
  // made with the same context.
  void offer(SSL* ssl, TimePoint now) const;
  // After a check whose handshake completed and whose answer was read: keeps the session `ssl`
  // ended with (TLS 1.3 sends its ticket after the handshake, so this comes after the answer).
  void keep(SSL* ssl, TimePoint now);
  void forget();
  // When the session kept was made by a full handshake; the epoch when none is kept.
  TimePoint full_handshake_at() const { return session_ ? full_handshake_at_ : TimePoint{}; }

 private:
  SSL_SESSION* session_ = nullptr;
  const SSL_CTX* context_ = nullptr;  // only compared, never dereferenced
  TimePoint full_handshake_at_{};
  Duration every_;
};

}  // namespace vigil::health
