#include "peers/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/ssl/context.hpp>

#include "base/openssl_reason.h"

namespace vigil::peers {

namespace ssl = boost::asio::ssl;

Result<std::shared_ptr<ssl::context>> tls_context(const model::PeerTls& tls) {
  ERR_clear_error();
  std::shared_ptr<ssl::context> ctx;
  try {
    ctx = std::make_shared<ssl::context>(ssl::context::tls);
  } catch (const std::exception& e) {  // SSL_CTX_new: out of memory
    return fail(std::string("peers_auth.tls: cannot create a TLS context: ") + e.what());
  }
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_3_VERSION);
  // A peer connection lives as long as both nodes do: nothing to resume.
  SSL_CTX_set_options(native, SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(native, SSL_SESS_CACHE_OFF);
  boost::system::error_code ec;
  const auto failed = [&](std::string_view key, const std::string& file) {
    return fail("peers_auth.tls." + std::string(key) + " " + file + ": " + openssl_reason(ec));
  };
  if (ctx->use_certificate_chain_file(tls.cert, ec); ec) return failed("cert", tls.cert);
  const auto mismatch = [&] {
    ERR_clear_error();
    return fail("peers_auth.tls.key " + tls.key + " is not the key of peers_auth.tls.cert " +
                tls.cert);
  };
  if (ctx->use_private_key_file(tls.key, ssl::context::pem, ec); ec) {
    // Asio takes OpenSSL's error off its queue into `ec`.
    const auto e = static_cast<unsigned long>(static_cast<uint32_t>(ec.value()));
    if (ec.category() != boost::system::system_category() &&
        ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH) {
      return mismatch();
    }
    return failed("key", tls.key);
  }
  if (SSL_CTX_check_private_key(native) != 1) return mismatch();
  if (ctx->load_verify_file(tls.ca, ec); ec) return failed("ca", tls.ca);
  ctx->set_verify_mode(ssl::verify_peer | ssl::verify_fail_if_no_peer_cert, ec);
  return ctx;
}

bool certificate_names(X509* cert, std::string_view name) {
  return cert != nullptr && !name.empty() &&
         X509_check_host(cert, name.data(), name.size(), X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS,
                         nullptr) == 1;
}

}  // namespace vigil::peers
