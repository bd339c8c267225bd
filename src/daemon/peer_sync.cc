#include "daemon/peer_sync.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <optional>

#include "base/log.h"
#include "net/address.h"

namespace vigil::daemon {

namespace asio = boost::asio;
using asio::ip::tcp;

// An outbound stream: this node's sessions, to one other node.
struct PeerSync::Peer {
  model::Peer config;
  std::shared_ptr<tcp::socket> connecting;  // while a connect is under way
  std::shared_ptr<peers::Link> link;        // handshaking or up
  // Each attempt's number: what an earlier attempt's socket or link reports later is ignored.
  uint64_t attempt = 0;
  TimePoint attempt_at{};
  peers::Hello hello;                  // the one this node sent on `link`
  std::optional<peers::Hello> answer;  // the one it answered with
  bool up = false;                     // the other side proved it holds the token
  TimePoint retry_at{};
  std::string last_error;  // logged once until it changes
  // Its own stream to this node (an Inbound), once authenticated.
  std::shared_ptr<Inbound> receiving;
  TimePoint heard_at{};
  uint64_t lost = 0;
  uint64_t refused = 0;
  uint64_t tickled = 0;
};

// A connection another node opened to this one: its stream of sessions once it proved itself.
struct PeerSync::Inbound {
  std::shared_ptr<peers::Link> link;
  TimePoint opened_at{};
  peers::Hello theirs;
  peers::Hello mine;
  Peer* peer = nullptr;  // who it proved to be; null until then
  bool hello_seen = false;
};

namespace {

uint64_t key_of(int worker, uint64_t id) {
  return static_cast<uint64_t>(worker) << 48 | (id & ((uint64_t{1} << 48) - 1));
}

}  // namespace

Result<model::Peer> find_self(const std::vector<model::Peer>& peers, const std::string& peer_name,
                              const std::string& host_name) {
  const std::string& name = peer_name.empty() ? host_name : peer_name;
  for (const model::Peer& p : peers) {
    if (p.name == name) return p;
  }
  return fail("peers: no entry is this node: peer_name " +
              (peer_name.empty() ? "is not set and the host's name \"" + host_name + "\" is"
                                 : "\"" + peer_name + "\" is") +
              " not among them; set peer_name to this node's entry");
}

PeerSync::PeerSync(asio::io_context& io, const Clock& clock, TimerSource& timers,
                   std::vector<model::Peer> peers, std::string self, Auth auth, Hooks hooks)
    : io_(io),
      clock_(clock),
      self_(std::move(self)),
      auth_(std::move(auth)),
      hooks_(std::move(hooks)) {
  for (model::Peer& p : peers) {
    if (p.name == self_) {
      me_ = p;
    } else {
      peers_.push_back(std::make_unique<Peer>(Peer{.config = std::move(p)}));
    }
  }
  tick_ = timers.create_timer([this] { tick(); });
  flush_ = timers.create_timer([this] { flush(); });
}

PeerSync::~PeerSync() { stop(); }

Result<void> PeerSync::start() {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(me_.address, ec);
  if (ec) return fail("peers: " + me_.name + ": address " + me_.address + ": " + ec.message());
  auto acceptor = std::make_unique<tcp::acceptor>(io_);
  const tcp::endpoint at(address, me_.port);
  acceptor->open(at.protocol(), ec);
  if (!ec) acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor->bind(at, ec);
  if (!ec) acceptor->listen(64, ec);
  if (ec) {
    return fail("peers: cannot listen on " + me_.address + ":" + std::to_string(me_.port) +
                " (this node's entry, " + me_.name + "): " + ec.message());
  }
  acceptor_ = std::move(acceptor);
  log::info("peer sync: this node is {}, listening on {}:{}; {} other nodes", me_.name, me_.address,
            me_.port, peers_.size());
  accept();
  tick();
  flush();
  return {};
}

void PeerSync::stop() {
  if (stopped_) return;
  stopped_ = true;
  tick_->cancel();
  flush_->cancel();
  if (acceptor_) {
    boost::system::error_code ec;
    acceptor_->close(ec);
  }
  for (auto& in : handshaking_) in->link->close();
  handshaking_.clear();
  for (auto& p : peers_) {
    if (p->connecting) {
      boost::system::error_code ec;
      p->connecting->close(ec);
    }
    if (p->link) p->link->close();
    if (p->receiving) p->receiving->link->close();
    p->receiving.reset();
  }
}

void PeerSync::accept() {
  acceptor_->async_accept(
      [this, alive = std::weak_ptr<int>(alive_)](boost::system::error_code ec, tcp::socket socket) {
        if (alive.expired() || stopped_) return;
        if (!ec) on_accepted(std::move(socket));
        accept();
      });
}

void PeerSync::on_accepted(tcp::socket socket) {
  // Unauthenticated connections are few and short. Past the bound the oldest is closed, not the
  // newest refused: a real peer proves itself within a round trip, so strangers that connect and
  // wait cannot keep it out.
  constexpr size_t kMaxHandshaking = 16;
  if (handshaking_.size() >= kMaxHandshaking) {
    handshaking_.front()->link->close();
    handshaking_.erase(handshaking_.begin());
  }
  auto in = std::make_shared<Inbound>();
  in->opened_at = clock_.now();
  std::weak_ptr<Inbound> weak = in;
  in->link = std::make_shared<peers::Link>(
      std::move(socket),
      peers::Link::Handlers{.on_frame =
                                [this, weak](const peers::Frame& f, std::string& why) {
                                  auto in = weak.lock();
                                  return in && on_inbound_frame(in, f, why);
                                },
                            .on_closed =
                                [this, weak](const std::string& why) {
                                  if (auto in = weak.lock()) inbound_closed(in, why);
                                }},
      peers::Link::Tls{.context = auth_.tls});
  handshaking_.push_back(in);
  in->link->start();
}

bool PeerSync::on_inbound_frame(const std::shared_ptr<Inbound>& in, const peers::Frame& f,
                                std::string& why) {
  if (in->peer == nullptr) {  // the handshake: their hello, then their proof
    if (const auto* hello = std::get_if<peers::Hello>(&f); hello && !in->hello_seen) {
      in->hello_seen = true;
      in->theirs = *hello;
      in->mine = {.name = self_, .nonce = peers::random_nonce()};
      Peer* claimed = peer_named(hello->name);
      if (auth_.tls && claimed != nullptr && !in->link->certificate_names(hello->name)) {
        ++claimed->refused;  // one node's certificate posing as another
        why = "refused: its certificate does not name \"" + hello->name + "\"";
        return false;
      }
      std::vector<uint8_t> out;
      peers::append(out, in->mine);
      peers::append(out, peers::ProofFrame{.proof = peers::proof(proof_key(*in->link), 'S',
                                                                 in->theirs, in->mine)});
      in->link->send(out);
      return true;
    }
    const auto* p = std::get_if<peers::ProofFrame>(&f);
    Peer* claimed = in->hello_seen ? peer_named(in->theirs.name) : nullptr;
    const std::string key = proof_key(*in->link);
    if (p == nullptr || claimed == nullptr || key.empty() ||
        !peers::same_proof(p->proof, peers::proof(key, 'C', in->theirs, in->mine))) {
      if (claimed != nullptr) ++claimed->refused;
      why = "refused: " + std::string(claimed == nullptr && in->hello_seen
                                          ? "\"" + in->theirs.name + "\" is not one of peers"
                                      : auth_.tls ? "no valid proof of its TLS session"
                                                  : "no valid proof of the peers token");
      return false;
    }
    std::erase(handshaking_, in);
    if (claimed->receiving) claimed->receiving->link->close();  // a newer stream replaces it
    in->peer = claimed;
    claimed->receiving = in;
    claimed->heard_at = clock_.now();
    log::info("peer sync: {} ({}) streams its sessions to this node", claimed->config.name,
              in->link->remote());
    return true;
  }
  Peer& from = *in->peer;
  from.heard_at = clock_.now();
  if (std::holds_alternative<peers::Hello>(f) || std::holds_alternative<peers::ProofFrame>(f)) {
    ++from.refused;
    why = "sent a handshake frame after its handshake";
    return false;
  }
  if (auto applied = known_.apply(from.config.name, f); !applied) {
    ++from.refused;
    why = applied.error().message;
    return false;
  }
  return true;
}

void PeerSync::inbound_closed(const std::shared_ptr<Inbound>& in, const std::string& why) {
  std::erase(handshaking_, in);
  if (in->peer == nullptr) {
    // A certificate refused in the TLS handshake comes before any hello: it counts against the
    // peer whose address the connection came from, if any.
    if (in->link->certificate_refused()) {
      if (Peer* from = peer_at(in->link->remote_address())) ++from->refused;
    }
    // At most one line every 30 s: a misconfigured node retries every second, a scanner more.
    ++unproven_;
    const TimePoint now = clock_.now();
    if (unproven_said_at_ == TimePoint{} || now - unproven_said_at_ >= std::chrono::seconds(30)) {
      log::warn(
          "peer sync: a connection from {} closed before it proved itself a peer: {} ({} "
          "such connections since the last such line)",
          in->link->remote(), why, unproven_);
      unproven_said_at_ = now;
      unproven_ = 0;
    }
    return;
  }
  Peer& p = *in->peer;
  if (p.receiving != in) return;  // replaced by a newer stream
  p.receiving.reset();
  lose(p, "its stream " + why);
}

void PeerSync::lose(Peer& p, const std::string& why) {
  ++p.lost;
  const std::vector<std::string> held = hooks_.held();
  auto sessions = known_.take_of(p.config.name, [&](std::string_view ip) {
    return std::ranges::find(held, net::unmapped(ip)) != held.end();
  });
  log::warn(
      "peer sync: peer {} lost ({}); {} of its sessions are on addresses this node holds "
      "and are tickled",
      p.config.name, why, sessions.size());
  p.tickled += sessions.size();
  tickle(std::move(sessions));
}

void PeerSync::address_gained(const std::string& ip, const std::string& text) {
  if (stopped_) return;
  auto sessions = known_.take_on(ip);
  if (sessions.empty()) return;
  log::warn(
      "peer sync: address {} came to this node: the {} sessions its peers held on it are "
      "tickled, so that their clients reconnect at once",
      text, sessions.size());
  // Counted against no peer in particular: the table no longer says whose they were.
  tickle(std::move(sessions));
}

void PeerSync::tickle(std::vector<peers::SessionEntry> sessions) {
  if (sessions.empty()) return;
  std::vector<proxy::LostSession> lost;
  lost.reserve(sessions.size());
  for (peers::SessionEntry& s : sessions) lost.push_back({.local = s.local, .client = s.client});
  hooks_.tickle(std::move(lost));
}

void PeerSync::connect(Peer& p) {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(p.config.address, ec);
  if (ec) return;
  auto socket = std::make_shared<tcp::socket>(io_);
  const uint64_t attempt = ++p.attempt;
  p.attempt_at = clock_.now();
  p.retry_at = p.attempt_at + kRetry;
  p.connecting = socket;
  p.hello = {.name = self_, .nonce = peers::random_nonce()};
  socket->async_connect(tcp::endpoint(address, p.config.port), [this, &p, socket, attempt,
                                                                alive = std::weak_ptr<int>(alive_)](
                                                                   boost::system::error_code ec) {
    if (alive.expired() || stopped_ || attempt != p.attempt) return;
    p.connecting.reset();
    if (ec) {
      if (p.last_error != ec.message()) {
        p.last_error = ec.message();
        log::warn("peer sync: cannot connect to {} at {}:{}: {}; trying every second",
                  p.config.name, p.config.address, p.config.port, ec.message());
      }
      return;
    }
    p.link = std::make_shared<peers::Link>(
        std::move(*socket),
        peers::Link::Handlers{.on_frame =
                                  [this, &p, attempt](const peers::Frame& f, std::string& why) {
                                    return attempt == p.attempt && on_outbound_frame(p, f, why);
                                  },
                              .on_closed =
                                  [this, &p, attempt](const std::string& why) {
                                    if (attempt != p.attempt) return;
                                    if (p.link && p.link->certificate_refused()) ++p.refused;
                                    outbound_closed(p, why);
                                  }},
        peers::Link::Tls{.context = auth_.tls, .connected = true, .peer = p.config.name});
    p.link->start();
    std::vector<uint8_t> out;
    peers::append(out, p.hello);
    p.link->send(out);
  });
}

// A connect or handshake that has not finished in kHandshake (a peer frozen or powered off: its
// SYNs or its answer never come) is given up, and the next tick tries again.
void PeerSync::abandon_attempt(Peer& p) {
  if (p.connecting) {
    boost::system::error_code ec;
    p.connecting->close(ec);
    p.connecting.reset();
  }
  if (p.link) p.link->close();  // no handler runs after close()
  ++p.attempt;
  outbound_closed(
      p, "no answer within " +
             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(kHandshake).count()) +
             " s");
  p.retry_at = clock_.now();
}

bool PeerSync::on_outbound_frame(Peer& p, const peers::Frame& f, std::string& why) {
  if (p.up) {
    why = "sent frames on this node's stream";
    return false;
  }
  if (const auto* hello = std::get_if<peers::Hello>(&f)) {
    if (hello->name != p.config.name) {
      why = "answered as \"" + hello->name + "\", not \"" + p.config.name + "\"";
      return false;
    }
    if (p.answer) {
      why = "sent two hellos";
      return false;
    }
    p.answer = *hello;
    return true;
  }
  const auto* proof = std::get_if<peers::ProofFrame>(&f);
  const std::string key = proof_key(*p.link);
  if (proof == nullptr || !p.answer || key.empty() ||
      !peers::same_proof(proof->proof, peers::proof(key, 'S', p.hello, *p.answer))) {
    ++p.refused;
    why = auth_.tls ? "gave no valid proof of its TLS session"
                    : "gave no valid proof of the peers token";
    return false;
  }
  std::vector<uint8_t> out;
  peers::append(out, peers::ProofFrame{.proof = peers::proof(key, 'C', p.hello, *p.answer)});
  peers::append(out, peers::Reset{});
  std::vector<peers::SessionEntry> all;
  all.reserve(local_.size());
  for (const auto& [key, entry] : local_) all.push_back(entry);
  peers::append_adds(out, all);
  peers::append(out, peers::Synced{});
  p.link->send(out);
  p.up = true;
  p.last_error.clear();
  log::info("peer sync: streaming this node's {} sessions to {} ({}:{})", all.size(), p.config.name,
            p.config.address, p.config.port);
  return true;
}

void PeerSync::outbound_closed(Peer& p, const std::string& why) {
  if (p.up || p.last_error != why) {
    log::warn("peer sync: the stream to {} closed: {}; connecting again", p.config.name, why);
  }
  p.last_error = why;
  p.up = false;
  p.answer.reset();
  p.link.reset();  // the Link lives on while its handlers run
}

PeerSync::Peer* PeerSync::peer_named(std::string_view name) {
  for (auto& p : peers_) {
    if (p->config.name == name) return p.get();
  }
  return nullptr;
}

PeerSync::Peer* PeerSync::peer_at(const asio::ip::address& address) {
  for (auto& p : peers_) {
    boost::system::error_code ec;
    if (asio::ip::make_address(p->config.address, ec) == address && !ec) return p.get();
  }
  return nullptr;
}

std::string PeerSync::proof_key(peers::Link& link) const {
  return auth_.tls ? link.exported_key() : auth_.token;
}

void PeerSync::tick() {
  if (stopped_) return;
  const TimePoint now = clock_.now();
  // This node was stopped itself (frozen, SIGSTOP, a VM paused): the others' silence is its own,
  // and what they sent meanwhile waits in its socket. It judges them afresh from now on.
  const bool was_stopped = ticked_at_ != TimePoint{} && now - ticked_at_ >= kSilence / 2;
  ticked_at_ = now;
  for (auto& p : peers_) {
    if ((p->connecting || (p->link && !p->up)) && now - p->attempt_at >= kHandshake) {
      abandon_attempt(*p);
    }
    if (!p->link && !p->connecting && now >= p->retry_at) connect(*p);
    if (was_stopped) p->heard_at = now;
    if (p->receiving && now - p->heard_at >= kSilence) {
      auto in = std::move(p->receiving);
      in->link->close();
      lose(*p, "its stream was silent for " +
                   std::to_string(
                       std::chrono::duration_cast<std::chrono::milliseconds>(now - p->heard_at)
                           .count()) +
                   " ms");
    }
  }
  std::erase_if(handshaking_, [&](const std::shared_ptr<Inbound>& in) {
    if (now - in->opened_at < kHandshake) return false;
    in->link->close();
    return true;
  });
  gather();
  tick_->arm(now + kTick);
}

// Between ticks: new sessions go out as soon as a worker has any, at most one round per kFlush
// (about 20 sessions a frame at 1,000 new a second). Polling costs a load per worker.
void PeerSync::flush() {
  if (stopped_) return;
  if (hooks_.news && hooks_.news()) gather();
  flush_->arm(clock_.now() + kFlush);
}

// One round at a time: a round asked while another is under way is left to the next flush or
// tick, which the flags and the workers' lists make lose nothing.
void PeerSync::gather() {
  if (gathering_) return;
  gathering_ = true;
  hooks_.gather(
      [this, alive = std::weak_ptr<int>(alive_)](std::vector<proxy::SessionChanges> changes) {
        if (alive.expired()) return;
        gathering_ = false;
        if (!stopped_) take_changes(std::move(changes));
      });
}

void PeerSync::take_changes(std::vector<proxy::SessionChanges> changes) {
  std::vector<peers::SessionEntry> added;
  std::vector<uint64_t> removed;
  for (proxy::SessionChanges& c : changes) {
    for (const proxy::OpenedSession& s : c.opened) {
      peers::SessionEntry e{.key = key_of(c.worker, s.id), .local = s.local, .client = s.client};
      local_.insert_or_assign(e.key, e);
      added.push_back(std::move(e));
    }
    for (uint64_t id : c.closed) {
      if (local_.erase(key_of(c.worker, id)) > 0) removed.push_back(key_of(c.worker, id));
    }
  }
  // The same bytes to every peer whose stream is up; a beat when there is nothing new, so
  // that each knows this node is alive.
  std::vector<uint8_t> out;
  peers::append_adds(out, added);
  peers::append_removes(out, removed);
  if (out.empty()) peers::append(out, peers::Beat{});
  for (auto& p : peers_) {
    if (p->up && p->link) p->link->send(out);
  }
}

std::vector<model::PeerStatus> PeerSync::view() const {
  std::vector<model::PeerStatus> out;
  const TimePoint now = clock_.now();
  for (const auto& p : peers_) {
    const auto known = known_.state(p->config.name);
    out.push_back({.name = p->config.name,
                   .address = p->config.address + ":" + std::to_string(p->config.port),
                   .sending = p->up,
                   .receiving = p->receiving != nullptr,
                   .sessions_known = known.sessions,
                   .synced = known.synced,
                   .since_heard = p->receiving ? now - p->heard_at : Duration{},
                   .lost = p->lost,
                   .refused = p->refused,
                   .sessions_tickled = p->tickled});
  }
  return out;
}

}  // namespace vigil::daemon
