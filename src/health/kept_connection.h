// KeptConnection: the open connection one member's last passing HTTP or HTTPS check ended on,
// for its next check to send its request on (Envoy's reuse_connection, on by default). A check on
// it is one request and one answer: no TCP handshake, no TLS handshake, no connection for the
// member to accept, which for an API server behind TLS is most of what a check costs it and us.
//
// A kept connection proves less than a new one (that the member still accepts connections), so
// it is offered only
//  - for max_age() after it was opened, or for HTTPS after the full handshake its TLS session was
//    made with: at least once a minute a check connects afresh, and that connection makes a full
//    handshake and verifies the certificate (the member's TlsResumption has the same period,
//    which the checker draws per member so that members added together don't reconnect
//    together);
//  - after a passing check: a failing check closes its connection;
//  - when the member said nothing on it meanwhile: a close, a close_notify or an unasked answer
//    (a 408) means it is not to be used;
//  - for a member given by name, while the name still resolves to the connection's peer (the
//    probe checks, as it resolves the name at every check);
//  - until drop(), which a failed connect through the data plane calls so that the check sent to
//    confirm it connects afresh; a check in flight at that moment does not keep its connection.
// Private to health/ (it pulls in Asio and OpenSSL). Control thread only.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>

#include "base/clock.h"
#include "health/tls_resumption.h"
#include "health/tls_socket.h"

namespace vigil::health {

// How long one member's TLS session and kept connection serve: `period` (the monitor's
// fresh_connection_every) less up to a fifth, drawn per member.
Duration draw_max_age(std::mt19937_64& rng, Duration period = std::chrono::seconds(60));

class KeptConnection {
 public:
  static constexpr Duration kMaxAge = TlsResumption::kFullHandshakeEvery;

  using Socket = boost::asio::ip::tcp::socket;
  using TlsStream = TlsSocket;

  // One open connection, at rest: no operation pending on it.
  struct Connection {
    std::optional<Socket> plain;                         // HTTP
    std::optional<TlsStream> tls;                        // HTTPS
    std::shared_ptr<boost::asio::ssl::context> context;  // what `tls` was made with
    TimePoint opened{};
  };

  // `max_age`: the same as the member's TlsResumption's period (draw_max_age()); kMaxAge is the
  // default monitor's.
  explicit KeptConnection(Duration max_age = kMaxAge) : max_age_(max_age) {}
  ~KeptConnection() { drop_connection(); }
  KeptConnection(const KeptConnection&) = delete;
  KeptConnection& operator=(const KeptConnection&) = delete;

  Duration max_age() const { return max_age_; }
  // A check notes the epoch when it starts and passes it to keep().
  uint64_t epoch() const { return epoch_; }
  // The kept connection when it may carry a check at `now` made with `context` (null for plain
  // HTTP); otherwise none, and a connection that may not is closed.
  std::optional<Connection> take(TimePoint now, const boost::asio::ssl::context* context);
  // Keeps `c` unless drop() was called since the check that used it began (`epoch`).
  void keep(Connection c, uint64_t epoch);
  // Closes the kept connection, and makes checks in flight close theirs.
  void drop();

  // Closes `c` without a close_notify (nobody would read the answer), its TLS session still
  // resumable.
  static void close(Connection& c);
  // For a TLS connection about to be closed without a close_notify: OpenSSL takes that for an
  // error when the SSL is freed, and marks the session not resumable, unless told a shutdown was
  // sent.
  static void keep_session_resumable(TlsStream& tls);

 private:
  void drop_connection();

  std::optional<Connection> kept_;
  uint64_t epoch_ = 0;
  Duration max_age_;
};

}  // namespace vigil::health
