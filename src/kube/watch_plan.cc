#include "kube/watch_plan.h"

#include <algorithm>

namespace vigil::kube {

const char* to_string(SourceState s) {
  switch (s) {
    case SourceState::kBootstrap:
      return "bootstrap";
    case SourceState::kFollowing:
      return "following";
    case SourceState::kStale:
      return "stale";
  }
  return "?";
}

Step WatchPlan::listed(const std::string& resource_version, TimePoint) {
  resource_version_ = resource_version;
  state_ = SourceState::kFollowing;
  failures_ = 0;
  last_error_.clear();
  trouble_since_.reset();
  return {Step::Kind::kWatch};
}

void WatchPlan::saw(const std::string& resource_version) {
  if (!resource_version.empty()) resource_version_ = resource_version;
  failures_ = 0;
}

Step WatchPlan::watch_ended(TimePoint) { return {Step::Kind::kWatch}; }

Step WatchPlan::expired(TimePoint now) {
  // Not a failure of the API: it forgot a version this follower held. The members stay as they
  // are until the list answers.
  resource_version_.clear();
  if (state_ == SourceState::kFollowing) trouble(now);
  return {Step::Kind::kList};
}

Step WatchPlan::failed(std::string error, TimePoint now, double jitter) {
  last_error_ = std::move(error);
  trouble(now);
  ++failures_;
  // 1 s, 2 s, 4 s ... 30 s: a cluster of nodes whose API went away does not come back to it in
  // step (the jitter), nor hammer it while it starts.
  Duration backoff = kFirstBackoff;
  for (int i = 1; i < failures_ && backoff < kMaxBackoff; ++i) backoff *= 2;
  backoff = std::min(backoff, kMaxBackoff);
  const double share = 0.5 + 0.5 * std::clamp(jitter, 0.0, 1.0);
  return {Step::Kind::kWait, std::chrono::duration_cast<Duration>(backoff * share)};
}

void WatchPlan::trouble(TimePoint now) {
  if (state_ == SourceState::kFollowing) state_ = SourceState::kStale;
  if (!trouble_since_) trouble_since_ = now;
}

}  // namespace vigil::kube
