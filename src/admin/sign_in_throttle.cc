#include "admin/sign_in_throttle.h"

#include <algorithm>

namespace vigil::admin {

std::chrono::seconds SignInThrottle::wait(const std::string& source, model::WallTime now) const {
  const auto it = sources_.find(source);
  if (it == sources_.end() || it->second.until <= now) return std::chrono::seconds(0);
  // Rounded up: a client that waits what it was told is checked.
  return std::chrono::ceil<std::chrono::seconds>(it->second.until - now);
}

bool SignInThrottle::failed(const std::string& source, model::WallTime now) {
  auto it = sources_.find(source);
  if (it != sources_.end() && now - it->second.last >= kForget) {
    sources_.erase(it);
    it = sources_.end();
  }
  if (it == sources_.end()) {
    make_room(now);
    it = sources_.emplace(source, Entry{}).first;
  }
  Entry& e = it->second;
  ++e.failures;
  e.last = now;
  const int over = e.failures - kFree;
  if (over <= 0) return false;
  // 1 s after the first wrong token past the free ones, doubling up to kMaxDelay.
  const std::chrono::seconds delay =
      over >= 7 ? kMaxDelay : std::min(kMaxDelay, std::chrono::seconds(int64_t{1} << (over - 1)));
  e.until = now + delay;
  return over == 1;
}

void SignInThrottle::make_room(model::WallTime now) {
  if (sources_.size() < kMaxSources) return;
  std::erase_if(sources_, [&](const auto& kv) { return now - kv.second.last >= kForget; });
  if (sources_.size() < kMaxSources) return;
  sources_.erase(
      std::ranges::min_element(sources_, {}, [](const auto& kv) { return kv.second.last; }));
}

}  // namespace vigil::admin
