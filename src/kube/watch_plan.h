// WatchPlan: what a follower of EndpointSlices does next, as client-go's reflector decides it:
// list, then watch from the list's resourceVersion; a watch that ends is resumed from the last
// version seen; 410 Gone (the version was compacted away) lists again at once; any other failure
// waits a backoff with jitter (1 s doubling to 30 s) before it tries again. It also keeps what
// the operator is shown: whether the members are the API's, and since when they may be stale.
// Pure: the shell (members_source.h) tells it what happened and carries out what it returns.
#pragma once

#include <optional>
#include <string>

#include "base/clock.h"

namespace vigil::kube {

struct Step {
  enum class Kind { kList, kWatch, kWait };
  Kind kind = Kind::kList;
  Duration wait{};  // kWait: how long, then list (kList) again
};

enum class SourceState {
  kBootstrap,  // the API has not answered yet: the file's members
  kFollowing,  // the API's members, and a watch on them
  kStale,      // the API's last known members, while it cannot be read
};
const char* to_string(SourceState s);

class WatchPlan {
 public:
  static constexpr Duration kFirstBackoff = std::chrono::seconds(1);
  static constexpr Duration kMaxBackoff = std::chrono::seconds(30);

  Step start() { return {Step::Kind::kList}; }
  // A list answered (200 and a slice list that parsed).
  Step listed(const std::string& resource_version, TimePoint now);
  // A watch event moved the version on (any type but ERROR).
  void saw(const std::string& resource_version);
  // The watch ended the way watches end: its timeout passed, or the server closed it after
  // answering 200. Resume from the last version.
  Step watch_ended(TimePoint now);
  // 410 Gone, as an answer or an ERROR event: the version is too old. List again at once.
  Step expired(TimePoint now);
  // Anything else: no connection, a TLS or HTTP error, an answer that did not parse. `jitter`
  // in [0, 1): where in [backoff/2, backoff] the wait falls.
  Step failed(std::string error, TimePoint now, double jitter);

  SourceState state() const { return state_; }
  const std::string& resource_version() const { return resource_version_; }
  const std::string& last_error() const { return last_error_; }
  // Since when the API has not been read: the first failure or expiry since the last list that
  // answered. None while all is well.
  std::optional<TimePoint> trouble_since() const { return trouble_since_; }
  int failures() const { return failures_; }

 private:
  void trouble(TimePoint now);

  SourceState state_ = SourceState::kBootstrap;
  std::string resource_version_;
  std::string last_error_;
  std::optional<TimePoint> trouble_since_;
  int failures_ = 0;  // in a row; the backoff doubles with each
};

}  // namespace vigil::kube
