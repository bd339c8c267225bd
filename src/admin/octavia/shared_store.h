// SharedStore: the Octavia API's objects kept in etcd (admin.store type etcd), so that every node
// of a pair or fleet serves the same ones and a write acknowledged by one node outlives it.
//
// etcd holds the truth (etcd_layout.h); the node's ObjectStore (its state file) is its cache:
// what it runs and answers from, and what it serves after a restart while etcd is unreachable.
// - A write (writes.cc) is decided and applied as with a file, then committed to etcd in one
//   guarded transaction (commit()), and answered only once etcd has committed it; a conflict
//   answers 409, an etcd that does not commit answers 503, and the daemon's change is undone.
// - Changes made through other nodes come through a watch of the prefix and are carried out
//   like a write (follow_events); at start, after a compaction or when the watch cannot resume,
//   the whole prefix is read again (follow_range), without a restart and without cutting a
//   session of a load balancer that did not change.
// - Writes and followed changes run one at a time, in order (enqueue()): each is decided on the
//   state the one before left.
// - While etcd is unreachable the data plane and the checks go on, reads answer from the cache
//   and say how old it is (health()), writes are refused, and everything catches up by itself.
// Control thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admin/daemon.h"
#include "admin/octavia/etcd_follow.h"
#include "admin/octavia/etcd_layout.h"
#include "admin/octavia/object_store.h"
#include "base/clock.h"
#include "base/error.h"
#include "base/timer.h"

namespace vigil::admin {

// What the shared store asks of etcd: etcd::Client (daemon/shared_store_start.cc), or a fake in
// tests. Callbacks run on the control thread, never inside the call.
class EtcdKv {
 public:
  virtual ~EtcdKv() = default;
  virtual void range_prefix(std::string prefix,
                            std::function<void(Result<etcd::RangeResult>)> done) = 0;
  virtual void txn(std::vector<etcd::Compare> compares, std::vector<etcd::Op> ops,
                   std::function<void(Result<etcd::TxnResult>)> done) = 0;
  virtual void watch_prefix(std::string prefix, int64_t start_revision,
                            std::function<void(etcd::WatchBatch)> on_batch,
                            std::function<void(etcd::WatchEnd)> on_end) = 0;
  virtual void cancel_watch() = 0;
};

// The store's state for /v1/status, /metrics, `vigil status` and the page.
struct StoreHealth {
  std::string name;           // "etcd http://10.0.0.5:2379,... prefix /vigil/"
  std::string prefix;         // admin.store.prefix: with `name`, which store the node shares
  bool reachable = false;     // the last request to etcd was answered
  bool following = false;     // the watch runs and nothing etcd holds is missing here
  int64_t revision = 0;       // the last revision of etcd carried out here
  int64_t etcd_revision = 0;  // etcd's revision when it last answered
  WallTime followed_at{};     // when this node last knew it had all of etcd's changes
  std::string last_error;     // empty: none since start
  WallTime last_error_at{};
  std::string refusing;           // why writes are refused now; empty: they are taken
  uint64_t writes = 0;            // committed by etcd
  uint64_t conflicts = 0;         // 409: the load balancer changed elsewhere first
  uint64_t failed_writes = 0;     // 503: etcd did not commit
  uint64_t followed_changes = 0;  // load balancers put or removed through other nodes
  uint64_t bad_values = 0;        // keys whose value is not vigil's, left alone
  uint64_t resyncs = 0;           // whole reads of the prefix
  size_t waiting = 0;             // writes and changes waiting their turn
};

class SharedStore {
 public:
  // A unit of work that runs alone: it calls `done` once when it has finished, now or later.
  using Job = std::function<void(std::function<void()> done)>;

  struct Options {
    std::string prefix;                        // admin.store.prefix
    std::string name;                          // for messages: "etcd at http://127.0.0.1:2379"
    Duration retry = std::chrono::seconds(1);  // after an error, before the next try
    Duration probe = std::chrono::seconds(1);  // between the checks that etcd answers
    // How long etcd may be ahead of this node while the watch says nothing before the watch is
    // started again: a stream that a dead connection holds open.
    Duration stuck_after = std::chrono::seconds(3);
    size_t max_waiting = 1000;  // writes waiting beyond it are refused (503)
    bool feeds_readyz = false;  // admin.store.readyz
  };

  SharedStore(std::unique_ptr<EtcdKv> kv, ObjectStore& cache, Daemon& daemon, const Clock& clock,
              const WallClock& wall, TimerSource& timers, Options options);
  ~SharedStore();
  SharedStore(const SharedStore&) = delete;
  SharedStore& operator=(const SharedStore&) = delete;

  // Reads the prefix whole, carries it out, then follows the watch; retries until etcd answers.
  void start();

  // Runs `job` once every job enqueued before it has finished. False (the job is dropped) when
  // max_waiting wait already.
  bool enqueue(Job job);

  // Commits a write that turns the cache's state into `next`, which the daemon already runs:
  // `done` gets nothing once etcd has committed it and the cache holds it, or the error to answer
  // (409, 503), and then the cache and etcd are as they were. Only from inside a job.
  void commit(ApiState next, std::function<void(std::optional<ApiError>)> done);

  StoreHealth health() const;
  // admin.store.readyz: why /readyz must answer 503 now (this node does not follow etcd), or none.
  std::optional<std::string> readiness_problem(WallTime now) const;

  // Stops following etcd and refuses writes (503, `why`) until resume(), which reads etcd's
  // objects whole again: while a new process (vigil upgrade) keeps the cache, this one must not.
  void pause(std::string why);
  void resume();

 private:
  void read_whole();
  void follow_from(int64_t revision);
  void take_range(etcd::RangeResult range);
  void take_batch(const etcd::WatchBatch& batch);
  void watch_ended(const etcd::WatchEnd& end);
  void probe();
  // Carries out what etcd holds (`f`) through the daemon and the cache; false when the daemon
  // refused it (the reason is the store's last error).
  bool carry_out(Followed f, std::string_view what);
  void note_error(std::string message);
  void run_next();
  // Queues `step`, which finishes when it returns, behind the writes and changes before it.
  void in_turn(std::function<void()> step);
  void after(Duration d, std::function<void()> f);

  std::unique_ptr<EtcdKv> kv_;
  ObjectStore& cache_;
  Daemon& daemon_;
  const Clock& clock_;
  const WallClock& wall_;
  Options options_;
  std::unique_ptr<Timer> retry_timer_;
  std::function<void()> on_retry_;
  std::unique_ptr<Timer> probe_timer_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);

  std::deque<Job> queue_;
  bool running_ = false;
  bool draining_ = false;

  Revisions revisions_;
  bool watching_ = false;
  bool paused_ = false;
  bool probing_ = false;
  TimePoint behind_since_{};  // when a probe first saw etcd ahead of the watch; {}: not behind
  StoreHealth health_;
};

}  // namespace vigil::admin
