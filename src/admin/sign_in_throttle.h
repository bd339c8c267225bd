// Wrong tokens at the status page's /login, counted per source: the first kFree are free, and
// after them every attempt from that source must wait a delay that doubles with each further
// wrong token (1 s, 2 s, ... up to kMaxDelay). An attempt made while waiting is answered 429
// without being checked, so a guesser gets about one guess a minute, not thousands a second. A
// right token clears its source; a source silent for kForget starts afresh. Bounded: past
// kMaxSources the source seen longest ago is forgotten. Pure (the caller passes the time);
// owned by AdminServer, control thread only.
#pragma once

#include <chrono>
#include <string>
#include <unordered_map>

#include "model/admin_override.h"

namespace vigil::admin {

class SignInThrottle {
 public:
  static constexpr int kFree = 5;
  static constexpr std::chrono::seconds kMaxDelay{60};
  static constexpr std::chrono::minutes kForget{15};
  static constexpr size_t kMaxSources = 4096;

  // How long `source` must still wait before its next attempt is checked; zero: it may try.
  std::chrono::seconds wait(const std::string& source, model::WallTime now) const;
  // A wrong token from `source`. True when it is the one that starts the waits (log it then,
  // and not for every guess).
  bool failed(const std::string& source, model::WallTime now);
  void succeeded(const std::string& source) { sources_.erase(source); }
  size_t size() const { return sources_.size(); }

 private:
  struct Entry {
    int failures = 0;
    model::WallTime last{};   // the last wrong token
    model::WallTime until{};  // no attempt is checked before this
  };
  void make_room(model::WallTime now);
  std::unordered_map<std::string, Entry> sources_;
};

}  // namespace vigil::admin
