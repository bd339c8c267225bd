#include "health/checker.h"

#include <algorithm>
#include <functional>

#include "base/duration.h"
#include "base/log.h"
#include "health/kept_connection.h"
#include "health/tls_resumption.h"

namespace vigil::health {

using model::Health;

namespace {

// Wakeups come at most this often: with ten thousand checks a second, one wakeup per check
// re-programmed the timer (a timerfd_settime, costly in a VM) ten thousand times a second. A check
// then starts at most this late, far inside its ±10 % jitter.
constexpr Duration kWakeupQuantum = std::chrono::milliseconds(2);
// Checks started by one wakeup. Far above what is due in one quantum at ten thousand checks a
// second (20); reached only when the control thread was held up and a backlog fell due at
// once: started all together, ten thousand checks would take ten thousand descriptors (EMFILE
// beside ten thousand listeners) before a single answer is read. The rest start a quantum later.
constexpr size_t kMaxStartsPerWakeup = 512;

bool same_target(const Target& a, const ProbeTarget& b) {
  return a.address == b.address && a.port == b.port && a.proxy_header == b.proxy_header &&
         model::same_checks(a.monitor, b.monitor);
}

bool reuses_connections(const model::HealthMonitor& m) {
  const bool http = model::uses_http(m.type);
  return http && m.reuse_connection;
}

Timing timing_of(const model::HealthMonitor& m) {
  const bool tls = model::uses_tls(m.type);
  return {.interval = m.interval,
          .fast_interval = m.fast_interval,
          .timeout = m.timeout,
          .first_check_spacing = tls ? kTlsFirstCheckSpacing : kFirstCheckSpacing};
}

}  // namespace

HealthChecker::HealthChecker(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
                             Callback on_result, uint64_t seed, CheckSockets sockets)
    : clock_(clock),
      on_result_(std::move(on_result)),
      scheduler_(clock, seed),
      rng_(seed ^ 0x9e3779b97f4a7c15ULL),
      prober_(io, clock, sockets),
      // The timer never calls back once cancelled or destroyed: no liveness check needed.
      timer_(timers.create_timer([this] {
        armed_for_.reset();
        on_wakeup();
      })),
      silence_timer_(timers.create_timer([this] { on_silence_due(); })) {}

HealthChecker::~HealthChecker() { stop(); }

void HealthChecker::stop() {
  if (stopped_) return;
  stopped_ = true;
  timer_->cancel();
  silence_timer_->cancel();
  silences_.clear();
  for (auto& [id, m] : members_) m.probe.cancel();
}

void HealthChecker::set_targets(std::vector<Target> targets) {
  if (stopped_) return;
  // In id order, as ever: members added together take their first checks in that order.
  std::ranges::stable_sort(targets, std::less<>{}, &Target::member_id);
  std::vector<std::string> unset;
  unset.reserve(members_.size());
  for (const auto& [id, m] : members_) unset.push_back(id);
  change_targets(std::move(targets), unset);
}

void HealthChecker::change_targets(std::vector<Target> set, const std::vector<std::string>& unset) {
  if (stopped_) return;
  StringMap<size_t> wanted;  // by id: its place in `set`
  wanted.reserve(set.size());
  std::vector<bool> twice(set.size(), false);
  for (size_t i = 0; i < set.size(); ++i) {
    if (wanted.emplace(set[i].member_id, i).second) continue;
    log::warn("health: member {} is listed twice; checking the first", set[i].member_id);
    twice[i] = true;
  }
  for (const std::string& id : unset) {
    if (wanted.contains(id)) continue;
    if (auto it = members_.find(id); it != members_.end()) remove(it);
  }
  for (size_t i = 0; i < set.size(); ++i) {
    if (twice[i]) continue;
    Target& t = set[i];
    if (auto it = members_.find(t.member_id); it != members_.end()) {
      if (same_target(t, *it->second.probe_target)) {
        it->second.tag = t.tag;
        continue;
      }
      remove(it);
    }
    add(std::move(t));
  }
  // Monitors no member checks with any more (a pool removed or changed) are forgotten once they
  // could be half the map: a sweep of ten thousand monitors on every API write showed in
  // profiles, and an expired entry holds only its monitor's memory until the next sweep.
  if (monitors_.size() >= 2 * monitors_after_sweep_ + 16) {
    std::erase_if(monitors_, [](const auto& entry) { return entry.second.expired(); });
    monitors_after_sweep_ = monitors_.size();
  }
  arm();
}

void HealthChecker::remove(StringMap<Member>::iterator it) {
  it->second.probe.cancel();
  scheduler_.remove(it->first);
  by_slot_[it->second.slot] = nullptr;
  members_.erase(it);
}

void HealthChecker::add(Target t) {
  std::optional<TimePoint> first;
  if (t.resumed) first = clock_.now() + t.resumed->first_check_in;
  const uint32_t slot = scheduler_.add(t.member_id, timing_of(t.monitor), first);
  const Duration refresh = draw_max_age(rng_, t.monitor.fresh_connection_every);
  Threshold threshold(t.monitor.healthy_threshold, t.monitor.unhealthy_threshold);
  if (t.resumed) threshold.resume(t.resumed->health, t.resumed->successes, t.resumed->failures);
  auto probe_target = std::make_shared<const ProbeTarget>(ProbeTarget{
      .monitor_owner = shared_monitor(t.monitor),
      .address = t.address,
      .port = t.port,
      .proxy_header = t.proxy_header,
      .resumption = t.monitor.type == model::MonitorType::kHttps
                        ? std::make_shared<TlsResumption>(refresh)
                        : nullptr,
      .kept = reuses_connections(t.monitor) ? std::make_shared<KeptConnection>(refresh) : nullptr});
  auto [it, added] =
      members_.emplace(std::move(t.member_id), Member{.tag = t.tag,
                                                      .probe_target = std::move(probe_target),
                                                      .threshold = threshold,
                                                      .generation = next_generation_++,
                                                      .slot = slot});
  it->second.id = it->first;
  if (by_slot_.size() <= slot) by_slot_.resize(slot + 1, nullptr);
  by_slot_[slot] = &it->second;
}

std::shared_ptr<model::HealthMonitor> HealthChecker::shared_monitor(const model::HealthMonitor& m) {
  std::weak_ptr<model::HealthMonitor>& slot = monitors_[m.id];
  auto shared = slot.lock();
  // A monitor changed under the same id gets a new copy; members checked the old way keep theirs.
  if (!shared || !(*shared == m)) {
    shared = std::make_shared<model::HealthMonitor>(m);
    slot = shared;
  }
  return shared;
}

void HealthChecker::check_now(const std::string& member_id) {
  if (stopped_) return;
  // The question is whether the member accepts connections: a kept one can't answer it.
  auto it = members_.find(member_id);
  if (it != members_.end() && it->second.probe_target->kept) it->second.probe_target->kept->drop();
  scheduler_.check_now(member_id);
  arm();
}

void HealthChecker::confirm_silence(const std::string& member_id, TimePoint by) {
  check_now(member_id);
  auto it = members_.find(member_id);
  if (stopped_ || !on_silence_ || it == members_.end()) return;
  const Member& m = it->second;
  // A plain HTTP member sends nothing before its application has answered the request: its
  // silence is only a slow /readyz, which the check's own timeout judges.
  if (!model::uses_tls(m.probe_target->monitor.type) &&
      m.probe_target->monitor.type != model::MonitorType::kTcp) {
    return;
  }
  // The check asked of: the one running now, or else the next to start (check_now's).
  const uint64_t check = m.checks_started + (m.probe.running() ? 0 : 1);
  auto same = std::ranges::find_if(
      silences_, [&](const PendingSilence& p) { return p.slot == m.slot && p.check == check; });
  if (same != silences_.end()) {
    same->at = std::min(same->at, by);  // asked twice of one check: the earlier time holds
  } else {
    silences_.push_back({.at = by, .slot = m.slot, .generation = m.generation, .check = check});
  }
  silence_timer_->arm(std::ranges::min_element(silences_, {}, &PendingSilence::at)->at);
}

void HealthChecker::on_silence_due() {
  if (stopped_) return;
  const TimePoint now = clock_.now();
  std::vector<std::pair<uint32_t, uint64_t>> silent;  // slot, generation
  std::erase_if(silences_, [&](const PendingSilence& p) {
    if (p.at > now) return false;
    const Member* m = member_at(p.slot);
    if (m != nullptr && m->generation == p.generation && m->checks_started == p.check &&
        m->probe.running() && !m->probe.answered()) {
      silent.emplace_back(p.slot, p.generation);
    }
    return true;
  });
  if (!silences_.empty()) {
    silence_timer_->arm(std::ranges::min_element(silences_, {}, &PendingSilence::at)->at);
  }
  // The callback may change the members: each is looked up again.
  const std::weak_ptr<int> alive = alive_;
  for (const auto& [slot, generation] : silent) {
    const Member* m = member_at(slot);
    if (m == nullptr || m->generation != generation) continue;
    on_silence_({.member_id = m->id, .tag = m->tag});
    if (alive.expired() || stopped_) return;
  }
}

Health HealthChecker::health(const std::string& member_id) const {
  auto it = members_.find(member_id);
  return it == members_.end() ? Health::kUnchecked : it->second.threshold.health();
}

void HealthChecker::arm() {
  if (stopped_) return;
  const auto next = scheduler_.next_wakeup();
  // With nothing to wait for, a pending wakeup is left to find nothing: cheaper than cancelling.
  if (!next) return;
  const TimePoint at = std::max(*next, last_wakeup_ + kWakeupQuantum);
  // Re-arming only to wake earlier keeps the timer untouched by most results, whose next check
  // lies a whole interval ahead.
  if (armed_for_ && *armed_for_ <= at) return;
  armed_for_ = at;
  timer_->arm(at);
}

void HealthChecker::on_wakeup() {
  if (stopped_) return;
  last_wakeup_ = clock_.now();
  const Scheduler::Due due = scheduler_.take_due(last_wakeup_, kMaxStartsPerWakeup);
  // Probes never call back inside start(), so starting them all first is safe from re-entry.
  for (uint32_t slot : due.start) {
    if (Member* m = member_at(slot)) start_check(*m);
  }
  // A callback may restart a member (set_targets); its new incarnation did not time out.
  std::vector<std::pair<uint32_t, uint64_t>> timed_out;
  for (uint32_t slot : due.timed_out) {
    if (const Member* m = member_at(slot)) timed_out.emplace_back(slot, m->generation);
  }
  const std::weak_ptr<int> alive = alive_;
  for (const auto& [slot, generation] : timed_out) {
    Member* m = member_at(slot);
    if (m == nullptr || m->generation != generation) continue;
    m->probe.cancel();
    const Duration timeout = m->probe_target->monitor.timeout;
    record(*m, {.outcome = model::Outcome::kTimeout,
                .duration = timeout,
                .detail = "no answer within " + format_duration(timeout)});
    if (alive.expired() || stopped_) return;  // the callback stopped us
  }
  arm();
}

void HealthChecker::start_check(Member& m) {
  // take_due() has just marked it running, and no probe calls back inside start().
  ++m.checks_started;
  m.probe =
      prober_.start(m.probe_target, [this, slot = m.slot, generation = m.generation,
                                     alive = std::weak_ptr<int>(alive_)](model::CheckResult r) {
        if (!alive.expired()) on_probe_done(slot, generation, std::move(r));
      });
}

void HealthChecker::on_probe_done(uint32_t slot, uint64_t generation, model::CheckResult result) {
  if (stopped_) return;
  // The slot may hold another member by now (removed, then a new one added): the generation
  // tells.
  Member* m = member_at(slot);
  if (m == nullptr || m->generation != generation) return;
  const std::weak_ptr<int> alive = alive_;
  record(*m, std::move(result));
  if (!alive.expired()) arm();
}

// Calls the callback last: it may change or remove `member`.
void HealthChecker::record(Member& member, model::CheckResult result) {
  note_local(member, result);
  const Health previous = member.threshold.health();
  // A check we could not make says nothing of the member: no threshold step, and the next one
  // comes at the interval the member was on (a flood of clients must not take members out).
  const bool changed = !result.local() && member.threshold.record(result.ok());
  scheduler_.completed(member.slot, clock_.now(), member.threshold.transitioning());
  if (log::enabled(log::Level::kDebug)) {  // describe() allocates: not for every check
    log::debug("health: member {} {}:{}: {} ({}/{})", member.id, member.probe_target->address,
               member.probe_target->port, model::describe(result),
               member.threshold.consecutive_successes(), member.threshold.consecutive_failures());
  }
  const Event event{.member_id = member.id,
                    .tag = member.tag,
                    .result = std::move(result),
                    .health = member.threshold.health(),
                    .previous = previous,
                    .changed = changed,
                    .successes = member.threshold.consecutive_successes(),
                    .failures = member.threshold.consecutive_failures()};
  if (on_result_) on_result_(event);
}

void HealthChecker::note_local(const Member& member, const model::CheckResult& result) {
  if (result.local()) {
    ++local_failures_;
    if (local_in_episode_++ == 0) {
      log::warn(
          "health: cannot check member {} {}:{}: {}; checks that cannot be made do not count "
          "against members; raise the open-file limit (LimitNOFILE) if this lasts",
          member.id, member.probe_target->address, member.probe_target->port,
          model::describe(result));
    }
    return;
  }
  if (local_in_episode_ == 0) return;
  log::info("health: checks can be made again ({} could not be, and did not count)",
            local_in_episode_);
  local_in_episode_ = 0;
}

}  // namespace vigil::health
