// SliceWatchers: the open EndpointSlice watches, so that a change reaches each at once and a test
// can break them all. Kept in SimState, used on the server's one thread only. Free of Asio: a
// watch wakes its session through the function it registers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "testing/apisim/endpoint_slices.h"
#include "testing/apisim/selector.h"

namespace vigil::apisim {

// Which slices a list or watch is about: ?labelSelector=, and ?fieldSelector= plus the namespace
// of the path as fields (metadata.name, metadata.namespace).
struct SliceFilter {
  Selector labels;
  Selector fields;
  bool matches(const Slice& slice) const;
};

class SliceWatchers;

// One open watch, registered for as long as it lives.
class SliceWatcher {
 public:
  SliceWatcher(SliceWatchers& watchers, SliceFilter filter, std::function<void()> wake);
  ~SliceWatcher();
  SliceWatcher(const SliceWatcher&) = delete;
  SliceWatcher& operator=(const SliceWatcher&) = delete;

  // The event lines published since the last call.
  std::string take_pending() { return std::exchange(pending_, {}); }
  bool has_pending() const { return !pending_.empty(); }
  // Set by SliceWatchers::break_all: the session ends the watch abruptly.
  bool broken() const { return broken_; }

 private:
  friend class SliceWatchers;
  SliceWatchers& watchers_;
  SliceFilter filter_;
  std::function<void()> wake_;
  std::string pending_;
  bool broken_ = false;
};

class SliceWatchers {
 public:
  // Queues each event on every watch whose filter selects its slice, and wakes those watches.
  void publish(const std::vector<SliceEvent>& events);
  // Marks every open watch broken and wakes it. Returns how many there were.
  std::size_t break_all();
  std::size_t size() const { return open_.size(); }

 private:
  friend class SliceWatcher;
  std::unordered_set<SliceWatcher*> open_;
};

}  // namespace vigil::apisim
