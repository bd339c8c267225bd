// peers[], peers_auth and peer_name: the nodes of a pair or fleet that sync their sessions
// (daemon/peer_sync.h), and the mistakes that would leave a node syncing with nobody.
#include <gtest/gtest.h>

#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using testing::all;
using testing::has_error;
using testing::kListenerAndPool;
using testing::load;

LoadResult load_with(std::string_view peers) {
  return load(std::string(peers) + std::string(kListenerAndPool));
}

TEST(PeerKeys, LoadThePairAndItsToken) {
  const LoadResult r = load_with(R"(
peers:
  - {name: lb1, address: 192.0.2.1, port: 7946}
  - {name: lb2, address: "[2001:db8::2]", port: 7946}
peers_auth: {token_file: /etc/vigil/peers.token}
peer_name: lb1
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  ASSERT_EQ(r.process->peers.size(), 2u);
  EXPECT_EQ(r.process->peers[0].name, "lb1");
  EXPECT_EQ(r.process->peers[0].address, "192.0.2.1");
  EXPECT_EQ(r.process->peers[1].address, "2001:db8::2");
  EXPECT_EQ(r.process->peers[1].port, 7946);
  EXPECT_EQ(r.process->peers[1].where.line, 3);
  EXPECT_EQ(r.process->peers_auth.token_file, "/etc/vigil/peers.token");
  EXPECT_EQ(r.process->peer_name, "lb1");
}

TEST(PeerKeys, NoPeersNoSync) {
  const LoadResult r = load(kListenerAndPool);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_TRUE(r.process->peers.empty());
}

TEST(PeerKeys, PeersWithoutATokenAreRefused) {
  const LoadResult r = load_with(R"(
peers:
  - {name: lb1, address: 192.0.2.1, port: 7946}
  - {name: lb2, address: 192.0.2.2, port: 7946}
)");
  EXPECT_TRUE(has_error(r, 2, "peers_auth.token_file")) << all(r.diagnostics);
}

TEST(PeerKeys, OneNodeAloneIsRefused) {
  const LoadResult r = load_with(R"(
peers: [{name: lb1, address: 192.0.2.1, port: 7946}]
peers_auth: {token_file: /t}
)");
  EXPECT_TRUE(has_error(r, 1, "peers lists one node")) << all(r.diagnostics);
}

TEST(PeerKeys, NamesAndAddressesOnceEach) {
  const LoadResult r = load_with(R"(
peers:
  - {name: lb1, address: 192.0.2.1, port: 7946}
  - {name: lb1, address: 192.0.2.2, port: 7946}
  - {name: lb3, address: 192.0.2.1, port: 7946}
peers_auth: {token_file: /t}
)");
  EXPECT_TRUE(has_error(r, 3, "duplicate peer name \"lb1\"")) << all(r.diagnostics);
  EXPECT_TRUE(has_error(r, 4, "has the address and port of peer \"lb1\"")) << all(r.diagnostics);
}

TEST(PeerKeys, PeerNameMustBeListed) {
  const LoadResult r = load_with(R"(
peers:
  - {name: lb1, address: 192.0.2.1, port: 7946}
  - {name: lb2, address: 192.0.2.2, port: 7946}
peers_auth: {token_file: /t}
peer_name: lb3
)");
  EXPECT_TRUE(has_error(r, 2, "peer_name \"lb3\" is not one of peers[]")) << all(r.diagnostics);
}

TEST(PeerKeys, AHostNameIsNoPeerAddress) {
  const LoadResult r = load_with(R"(
peers:
  - {name: lb1, address: lb1.example, port: 7946}
  - {name: lb2, address: 192.0.2.2, port: 0}
  - {name: lb3}
peers_auth: {token_file: /t}
)");
  EXPECT_TRUE(has_error(r, 2, "expected an IP address")) << all(r.diagnostics);
  EXPECT_TRUE(has_error(r, 3, "port")) << all(r.diagnostics);
  EXPECT_TRUE(has_error(r, 4, "missing required key \"address\"")) << all(r.diagnostics);
}

TEST(PeerKeys, LoadMutualTls) {
  const LoadResult r = load_with(R"(
peers:
  - {name: lb1, address: 192.0.2.1, port: 7946}
  - {name: lb2, address: 192.0.2.2, port: 7946}
peers_auth:
  tls: {cert: /etc/vigil/lb1.crt, key: /etc/vigil/lb1.key, ca: /etc/vigil/peers-ca.crt}
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const auto& tls = r.process->peers_auth.tls;
  ASSERT_TRUE(tls.has_value());
  EXPECT_EQ(tls->cert, "/etc/vigil/lb1.crt");
  EXPECT_EQ(tls->key, "/etc/vigil/lb1.key");
  EXPECT_EQ(tls->ca, "/etc/vigil/peers-ca.crt");
  EXPECT_EQ(tls->where.line, 5);  // the `tls` key, which errors about its files name
  EXPECT_TRUE(r.process->peers_auth.token_file.empty());
}

TEST(PeerKeys, TlsNeedsEveryFileAndNoTokenBeside) {
  const LoadResult missing = load_with(R"(
peers:
  - {name: lb1, address: 192.0.2.1, port: 7946}
  - {name: lb2, address: 192.0.2.2, port: 7946}
peers_auth:
  tls: {cert: /c, key: /k}
)");
  EXPECT_TRUE(has_error(missing, 5, "missing required key \"ca\"")) << all(missing.diagnostics);
  const LoadResult both = load_with(R"(
peers:
  - {name: lb1, address: 192.0.2.1, port: 7946}
  - {name: lb2, address: 192.0.2.2, port: 7946}
peers_auth:
  token_file: /t
  tls: {cert: /c, key: /k, ca: /a}
)");
  EXPECT_TRUE(has_error(both, 6, "set token_file or tls, not both")) << all(both.diagnostics);
  const LoadResult stray = load_with(R"(
peers:
  - {name: lb1, address: 192.0.2.1, port: 7946}
  - {name: lb2, address: 192.0.2.2, port: 7946}
peers_auth:
  tls: {cert: /c, key: /k, ca: /a, verify: false}
)");
  EXPECT_TRUE(has_error(stray, 5, "unknown key \"verify\"")) << all(stray.diagnostics);
}

}  // namespace
}  // namespace vigil::config
