// peers_auth.tls files that do not load are errors naming the key and the file (the daemon and
// `vigil check` add the config's file:line). Certificates that do load, and the name check, are
// exercised end to end by tests/integration/test_peers_tls.py, which makes a CA with openssl.
#include "peers/tls.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace vigil::peers {
namespace {

TEST(PeerTls, AMissingOrNonPemFileIsAnErrorNamingItsKey) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("vigil-peer-tls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string junk = (dir / "junk.pem").string();
  std::ofstream(junk) << "not a certificate\n";
  struct Case {
    const char* description;
    model::PeerTls tls;
    std::string expected;
  };
  const Case cases[] = {
      {.description = "no cert file",
       .tls = {.cert = (dir / "missing.crt").string(), .key = junk, .ca = junk},
       .expected = "peers_auth.tls.cert " + (dir / "missing.crt").string() + ": "},
      {.description = "a cert file that is not PEM",
       .tls = {.cert = junk, .key = junk, .ca = junk},
       .expected = "peers_auth.tls.cert " + junk + ": "},
  };
  for (const Case& c : cases) {
    auto context = tls_context(c.tls);
    ASSERT_FALSE(context) << c.description;
    EXPECT_EQ(context.error().message.rfind(c.expected, 0), 0u)
        << c.description << ": " << context.error().message;
  }
  std::filesystem::remove_all(dir);
}

TEST(PeerTls, NoCertificateNamesNobody) { EXPECT_FALSE(certificate_names(nullptr, "lb-a")); }

}  // namespace
}  // namespace vigil::peers
