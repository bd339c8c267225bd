// The connect path of a session: pick a member not yet tried, connect without blocking, retry at
// once on another member after a refusal or a timeout, and hedge a connect that is slow to
// complete with a second one to another member. Nothing has been sent to any member before one
// connects, so no client byte is lost whichever wins. A replay (session_replay.cc) comes back here
// with the same tried list and budget.
#include <sys/epoll.h>

#include <algorithm>

#include "net/socket.h"
#include "proxy/session.h"

namespace vigil::proxy {

void Session::start() {
  if (!arm(client_)) {
    close();
    return;
  }
  if (listener_.accept_proxy) {
    // The member is picked once the header says who the client is (source_ip hashes on it).
    state_ = State::kReadingHeader;
    phase_deadline_ = host_.now() + listener_.proxy_header_timeout;
    host_.schedule(*this, phase_deadline_);
    read_proxy_header();  // it may be here already
    return;
  }
  connect_first();
}

void Session::connect_first() {
  watch_first_flight();
  if (!start_attempt(attempts_[0])) {
    give_up();
    return;
  }
  schedule_hedge();
}

void Session::schedule_hedge() {
  if (state_ == State::kConnecting && pool_->hedge_after > Duration::zero()) {
    phase_deadline_ = host_.now() + pool_->hedge_after;
    host_.schedule(*this, phase_deadline_);
  }
}

// Starts a connect in `a` to the next member not yet tried. False when none is left.
bool Session::start_attempt(Attempt& a, bool hedge) {
  const PoolSnapshotPtr& latest = host_.pool(listener_.pool_index);
  if (!latest && !pool_) return false;  // the pool was removed by a reload
  if (latest && pool_ != latest && !other(a).active()) {
    // Health changed since the last attempt: tried indices referred to the old candidate list.
    pool_ = latest;
    tried_count_ = 0;
  }
  const int max_attempts = 1 + pool_->retries;
  while (attempts_made_ < max_attempts && tried_count_ < kMaxTried) {
    // A balancer belongs to the current snapshot; after a removal, finish with the old list.
    Balancer* balancer = pool_ == latest ? &host_.balancer(listener_.pool_index) : nullptr;
    std::unique_ptr<Balancer> stale;
    if (balancer == nullptr) {
      stale = make_balancer(*pool_);
      balancer = stale.get();
    }
    const int index =
        balancer->pick(*pool_, {.client_ip = {client_ip_.data(), client_ip_size_},
                                .tried = {tried_.data(), static_cast<size_t>(tried_count_)},
                                .now = host_.now()});
    if (index < 0) return false;
    tried_[tried_count_++] = static_cast<uint32_t>(index);
    if (attempts_made_++ > 0 && !hedge) {
      listener_.stats->retried.fetch_add(1, std::memory_order_relaxed);
      if (retries_ < kMaxRetriesLogged) ++retries_;
    }
    const Backend& b = pool_->candidates[index];
    auto connecting = net::connect_nonblocking(b.address);
    if (!connecting && connecting.error().local) {
      // Counting this against the member would take healthy members out of rotation for this
      // host's shortage, and every other member would fail alike: the client is let go.
      host_.out_of_descriptors(listener_.name,
                               "connect to a member: " + connecting.error().message);
      return false;
    }
    if (!connecting) {
      member_failed(b, connecting.error().message, false);
      continue;
    }
    a.side = Side(Handler::Kind::kBackend, this);
    a.side.fd = std::move(connecting->fd);
    a.candidate = index;
    a.started = host_.now();
    a.deadline = a.started + pool_->connect_timeout;
    if (!arm(a.side)) {
      a.side.fd.reset();
      continue;
    }
    if (!connecting->in_progress) {
      attempt_connected(a);
    } else {
      host_.schedule(*this, a.deadline);
    }
    return true;
  }
  return false;
}

void Session::on_connect_event(Attempt& a, uint32_t events) {
  // A connect that failed reports EPOLLERR (a refusal EPOLLHUP too): only then is the reason
  // asked for. A plain EPOLLOUT is an established connection, and one system call per new
  // connection is saved.
  const int err = (events & (EPOLLERR | EPOLLHUP)) != 0 ? net::socket_error(a.side.fd.get()) : 0;
  if (err == 0) {
    attempt_connected(a);
  } else {
    attempt_failed(a, net::errno_string(err), false);
  }
}

void Session::attempt_failed(Attempt& a, const std::string& reason, bool silent) {
  a.side.fd.reset();  // closing also removes it from epoll
  // Held here: start_attempt() may move on to a newer snapshot without this member.
  const std::shared_ptr<BackendStats> failed = pool_->candidates[a.candidate].stats;
  member_failed(pool_->candidates[a.candidate], reason, silent, host_.now() - a.started,
                pool_->connect_timeout);
  if (start_attempt(a)) {
    failed->retries.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (!other(a).active()) give_up(failed.get());
}

void Session::attempt_connected(Attempt& a) {
  // Each new connection to a member gets its own header, replays and hedges too; the client's
  // bytes (kept ones included) follow it.
  const model::ProxyProtocol proxy = pool_->candidates[a.candidate].proxy_protocol;
  if (proxy != model::ProxyProtocol::kOff && !send_proxy_header(a.side, proxy)) {
    attempt_failed(a, "reset before the PROXY header could be sent", false);
    return;
  }
  Attempt& loser = other(a);
  if (loser.active()) {
    // The loser was the first attempt only if it was still pending when the hedge started: a
    // connect that slow on a LAN means the member did not answer.
    const bool loser_was_first = loser.started < a.started;
    if (loser_was_first) {
      member_failed(pool_->candidates[loser.candidate], "no answer to connect within hedge_after",
                    true, host_.now() - loser.started, pool_->connect_timeout);
    }
    loser.side.fd.reset();
  }
  state_ = State::kPumping;
  phase_deadline_ = {};
  backend_ = &a.side;
  const Backend& b = pool_->candidates[a.candidate];
  backend_stats_ = b.stats;
  backend_stats_->active.fetch_add(1, std::memory_order_relaxed);
  backend_stats_->total.fetch_add(1, std::memory_order_relaxed);
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(host_.now() - accepted_at_);
  connected_us_ = static_cast<uint32_t>(std::clamp<int64_t>(us.count() + 1, 1, UINT32_MAX));
  dead_peer_pending_ = true;
  if (!awaiting_first_byte_) pool_.reset();  // else kept to report the member or replay
  backend_->writable = true;
  last_activity_ = host_.now();
  host_.schedule(*this, dead_peer_at());
  after_pump(pump(client_, *backend_, up_, &backend_stats_->bytes_out) &&
             pump(*backend_, client_, down_, &backend_stats_->bytes_in));
}

void Session::on_connect_timer(TimePoint now) {
  for (Attempt& a : attempts_) {
    if (state_ != State::kConnecting) return;
    if (a.active() && now >= a.deadline) attempt_failed(a, "connect timeout", true);
  }
  if (state_ != State::kConnecting) return;
  if (phase_deadline_ != TimePoint{} && now >= phase_deadline_) {
    phase_deadline_ = {};
    Attempt* idle = !attempts_[0].active()   ? &attempts_[0]
                    : !attempts_[1].active() ? &attempts_[1]
                                             : nullptr;
    if (idle != nullptr && host_.take_hedge_token()) {
      // Taken first: a hedge that connects at once closes the slow attempt.
      const Attempt& slow = other(*idle);
      const std::shared_ptr<BackendStats> slow_member =
          slow.active() ? pool_->candidates[slow.candidate].stats : nullptr;
      if (start_attempt(*idle, true)) {
        listener_.stats->hedged.fetch_add(1, std::memory_order_relaxed);
        if (slow_member) slow_member->hedges.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
}

void Session::member_failed(const Backend& b, const std::string& reason, bool silent,
                            Duration waited, Duration limit) {
  listener_.stats->connect_failures.fetch_add(1, std::memory_order_relaxed);
  host_.connect_failed(*pool_, b, reason, silent, waited, limit);
}

// No member could be reached: the client sees its connection closed, never a hang.
void Session::give_up(BackendStats* failed) {
  listener_.stats->no_backend.fetch_add(1, std::memory_order_relaxed);
  // After a member failed it, the client saw that member's fault; without one, only an empty pool.
  if (failed != nullptr) failed->failed_sessions.fetch_add(1, std::memory_order_relaxed);
  ending(SessionEnd::kNoMember);
  close();
}

}  // namespace vigil::proxy
