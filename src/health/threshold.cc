#include "health/threshold.h"

#include <algorithm>

namespace vigil::health {

using model::Health;

Threshold::Threshold(int healthy_threshold, int unhealthy_threshold)
    : rise_(std::max(1, healthy_threshold)), fall_(std::max(1, unhealthy_threshold)) {}

void Threshold::resume(Health health, int successes, int failures) {
  health_ = health;
  successes_ = std::max(0, successes);
  failures_ = std::max(0, failures);
}

bool Threshold::record(bool ok) {
  if (ok) {
    ++successes_;
    failures_ = 0;
  } else {
    ++failures_;
    successes_ = 0;
  }
  const Health before = health_;
  if (health_ == Health::kUnchecked) {
    health_ = ok ? Health::kUp : Health::kDown;
  } else if (health_ == Health::kUp && failures_ >= fall_) {
    health_ = Health::kDown;
  } else if (health_ == Health::kDown && successes_ >= rise_) {
    health_ = Health::kUp;
  }
  return health_ != before;
}

bool Threshold::transitioning() const {
  switch (health_) {
    case Health::kUnchecked:
      return true;
    case Health::kUp:
      return failures_ > 0;
    case Health::kDown:
      return successes_ > 0;
  }
  return false;
}

}  // namespace vigil::health
