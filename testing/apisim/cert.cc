#include "testing/apisim/cert.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>

namespace vigil::apisim {
namespace {

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Free(p);
  }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;

constexpr long kValiditySeconds = 365L * 24 * 3600;

// The OpenSSL error queue as one line, emptied.
std::string openssl_error(std::string_view what) {
  std::string message(what);
  while (unsigned long code = ERR_get_error()) {
    char buffer[256];
    ERR_error_string_n(code, buffer, sizeof buffer);
    message += ": ";
    message += buffer;
  }
  return message;
}

Result<void> add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  ExtensionPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return fail(openssl_error("certificate extension " + value));
  }
  return {};
}

Result<CertPtr> self_signed(EVP_PKEY* key, std::string_view name) {
  CertPtr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1) {
    return fail(openssl_error("X509_new"));
  }
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return fail(openssl_error("RAND_bytes"));
  serial[0] &= 0x7f;  // a positive serial number
  BignumPtr bn(BN_bin2bn(serial, sizeof serial, nullptr));
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()))) {
    return fail(openssl_error("serial number"));
  }
  // An hour of slack for clocks that are a little behind.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValiditySeconds);
  X509_NAME* subject = X509_get_subject_name(cert.get());
  const std::string cn(name);
  X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("vigil-apisim"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  if (X509_set_issuer_name(cert.get(), subject) != 1 || X509_set_pubkey(cert.get(), key) != 1) {
    return fail(openssl_error("certificate names"));
  }
  for (auto [nid, value] : {
           std::pair{NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1,DNS:" + cn},
           std::pair{NID_basic_constraints, std::string("critical,CA:FALSE")},
           std::pair{NID_key_usage, std::string("critical,digitalSignature,keyEncipherment")},
           std::pair{NID_ext_key_usage, std::string("serverAuth")},
           std::pair{NID_subject_key_identifier, std::string("hash")},
       }) {
    if (auto r = add_extension(cert.get(), nid, value); !r) return std::unexpected(r.error());
  }
  if (X509_sign(cert.get(), key, EVP_sha256()) == 0) return fail(openssl_error("X509_sign"));
  return cert;
}

// "h2" when the client offers it (Go clients offer it first, as kube-apiserver prefers it), else
// "http/1.1"; a client that offers neither gets no ALPN answer and HTTP/1.1.
int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned int inlen, void*) {
  static constexpr unsigned char kProtocols[] = {2,   'h', '2', 8,   'h', 't',
                                                 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kProtocols, sizeof kProtocols, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

Result<void> configure_tls(SSL_CTX* ctx, std::string_view name, const std::string& cert_file,
                           const std::string& key_file) {
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_alpn_select_cb(ctx, select_alpn, nullptr);
  if (!cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file.c_str()) != 1) {
      return fail(openssl_error("loading certificate " + cert_file));
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      return fail(openssl_error("loading key " + key_file));
    }
  } else {
    KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
    if (!key) return fail(openssl_error("generating an EC P-256 key"));
    auto cert = self_signed(key.get(), name);
    if (!cert) return std::unexpected(cert.error());
    if (SSL_CTX_use_certificate(ctx, cert->get()) != 1 ||
        SSL_CTX_use_PrivateKey(ctx, key.get()) != 1) {
      return fail(openssl_error("installing the self-signed certificate"));
    }
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return fail(openssl_error("certificate and key do not match"));
  }
  return {};
}

}  // namespace vigil::apisim
