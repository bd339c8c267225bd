#include "admin/octavia/shared_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/log.h"

namespace vigil::admin {

SharedStore::SharedStore(std::unique_ptr<EtcdKv> kv, ObjectStore& cache, Daemon& daemon,
                         const Clock& clock, const WallClock& wall, TimerSource& timers,
                         Options options)
    : kv_(std::move(kv)),
      cache_(cache),
      daemon_(daemon),
      clock_(clock),
      wall_(wall),
      options_(std::move(options)) {
  health_.name = options_.name;
  health_.prefix = options_.prefix;
  retry_timer_ = timers.create_timer([this] {
    if (auto f = std::exchange(on_retry_, nullptr)) f();
  });
  probe_timer_ = timers.create_timer([this] { probe(); });
}

SharedStore::~SharedStore() {
  *alive_ = false;
  kv_->cancel_watch();
}

void SharedStore::start() {
  read_whole();
  probe_timer_->arm(clock_.now() + options_.probe);
}

bool SharedStore::enqueue(Job job) {
  if (queue_.size() >= options_.max_waiting) return false;
  queue_.push_back(std::move(job));
  run_next();
  return true;
}

// Never refused for a full queue: etcd's own changes are what lets the queue drain.
void SharedStore::in_turn(std::function<void()> step) {
  queue_.push_back([step = std::move(step)](std::function<void()> done) {
    step();
    done();
  });
  run_next();
}

// One job at a time; a job that finishes at once does not nest the next one in its stack.
void SharedStore::run_next() {
  if (draining_) return;
  draining_ = true;
  while (!running_ && !queue_.empty()) {
    Job job = std::move(queue_.front());
    queue_.pop_front();
    running_ = true;
    job([this, alive = alive_] {
      if (!*alive) return;
      running_ = false;
      run_next();
    });
  }
  draining_ = false;
}

void SharedStore::after(Duration d, std::function<void()> f) {
  on_retry_ = std::move(f);
  retry_timer_->arm(clock_.now() + d);
}

void SharedStore::note_error(std::string message) {
  if (message != health_.last_error) log::warn("admin.store: {}", message);
  health_.last_error = std::move(message);
  health_.last_error_at = wall_.now();
}

void SharedStore::read_whole() {
  ++health_.resyncs;
  kv_->range_prefix(options_.prefix, [this, alive = alive_](Result<etcd::RangeResult> r) {
    if (!*alive || paused_) return;
    if (!r) {
      health_.reachable = false;
      note_error(fmt::format("cannot read the objects from {}: {}; trying again", options_.name,
                             r.error().message));
      after(options_.retry, [this] { read_whole(); });
      return;
    }
    health_.reachable = true;
    health_.etcd_revision = r->revision;
    in_turn([this, range = std::move(*r)]() mutable { take_range(std::move(range)); });
  });
}

void SharedStore::take_range(etcd::RangeResult range) {
  if (paused_) return;
  const std::string marker = marker_key(options_.prefix);
  const bool marked =
      std::ranges::any_of(range.kvs, [&](const etcd::KeyValue& kv) { return kv.key == marker; });
  const size_t held = cache_.state().loadbalancers.size();
  // A node never takes a prefix vigil never wrote for "every load balancer was deleted": that is
  // a new or another etcd, and taking it would lose every object this node holds.
  if (!marked && held > 0 && revisions_.empty()) {
    health_.refusing = fmt::format(
        "{} holds nothing of vigil under {}, but this node holds {} load balancers: a new or "
        "another etcd. Put them there with `vigil store import`, or move this node's state file "
        "away to take etcd's (empty) state",
        options_.name, options_.prefix, held);
    note_error(health_.refusing);
    after(options_.retry * 10, [this] { read_whole(); });
    return;
  }
  health_.refusing.clear();
  if (!carry_out(follow_range(cache_.state(), revisions_, range.kvs, options_.prefix),
                 "a whole read")) {
    after(options_.retry * 10, [this] { read_whole(); });
    return;
  }
  health_.revision = range.revision;
  health_.followed_at = wall_.now();
  if (watching_) {
    kv_->cancel_watch();
    watching_ = false;
  }
  follow_from(range.revision + 1);
}

void SharedStore::follow_from(int64_t revision) {
  watching_ = true;
  behind_since_ = {};
  kv_->watch_prefix(
      options_.prefix, revision,
      [this, alive = alive_](etcd::WatchBatch batch) {
        if (!*alive) return;
        in_turn([this, batch = std::move(batch)] { take_batch(batch); });
      },
      [this, alive = alive_](etcd::WatchEnd end) {
        if (!*alive) return;
        in_turn([this, end = std::move(end)] { watch_ended(end); });
      });
}

void SharedStore::take_batch(const etcd::WatchBatch& batch) {
  if (paused_) return;
  Followed f = follow_events(cache_.state(), revisions_, batch.events, options_.prefix);
  if (!carry_out(std::move(f), fmt::format("revision {}", batch.revision))) {
    // What the daemon refused is read again whole later, when it may take it.
    kv_->cancel_watch();
    watching_ = false;
    health_.following = false;
    after(options_.retry * 10, [this] { read_whole(); });
    return;
  }
  health_.revision = std::max(health_.revision, batch.revision);
  health_.reachable = true;
}

void SharedStore::watch_ended(const etcd::WatchEnd& end) {
  if (paused_) return;
  watching_ = false;
  health_.following = false;
  if (end.compact_revision > 0) {
    note_error(fmt::format(
        "{} no longer holds the changes after revision {} (compacted up to {}): reading the "
        "objects whole",
        options_.name, health_.revision, end.compact_revision));
    read_whole();
    return;
  }
  note_error(fmt::format("the watch of {} ended: {}; resuming after revision {}", options_.name,
                         end.error, health_.revision));
  after(options_.retry, [this] { follow_from(health_.revision + 1); });
}

// etcd's marker moves with every write vigil makes under the prefix (etcd_layout.h): when it is
// ahead of what the watch brought for long, the watch is dead without knowing it (a connection
// that a dead etcd member still holds open) and is started again.
void SharedStore::probe() {
  probe_timer_->arm(clock_.now() + options_.probe);
  if (probing_) return;
  probing_ = true;
  kv_->range_prefix(
      marker_key(options_.prefix), [this, alive = alive_](Result<etcd::RangeResult> r) {
        if (!*alive) return;
        probing_ = false;
        if (paused_) return;
        if (!r) {
          health_.reachable = false;
          health_.following = false;
          note_error(fmt::format("{} does not answer: {}", options_.name, r.error().message));
          return;
        }
        health_.reachable = true;
        health_.etcd_revision = r->revision;
        const int64_t last_write = r->kvs.empty() ? 0 : r->kvs.front().mod_revision;
        if (!watching_) return;
        if (health_.revision >= last_write) {
          health_.following = true;
          health_.followed_at = wall_.now();
          behind_since_ = {};
          return;
        }
        const TimePoint now = clock_.now();
        if (behind_since_ == TimePoint{}) {
          behind_since_ = now;
        } else if (now - behind_since_ >= options_.stuck_after) {
          note_error(fmt::format(
              "the watch of {} brought nothing past revision {} while etcd's last write is {}: "
              "starting it again",
              options_.name, health_.revision, last_write));
          kv_->cancel_watch();
          follow_from(health_.revision + 1);
        }
      });
}

bool SharedStore::carry_out(Followed f, std::string_view what) {
  for (const std::string& p : f.problems) {
    ++health_.bad_values;
    note_error(fmt::format("{} under {}: {}", options_.name, options_.prefix, p));
  }
  if (f.changed == 0) {
    revisions_ = std::move(f.revisions);
    return true;
  }
  const ApiChange change = ObjectStore::change_between(cache_.state(), f.next);
  if (auto applied = daemon_.apply(change); !applied) {
    note_error(
        fmt::format("cannot carry out {} of {}: {}", what, options_.name, applied.error().message));
    return false;
  }
  if (auto saved = cache_.follow(std::move(f.next)); !saved) {
    log::error("admin.store: this node's cache of etcd's objects: {}", saved.error().message);
  }
  revisions_ = std::move(f.revisions);
  health_.followed_changes += f.changed;
  log::info("admin.store: {} load balancers changed through {} ({})", f.changed, options_.name,
            what);
  return true;
}

void SharedStore::commit(ApiState next, std::function<void(std::optional<ApiError>)> done) {
  if (!health_.refusing.empty()) {
    ++health_.failed_writes;
    return done(ApiError{503, "the write was refused: " + health_.refusing});
  }
  WritePlan plan = plan_write(cache_.state(), next, revisions_, options_.prefix);
  if (plan.ops.empty()) {
    if (auto saved = cache_.commit(std::move(next)); !saved) {
      return done(ApiError{500, saved.error().message});
    }
    return done(std::nullopt);
  }
  // Kept for the revisions once committed; the arguments' order of evaluation is not the code's.
  std::vector<etcd::Op> ops = plan.ops;
  kv_->txn(
      std::move(plan.compares), std::move(plan.ops),
      [this, alive = alive_, next = std::move(next), ops = std::move(ops),
       lb_ids = std::move(plan.lb_ids), done = std::move(done)](Result<etcd::TxnResult> r) mutable {
        if (!*alive) return;
        if (!r) {
          ++health_.failed_writes;
          health_.reachable = false;
          note_error(fmt::format("a write to {} failed: {}", options_.name, r.error().message));
          return done(ApiError{
              503, fmt::format("The write was not acknowledged: {} did not commit it ({}). "
                               "It may still have been made: read the object before "
                               "trying again.",
                               options_.name, r.error().message)});
        }
        health_.reachable = true;
        if (!r->succeeded) {
          ++health_.conflicts;
          return done(
              ApiError{409, fmt::format("Load Balancer {} is immutable and cannot be updated: "
                                        "another vigil node changed it at the same time. Read it "
                                        "again and retry.",
                                        lb_ids.front())});
        }
        note_committed(ops, r->revision, revisions_);
        if (auto saved = cache_.follow(std::move(next)); !saved) {
          log::error("admin.store: this node's cache of etcd's objects: {}", saved.error().message);
        }
        ++health_.writes;
        done(std::nullopt);
      });
}

void SharedStore::pause(std::string why) {
  paused_ = true;
  kv_->cancel_watch();
  watching_ = false;
  health_.following = false;
  on_retry_ = nullptr;
  retry_timer_->cancel();
  probe_timer_->cancel();
  health_.refusing = std::move(why);
}

void SharedStore::resume() {
  if (!paused_) return;
  paused_ = false;
  health_.refusing.clear();
  start();
}

std::optional<std::string> SharedStore::readiness_problem(WallTime now) const {
  if (!options_.feeds_readyz || health_.following) return std::nullopt;
  const std::string since =
      health_.followed_at == WallTime{}
          ? "never followed"
          : fmt::format("not following for {} s",
                        std::chrono::duration_cast<std::chrono::seconds>(now - health_.followed_at)
                            .count());
  return fmt::format("{} ({}): {}", options_.name, since,
                     health_.last_error.empty() ? "no answer yet" : health_.last_error);
}

StoreHealth SharedStore::health() const {
  StoreHealth h = health_;
  h.waiting = queue_.size();
  return h;
}

}  // namespace vigil::admin
