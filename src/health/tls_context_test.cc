// The checks' TLS contexts: what every connection made from them inherits.
#include "health/tls_context.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>

#include <boost/asio/ssl/context.hpp>

namespace vigil::health {
namespace {

// An idle kept connection holds no OpenSSL read or write buffer: with thousands of HTTPS members
// they add up to tens of MB (bench/scale).
TEST(TlsContextsTest, IdleConnectionsReleaseTheirBuffers) {
  TlsContexts contexts;
  for (const bool verify : {false, true}) {
    const auto ctx = contexts.get(model::TlsCheck{.verify = verify});
    ASSERT_TRUE(ctx.has_value()) << ctx.error().message;
    EXPECT_NE(SSL_CTX_get_mode((*ctx)->native_handle()) & SSL_MODE_RELEASE_BUFFERS, 0)
        << "verify " << verify;
  }
}

}  // namespace
}  // namespace vigil::health
