// Redirects: carries out the co-located listeners' nftables redirects (redirect_from): it takes
// each listener's facts, lets redirect::decide() choose the rules, and rewrites this process's
// table only when they change. Owned by the ControlPlane; control thread only. The workers
// neither wait for it nor know of it: a slow or failing nftables never touches accept, pick,
// connect or pump.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/error.h"
#include "base/string_map.h"
#include "daemon/runtime.h"
#include "model/status_tree.h"
#include "redirect/plan.h"
#include "redirect/rule_table.h"

namespace vigil::daemon {

class Redirects {
 public:
  // Opens the table the first time a listener has redirect_from (the daemon's NftTable); a
  // process without the key opens no netfilter socket.
  using OpenTable = std::function<Result<std::unique_ptr<redirect::RuleTable>>()>;
  // A failed attempt is tried again this long after, at the next update(), and each further
  // failure waits twice as long, up to kRetryAtMost: libnftables prints its own line to stderr at
  // each refusal ("Operation not permitted (you must be root)"), which a retry every 5 s would
  // repeat in the journal forever.
  static constexpr Duration kRetryAfter = std::chrono::seconds(5);
  static constexpr Duration kRetryAtMost = std::chrono::minutes(5);

  // Requires: `clock` outlives this.
  Redirects(const Clock& clock, OpenTable open) : clock_(clock), open_(std::move(open)) {}

  // The facts of every listener with redirect_from, now. Cheap when nothing changed: the plan is
  // compared, and the table touched only when its rules differ from what it holds.
  void update(std::vector<redirect::ListenerFacts> facts);
  // Listener `id`'s redirect; none without redirect_from.
  std::optional<model::RedirectView> view(const std::string& listener_id) const;
  // The last failure to carry out the plan, empty when the table holds what it should.
  const std::string& error() const { return error_; }

 private:
  void carry_out();
  void log_changes(const redirect::Plan& before) const;

  const Clock& clock_;
  OpenTable open_;
  std::unique_ptr<redirect::RuleTable> table_;  // opened at first need, kept for good
  redirect::Plan plan_;
  std::vector<redirect::Rule> held_;  // what the table holds (all or nothing per attempt)
  std::string error_;
  TimePoint retry_at_{};
  Duration retry_pause_ = kRetryAfter;  // before the next attempt after a failure
  StringMap<size_t> at_;                // plan_.listeners' index by listener id
};

// The facts of the listeners of `configured` (the config file's: the API has no redirect_from)
// that have redirect_from, in the file's order (stable: equal facts, equal plans); `listeners` are
// the running ones. Walks the file's listeners only, not the API's ten thousand, at every publish.
// `stopping`: why no listener serves any more, when vigil stops.
std::vector<redirect::ListenerFacts> redirect_facts(
    std::span<const model::Listener> configured,
    const std::unordered_map<std::string, ListenerRuntime>& listeners,
    const std::unordered_map<std::string, std::unique_ptr<PoolRuntime>>& pools,
    const std::optional<std::string>& stopping);

// This process's nftables table, vigil_<pid>: a process that `vigil upgrade` starts has its own
// beside the old one's until that one exits.
Result<std::unique_ptr<redirect::RuleTable>> open_redirect_table();

}  // namespace vigil::daemon
