#include "admin/octavia/objects.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <numeric>
#include <stdexcept>

namespace vigil::admin {

// Ids by their 64-bit hash rather than the text: a third of the memory, and a collision only
// makes a hint wrong, which holder_of() finds out.
struct LoadBalancers::Hints {
  std::unordered_map<uint64_t, uint64_t> holder;  // an object's id > its load balancer's id
  std::unordered_map<uint64_t, size_t> at;        // a load balancer's id > its index, last seen
  size_t made_from = 0;                           // objects in the state they were made whole from
};

namespace {

uint64_t id_hash(std::string_view id) { return std::hash<std::string_view>{}(id); }

template <typename F>
void for_each_id(const ApiLoadBalancer& lb, const F& f) {
  f(lb.id);
  for (const ApiListener& l : lb.listeners) f(l.id);
  for (const ApiPool& p : lb.pools) {
    f(p.id);
    if (p.healthmonitor) f(p.healthmonitor->id);
    for (const ApiMember& m : p.members) f(m.id);
  }
}

}  // namespace

const ApiLoadBalancer& LoadBalancers::at(size_t i) const {
  if (i >= size_) throw std::out_of_range("LoadBalancers::at");
  return (*this)[i];
}

LoadBalancers::Ptr& LoadBalancers::own_ptr(size_t i) {
  std::shared_ptr<Chunk>& chunk = chunks_[i / kChunk];
  // As for the load balancers in edit(): only the control thread copies states, and a render
  // thread's copy that lets go of the chunk at worst makes a copy that was not needed.
  if (chunk.use_count() > 1) {
    auto copy = std::make_shared<Chunk>();
    copy->reserve(kChunk);
    copy->assign(chunk->begin(), chunk->end());
    chunk = std::move(copy);
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return (*chunk)[i % kChunk];
}

ApiLoadBalancer& LoadBalancers::edit(size_t i) {
  if (i >= size_) throw std::out_of_range("LoadBalancers::edit");
  Ptr& lb = own_ptr(i);
  // Control thread only: only it copies states, so the count cannot grow under us; a render
  // thread's copy (an Octavia list, routes.cc) may drop it meanwhile, which at worst makes a copy
  // that was not needed. Alone, the object is this state's: it was made by push_back() or a copy
  // below, never const, so changing it is allowed, once the fence has ordered this after the
  // reads of whichever thread let go of it last.
  if (lb.use_count() > 1) lb = std::make_shared<ApiLoadBalancer>(*lb);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (const auto at = std::ranges::lower_bound(changed_, i); at == changed_.end() || *at != i) {
    changed_.insert(at, i);
  }
  return const_cast<ApiLoadBalancer&>(*lb);
}

void LoadBalancers::push_back(ApiLoadBalancer lb) {
  if (size_ % kChunk == 0) {
    chunks_.push_back(std::make_shared<Chunk>());
    chunks_.back()->reserve(kChunk);
  } else if (chunks_.back().use_count() > 1) {
    own_ptr(size_ - 1);  // the last chunk is this state's before it grows
  }
  chunks_.back()->push_back(std::make_shared<ApiLoadBalancer>(std::move(lb)));
  changed_.push_back(size_++);
}

void LoadBalancers::erase(size_t i) {
  if (i >= size_) throw std::out_of_range("LoadBalancers::erase");
  // Every later one moves down a place: the chunks from i's on become this state's.
  for (size_t j = i; j + 1 < size_; ++j) {
    Ptr next = ptr(j + 1);  // taken before own_ptr() may copy the chunk it is in
    own_ptr(j) = std::move(next);
  }
  own_ptr(size_ - 1);
  chunks_.back()->pop_back();
  if (chunks_.back()->empty()) chunks_.pop_back();
  --size_;
  std::erase(changed_, i);
  for (size_t& c : changed_) c -= c > i ? 1 : 0;
}

void LoadBalancers::remember() {
  // Hints of deleted objects stay until the hints are made anew, which happens once they could
  // be more than twice what the state holds, so that their memory stays bounded. Made anew, they
  // are this state's alone: the copies that shared the old ones keep them.
  const bool anew = !hints_ || hints_->holder.size() > 2 * hints_->made_from + 1024;
  if (anew) {
    hints_ = std::make_shared<Hints>();
    changed_.resize(size_);
    std::iota(changed_.begin(), changed_.end(), size_t{0});
  }
  for (size_t i : changed_) {
    const ApiLoadBalancer& it = (*this)[i];
    const uint64_t lb = id_hash(it.id);
    hints_->at[lb] = i;
    for_each_id(it, [&](const std::string& id) { hints_->holder[id_hash(id)] = lb; });
  }
  if (anew) hints_->made_from = hints_->holder.size();
  changed_.clear();
}

size_t LoadBalancers::hinted() const { return hints_ ? hints_->holder.size() : 0; }

LoadBalancers::Hint LoadBalancers::hint(std::string_view id) const {
  if (!hints_) return {};
  const auto holder = hints_->holder.find(id_hash(id));
  if (holder == hints_->holder.end()) return {};
  const auto at = hints_->at.find(holder->second);
  if (at == hints_->at.end()) return {.known = true};
  // Deletions since move a load balancer down; it is most likely just below where it was.
  const auto is_it = [&](size_t j) { return id_hash((*this)[j].id) == holder->second; };
  size_t& was = at->second;
  if (was < size_ && is_it(was)) return {.known = true, .at = was};
  for (size_t j = std::min(was, size_); j-- > 0;) {
    if (is_it(j)) return {.known = true, .at = was = j};
  }
  for (size_t j = was + 1; j < size_; ++j) {
    if (is_it(j)) return {.known = true, .at = was = j};
  }
  return {.known = true};
}

namespace {

// A lookup walks every object of every load balancer (ten thousand of them, seventy thousand
// objects). Ids are random UUIDs, which differ in their first character fifteen times in sixteen:
// testing it first spares most of the calls that compare the rest.
bool same_id(const std::string& a, std::string_view b) {
  return a.size() == b.size() && (b.empty() || a.front() == b.front()) && a == b;
}

ApiState::Found<ApiListener> listener_in(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiListener& l : lb.listeners) {
    if (same_id(l.id, id)) return {.lb = &lb, .item = &l};
  }
  return {};
}

ApiState::Found<ApiPool> pool_in(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiPool& p : lb.pools) {
    if (same_id(p.id, id)) return {.lb = &lb, .item = &p, .pool = &p};
  }
  return {};
}

ApiState::Found<ApiMember> member_in(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiPool& p : lb.pools) {
    for (ApiMember& m : p.members) {
      if (same_id(m.id, id)) return {.lb = &lb, .item = &m, .pool = &p};
    }
  }
  return {};
}

ApiState::Found<ApiHealthMonitor> monitor_in(ApiLoadBalancer& lb, std::string_view id) {
  for (ApiPool& p : lb.pools) {
    if (p.healthmonitor && same_id(p.healthmonitor->id, id)) {
      return {.lb = &lb, .item = &*p.healthmonitor, .pool = &p};
    }
  }
  return {};
}

ApiState::Found<ApiLoadBalancer> lb_in(ApiLoadBalancer& lb, std::string_view id) {
  if (same_id(lb.id, id)) return {.lb = &lb, .item = &lb};
  return {};
}

// The index of the load balancer `in` finds the object in. `in` only reads here: the cast lets
// one finder serve both the search and, on the load balancer found, the change.
template <typename T>
std::optional<size_t> holder_index(const LoadBalancers& lbs, std::string_view id,
                                   ApiState::Found<T> (*in)(ApiLoadBalancer&, std::string_view)) {
  return lbs.holder_of(id, [&](const ApiLoadBalancer& lb) {
    return bool(in(const_cast<ApiLoadBalancer&>(lb), id));
  });
}

template <typename T>
ApiState::Found<T> find_to_change(LoadBalancers& lbs, std::string_view id,
                                  ApiState::Found<T> (*in)(ApiLoadBalancer&, std::string_view)) {
  const std::optional<size_t> i = holder_index(lbs, id, in);
  return i ? in(lbs.edit(*i), id) : ApiState::Found<T>{};
}

}  // namespace

ApiLoadBalancer* ApiState::find_lb(std::string_view id) {
  return find_to_change(loadbalancers, id, lb_in).item;
}

ApiState::Found<ApiListener> ApiState::find_listener(std::string_view id) {
  return find_to_change(loadbalancers, id, listener_in);
}

ApiState::Found<ApiPool> ApiState::find_pool(std::string_view id) {
  return find_to_change(loadbalancers, id, pool_in);
}

ApiState::Found<ApiMember> ApiState::find_member(std::string_view id) {
  return find_to_change(loadbalancers, id, member_in);
}

ApiState::Found<ApiHealthMonitor> ApiState::find_monitor(std::string_view id) {
  return find_to_change(loadbalancers, id, monitor_in);
}

namespace {

// The object `in` finds, read only.
template <typename T>
const T* find_to_read(const LoadBalancers& lbs, std::string_view id,
                      ApiState::Found<T> (*in)(ApiLoadBalancer&, std::string_view)) {
  const std::optional<size_t> i = holder_index(lbs, id, in);
  return i ? in(const_cast<ApiLoadBalancer&>(lbs[*i]), id).item : nullptr;
}

}  // namespace

const ApiLoadBalancer* ApiState::lb(std::string_view id) const {
  return find_to_read(loadbalancers, id, lb_in);
}

const ApiListener* ApiState::listener(std::string_view id) const {
  return find_to_read(loadbalancers, id, listener_in);
}

const ApiPool* ApiState::pool(std::string_view id) const {
  return find_to_read(loadbalancers, id, pool_in);
}

const ApiMember* ApiState::member(std::string_view id) const {
  return find_to_read(loadbalancers, id, member_in);
}

const ApiHealthMonitor* ApiState::monitor(std::string_view id) const {
  return find_to_read(loadbalancers, id, monitor_in);
}

bool ApiState::contains(std::string_view id) const { return holder(id) != nullptr; }

const ApiLoadBalancer* ApiState::holder(std::string_view id, std::string_view kind) const {
  const auto in = [&](ApiLoadBalancer& lb) -> bool {
    if (kind == "loadbalancers") return bool(lb_in(lb, id));
    if (kind == "listeners") return bool(listener_in(lb, id));
    if (kind == "pools") return bool(pool_in(lb, id));
    if (kind == "members") return bool(member_in(lb, id));
    if (kind == "healthmonitors") return bool(monitor_in(lb, id));
    return lb_in(lb, id) || listener_in(lb, id) || pool_in(lb, id) || member_in(lb, id) ||
           monitor_in(lb, id);
  };
  const auto i = loadbalancers.holder_of(
      id, [&](const ApiLoadBalancer& lb) { return in(const_cast<ApiLoadBalancer&>(lb)); });
  return i ? &loadbalancers[*i] : nullptr;  // read only, as holder_index()
}

ApiIndex::ApiIndex(const ApiState& state) {
  for (const ApiLoadBalancer& lb : state.loadbalancers) {
    lbs_.emplace(lb.id, &lb);
    for (const ApiListener& l : lb.listeners) listeners_.emplace(l.id, &l);
    for (const ApiPool& p : lb.pools) {
      pools_.emplace(p.id, &p);
      if (p.healthmonitor) monitors_.emplace(p.healthmonitor->id, &*p.healthmonitor);
      for (const ApiMember& m : p.members) members_.emplace(m.id, &m);
    }
  }
}

}  // namespace vigil::admin
