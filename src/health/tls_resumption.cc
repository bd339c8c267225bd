#include "health/tls_resumption.h"

namespace vigil::health {

void TlsResumption::offer(SSL* ssl, TimePoint now) const {
  if (session_ == nullptr || SSL_get_SSL_CTX(ssl) != context_) return;
  if (now - full_handshake_at_ >= every_) return;
  SSL_set_session(ssl, session_);  // takes its own reference
}

void TlsResumption::keep(SSL* ssl, TimePoint now) {
  const bool resumed = SSL_session_reused(ssl) == 1;
  SSL_SESSION* session = SSL_get1_session(ssl);
  if (session == nullptr || SSL_SESSION_is_resumable(session) != 1) {
    if (session != nullptr) SSL_SESSION_free(session);
    forget();
    return;
  }
  if (!resumed) full_handshake_at_ = now;
  if (session_ != nullptr) SSL_SESSION_free(session_);
  session_ = session;
  context_ = SSL_get_SSL_CTX(ssl);
  // The connection may still carry checks (kept_connection.h); whoever closes it without a
  // close_notify marks it shut first, or OpenSSL makes this session not resumable.
}

void TlsResumption::forget() {
  if (session_ != nullptr) SSL_SESSION_free(session_);
  session_ = nullptr;
  context_ = nullptr;
}

}  // namespace vigil::health
