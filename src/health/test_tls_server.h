// Test-only servers on loopback for the probe and checker tests: plain TCP or TLS with a
// self-signed certificate made at run time, answering each new connection as last told.
// Single-threaded: they run on the test's io_context, which must outlive them.
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vigil::testing {

struct KeyPair {
  std::string cert_pem;
  std::string key_pem;
};

// A P-256 key and a self-signed certificate (CA:TRUE, so it can be its own trust anchor) with
// CN `common_name` and SANs DNS:localhost, IP:127.0.0.1, IP:::1.
KeyPair make_self_signed(const std::string& common_name);

// Writes `content` to a new file under the temporary directory and returns its path.
std::string write_temp_file(const std::string& stem, const std::string& content);

enum class TlsVersion { kNone, kTls12, kTls13, kAny };

enum class Behaviour {
  kRespond,    // read the request head, write `response`, close
  kGreet,      // write `response` as soon as connected (after TLS), close
  kClose,      // close as soon as connected
  kSilent,     // read the request head, then never answer
  kKeepAlive,  // answer each request head with the response set at that time; keep the connection
};

struct ServerOptions {
  TlsVersion tls = TlsVersion::kNone;
  std::string client_ca_pem;  // TLS: when set, require a client certificate it signed
  std::string bind = "127.0.0.1";
};

class TestServer {
 public:
  explicit TestServer(boost::asio::io_context& io, ServerOptions options = {});
  ~TestServer();

  uint16_t port() const;
  const KeyPair& key_pair() const;  // the TLS server's certificate
  // Applies to connections accepted from now on.
  void set_behaviour(Behaviour behaviour, std::string response = "");

  // Sends `bytes` on every connection still open (an answer nobody asked for), or closes them.
  void send_on_open_connections(const std::string& bytes);
  void close_open_connections();
  // kKeepAlive: the next `n` requests, on whichever connection, are answered by closing it.
  void drop_next_requests(int n);
  int unasked_sent() const;  // writes of send_on_open_connections() completed

  int accepted() const;
  const std::vector<std::string>& requests() const;      // request heads, in arrival order
  const std::vector<std::string>& server_names() const;  // SNI per TLS handshake; "" for none
  const std::vector<std::string>& tls_versions() const;  // per completed TLS handshake
  const std::vector<bool>& resumed() const;              // per completed TLS handshake

  struct Core;

 private:
  std::shared_ptr<Core> core_;
};

// "HTTP/1.1 <status> X\r\nContent-Length: ..\r\n\r\n<body>".
std::string http_response(int status, const std::string& body);

}  // namespace vigil::testing
