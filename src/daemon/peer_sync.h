// PeerSync: the session sync between the vigil nodes of a pair or fleet (`peers:`), and the
// takeover it makes possible. Each node connects to every other node and streams the client
// sessions its workers hold (peers/wire.h): new ones within 20 ms, closed ones and a heartbeat
// every 200 ms; it listens for the others'
// streams and keeps their sessions (peers/known_sessions.h). When this node gains an address
// (keepalived moved it here) it tickles the sessions any peer held on it; when a peer goes
// silent or its stream closes, it tickles that peer's sessions on addresses this node holds
// (a fleet's shared address). A tickled client answers, the kernel here resets the connection
// it has no socket for, and the client reconnects at once instead of on its own timer
// (CTDB's tickle ACK; daemon/tickler.h). Control thread only.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "base/timer.h"
#include "model/process.h"
#include "model/status_tree.h"
#include "peers/known_sessions.h"
#include "peers/link.h"
#include "proxy/worker.h"

namespace boost::asio::ssl {
class context;
}

namespace vigil::daemon {

class PeerSync {
 public:
  // A stream silent this long is a peer lost: five missed 200 ms sync rounds, and less than the
  // 1.3-1.5 s keepalived takes to move an address (so a frozen peer is lost first).
  static constexpr Duration kSilence = std::chrono::milliseconds(1000);
  static constexpr Duration kTick = std::chrono::milliseconds(200);
  // New sessions go out this soon: the workers' flags are polled this often, and a round of
  // changes is gathered when one is set. A session opened just before a fault is known to the
  // peers unless it is younger than this (plus a round trip to the workers); closes wait for
  // the tick (a peer that keeps a closed session a little longer only tickles it in vain).
  static constexpr Duration kFlush = std::chrono::milliseconds(20);
  static constexpr Duration kHandshake = std::chrono::seconds(5);
  static constexpr Duration kRetry = std::chrono::seconds(1);

  struct Hooks {
    // Asks every worker for its session changes; `done` runs on the control thread with them.
    std::function<void(std::function<void(std::vector<proxy::SessionChanges>)> done)> gather;
    // Whether a worker has accepted a session since it was last gathered; lock-free, polled.
    std::function<bool()> news;
    std::function<void(std::vector<proxy::LostSession>)> tickle;
    // The addresses this host holds, as SocketAddress::ip_bytes(); asked once per peer lost.
    std::function<std::vector<std::string>()> held;
  };

  // How peers prove who they are (peers_auth): the token's HMAC proof; or mutual TLS, whose
  // certificates must name the peers, with the same proof keyed by the TLS session's exported
  // key (which binds the hellos to that session).
  struct Auth {
    std::string token;
    std::shared_ptr<boost::asio::ssl::context> tls;  // set: mutual TLS
  };

  // `self`: this node's entry of `process.peers`.
  PeerSync(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
           std::vector<model::Peer> peers, std::string self, Auth auth, Hooks hooks);
  ~PeerSync();
  PeerSync(const PeerSync&) = delete;
  PeerSync& operator=(const PeerSync&) = delete;

  // Listens on this node's address and port, and starts connecting to the others.
  Result<void> start();
  void stop();
  // This host has just gained the address `ip` (ip_bytes()): tickles what peers held on it.
  void address_gained(const std::string& ip, const std::string& text);

  std::vector<model::PeerStatus> view() const;
  size_t sessions_sent() const { return local_.size(); }  // this node's, as its peers know them

 private:
  struct Peer;
  struct Inbound;
  void accept();
  void on_accepted(boost::asio::ip::tcp::socket socket);
  bool on_inbound_frame(const std::shared_ptr<Inbound>& in, const peers::Frame& f,
                        std::string& why);
  void inbound_closed(const std::shared_ptr<Inbound>& in, const std::string& why);
  void connect(Peer& p);
  void abandon_attempt(Peer& p);
  bool on_outbound_frame(Peer& p, const peers::Frame& f, std::string& why);
  void outbound_closed(Peer& p, const std::string& why);
  void tick();
  void flush();
  void gather();
  void take_changes(std::vector<proxy::SessionChanges> changes);
  void lose(Peer& p, const std::string& why);
  void tickle(std::vector<peers::SessionEntry> sessions);
  Peer* peer_named(std::string_view name);
  Peer* peer_at(const boost::asio::ip::address& address);
  // The key of the hello's proof on `link`: the token, or under TLS the session's exported key;
  // empty when there is none (then nothing is proven).
  std::string proof_key(peers::Link& link) const;

  boost::asio::io_context& io_;
  const Clock& clock_;
  std::unique_ptr<Timer> tick_;
  std::unique_ptr<Timer> flush_;
  std::string self_;
  Auth auth_;
  Hooks hooks_;
  std::vector<std::unique_ptr<Peer>> peers_;  // the others
  model::Peer me_;
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;
  std::vector<std::shared_ptr<Inbound>> handshaking_;
  std::unordered_map<uint64_t, peers::SessionEntry> local_;  // this node's sessions, by key
  peers::KnownSessions known_;
  TimePoint ticked_at_{};  // the last tick()
  uint64_t unproven_ = 0;  // connections closed before proving themselves, not yet logged
  TimePoint unproven_said_at_{};
  bool gathering_ = false;
  bool stopped_ = false;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

// This node's entry of `peers`: the one `peer_name` names, or else the one named as the host.
Result<model::Peer> find_self(const std::vector<model::Peer>& peers, const std::string& peer_name,
                              const std::string& host_name);

}  // namespace vigil::daemon
