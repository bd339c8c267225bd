#include "testing/apisim/slice_watchers.h"

#include <utility>

#include "testing/apisim/objects.h"

namespace vigil::apisim {

bool SliceFilter::matches(const Slice& slice) const {
  return labels.matches({{"kubernetes.io/service-name", std::string(kServiceName)}}) &&
         fields.matches({{"metadata.name", slice.name},
                         {"metadata.namespace", std::string(kServiceNamespace)}});
}

SliceWatcher::SliceWatcher(SliceWatchers& watchers, SliceFilter filter, std::function<void()> wake)
    : watchers_(watchers), filter_(std::move(filter)), wake_(std::move(wake)) {
  watchers_.open_.insert(this);
}

SliceWatcher::~SliceWatcher() { watchers_.open_.erase(this); }

void SliceWatchers::publish(const std::vector<SliceEvent>& events) {
  for (SliceWatcher* watcher : open_) {
    bool queued = false;
    for (const SliceEvent& event : events) {
      if (!watcher->filter_.matches(event.slice)) continue;
      watcher->pending_ += endpoint_slice_event(event);
      queued = true;
    }
    if (queued && watcher->wake_) watcher->wake_();
  }
}

std::size_t SliceWatchers::break_all() {
  for (SliceWatcher* watcher : open_) {
    watcher->broken_ = true;
    if (watcher->wake_) watcher->wake_();
  }
  return open_.size();
}

}  // namespace vigil::apisim
