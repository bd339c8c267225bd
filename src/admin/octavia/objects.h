// The Octavia objects created through the admin API, as the object store keeps them: values with
// Octavia's field names, nested the way cascades go (load balancer > listeners, pools; pool >
// members, health monitor), so that a cascade delete is erasing one element and the state file
// is one JSON tree. Plain values; control thread only (they live in the ObjectStore).
#pragma once

#include <boost/iterator/iterator_facade.hpp>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "admin/octavia/names.h"
#include "model/admin_override.h"

namespace vigil::admin {

// A refused API request: the HTTP status and Octavia's faultstring.
struct ApiError {
  int status = 400;
  std::string message;
};

template <typename T>
using ApiResult = std::expected<T, ApiError>;

inline std::unexpected<ApiError> api_error(int status, std::string message) {
  return std::unexpected<ApiError>(ApiError{status, std::move(message)});
}

// Fields every Octavia object has. `description` is kept only for the objects that have one in
// Octavia (load balancers, listeners, pools).
struct ApiCommon {
  std::string id;  // random UUIDv4
  std::string name;
  std::string description;
  std::string project_id;
  std::vector<std::string> tags;
  bool admin_state_up = true;
  std::string created_at;  // octavia_time_precise(): "2024-05-01T12:00:00.123456" (UTC)
  std::string updated_at;

  bool operator==(const ApiCommon&) const = default;
};

struct ApiHealthMonitor : ApiCommon {
  std::string type;          // a name of kOctaviaMonitorTypes
  int delay = 0;             // seconds between checks
  int timeout = 0;           // seconds; may exceed delay, as Octavia allows
  int max_retries = 0;       // successes to come back (healthy threshold), 1..10
  int max_retries_down = 3;  // failures to go down (unhealthy threshold), 1..10
  // The HTTP fields are empty (shown as null) for TCP and TLS-HELLO, as in Octavia.
  std::string http_method;
  std::string url_path;
  std::string expected_codes;
  std::optional<double> http_version;  // 1.0 or 1.1
  std::string domain_name;             // the Host header; empty: none

  bool operator==(const ApiHealthMonitor&) const = default;
};

struct ApiMember : ApiCommon {
  std::string address;  // an IP literal
  int protocol_port = 0;
  int weight = 1;  // 0..256; 0 drains
  bool backup = false;
  std::string monitor_address;  // empty: none
  int monitor_port = 0;         // 0: none
  std::string subnet_id;        // stored and shown; vigil has no subnets to check it against

  bool operator==(const ApiMember&) const = default;
};

// Octavia's session_persistence; vigil takes SOURCE_IP alone (fields.cc says why).
struct ApiSessionPersistence {
  std::string type;
  std::optional<int64_t> persistence_timeout;  // seconds; unset: 360, as Octavia's
  std::string persistence_granularity;         // a netmask; empty: the whole address
  bool operator==(const ApiSessionPersistence&) const = default;
};

struct ApiPool : ApiCommon {
  std::string protocol{kOctaviaTcp};
  std::string lb_algorithm{octavia_name(model::Algorithm::kRoundRobin)};
  std::optional<ApiSessionPersistence> session_persistence;
  std::optional<ApiHealthMonitor> healthmonitor;
  std::vector<ApiMember> members;

  bool operator==(const ApiPool&) const = default;
};

struct ApiListener : ApiCommon {
  std::string protocol{kOctaviaTcp};
  int protocol_port = 0;
  int connection_limit = -1;    // -1: unlimited (vigil's default cap, 50000)
  std::string default_pool_id;  // a pool of the same load balancer; empty: none
  // Milliseconds; unset: vigil's defaults (idle 1 h, which long watches need; connect 1 s).
  std::optional<int64_t> timeout_client_data;
  std::optional<int64_t> timeout_member_connect;
  std::optional<int64_t> timeout_member_data;
  std::optional<int64_t> timeout_tcp_inspect;
  // Octavia's form ("10.0.0.0/8"), each once; empty: every client.
  std::vector<std::string> allowed_cidrs;

  bool operator==(const ApiListener&) const = default;
};

struct ApiLoadBalancer : ApiCommon {
  std::string
      vip_address;  // an address of this host (ACTIVE_STANDBY: of the pair); listeners bind it
  std::string vip_subnet_id;
  std::string vip_network_id;
  std::string topology{kOctaviaSingle};  // one of kOctaviaTopologies
  std::vector<ApiListener> listeners;
  std::vector<ApiPool> pools;

  bool operator==(const ApiLoadBalancer&) const = default;
};

// The load balancers of a state, in creation order, each shared with the copies of the state
// until one of them changes it (copy on write): an API write copies the state, changes one load
// balancer of its copy and commits it, and at ten thousand load balancers copying them all took
// longer than the rest of the write. Reading gives const objects; edit() gives a load balancer of
// this state alone, copied first when another state shares it. The pointers themselves are held
// in chunks of kChunk, shared the same way: a copy of the state copies a pointer per chunk, not
// one per load balancer (ten thousand atomic counts to raise, and to drop again when the old
// state goes, were 15 % of the control thread under writes at ten thousand).
//
// Finding the load balancer that holds an id (holder_of()) would walk all of them, seventy
// thousand objects at ten thousand load balancers, and a write looks up several ids. So the
// copies of a state share hints: for each id, the load balancer it was in, and where that one
// stood, as of the last remember(). The hints are never trusted, only tried: holder_of() looks in
// the load balancers changed since (few), then where the hints say, and walks them all only when
// a hint was wrong (an object deleted, or deleted and made again elsewhere with its id). An id the
// hints never saw is in none of the unchanged load balancers, so it is found or known absent
// without a walk, as a new object's requested id is.
class LoadBalancers {
  using Ptr = std::shared_ptr<const ApiLoadBalancer>;

 public:
  static constexpr size_t kChunk = 64;

  class const_iterator : public boost::iterator_facade<const_iterator, const ApiLoadBalancer,
                                                       boost::random_access_traversal_tag> {
   public:
    const_iterator() = default;
    const_iterator(const LoadBalancers* lbs, size_t i) : lbs_(lbs), i_(i) {}

   private:
    friend class boost::iterator_core_access;
    const ApiLoadBalancer& dereference() const { return (*lbs_)[i_]; }
    bool equal(const const_iterator& other) const { return i_ == other.i_; }
    void increment() { ++i_; }
    void decrement() { --i_; }
    void advance(std::ptrdiff_t n) {
      i_ = static_cast<size_t>(static_cast<std::ptrdiff_t>(i_) + n);
    }
    std::ptrdiff_t distance_to(const const_iterator& other) const {
      return static_cast<std::ptrdiff_t>(other.i_) - static_cast<std::ptrdiff_t>(i_);
    }

    const LoadBalancers* lbs_ = nullptr;
    size_t i_ = 0;
  };

  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const ApiLoadBalancer& operator[](size_t i) const { return *ptr(i); }
  const ApiLoadBalancer& at(size_t i) const;
  const ApiLoadBalancer& back() const { return *ptr(size_ - 1); }

  ApiLoadBalancer& edit(size_t i);
  void push_back(ApiLoadBalancer lb);
  void erase(size_t i);
  // Whether the i-th is the very object `other`'s j-th is: unchanged since one was copied from
  // the other, whatever else changed.
  bool shares(size_t i, const LoadBalancers& other, size_t j) const {
    return ptr(i) == other.ptr(j);
  }

  // The index of the load balancer that holds the object `id`, for which holds(lb) is true (and
  // false for every other: ids are unique in a state), or none.
  template <typename Holds>
  std::optional<size_t> holder_of(std::string_view id, const Holds& holds) const;
  // Hints where the objects of the load balancers changed since the last call are, and forgets
  // that they changed. Control thread only, as the hints are shared; called by the object store
  // for each state it commits or loads, which no write changes afterwards (writes copy it).
  void remember();
  // How many ids the hints hold, deleted ones included (bounded by remember()).
  size_t hinted() const;

 private:
  struct Hints;
  // Where the hints say the holder of `id` is: known is false when they never saw `id`; at is
  // empty when the load balancer they name is gone. Corrects the position they keep.
  struct Hint {
    bool known = false;
    std::optional<size_t> at;
  };
  Hint hint(std::string_view id) const;

  using Chunk = std::vector<Ptr>;
  const Ptr& ptr(size_t i) const { return (*chunks_[i / kChunk])[i % kChunk]; }
  // The i-th pointer of this state alone: its chunk is copied first when another state shares it.
  Ptr& own_ptr(size_t i);

  std::vector<std::shared_ptr<Chunk>> chunks_;  // all full but the last
  size_t size_ = 0;
  std::vector<size_t> changed_;   // indices edited or added since remember(), ascending
  std::shared_ptr<Hints> hints_;  // null: none yet
};

template <typename Holds>
std::optional<size_t> LoadBalancers::holder_of(std::string_view id, const Holds& holds) const {
  for (size_t i : changed_) {
    if (holds((*this)[i])) return i;
  }
  const Hint h = hint(id);
  if (!h.known) return std::nullopt;
  if (h.at && holds((*this)[*h.at])) return h.at;
  for (size_t i = 0; i < size_; ++i) {  // the hint was wrong
    if (holds((*this)[i])) return i;
  }
  return std::nullopt;
}

// A project's quotas (PUT /v2/lbaas/quotas/{project_id}), as Octavia's quota table: a limit on
// the number of objects of each kind the project may have; none: Octavia's default, -1
// (unlimited).
struct ApiQuota {
  std::optional<int> load_balancer, listener, member, pool, health_monitor, l7policy, l7rule;
  bool operator==(const ApiQuota&) const = default;
};

// Everything the API created. Lookups take an id and give pointers into the state (valid until
// the state changes), or nulls when there is no such object. The non-const lookups give objects
// to change: the load balancer that holds the one found is this state's own from then on
// (LoadBalancers::edit()).
struct ApiState {
  LoadBalancers loadbalancers;
  // Operators' overrides (drain, maint, weight) of any member, the config file's too, by member
  // id: kept here so that they survive a reload and a restart. ControlPlane drops those of
  // members that no longer exist.
  using Overrides = std::map<std::string, model::AdminOverride, std::less<>>;
  Overrides member_overrides;
  // Quotas by project id: only projects someone gave quotas to.
  using Quotas = std::map<std::string, ApiQuota, std::less<>>;
  Quotas quotas;

  template <typename T>
  struct Found {
    ApiLoadBalancer* lb = nullptr;
    T* item = nullptr;
    ApiPool* pool = nullptr;  // for members and monitors: their pool
    explicit operator bool() const { return item != nullptr; }
  };

  ApiLoadBalancer* find_lb(std::string_view id);
  Found<ApiListener> find_listener(std::string_view id);
  Found<ApiPool> find_pool(std::string_view id);
  Found<ApiMember> find_member(std::string_view id);
  Found<ApiHealthMonitor> find_monitor(std::string_view id);
  // Lookups that change nothing (the read paths'): the object as it is, or null.
  const ApiLoadBalancer* lb(std::string_view id) const;
  const ApiListener* listener(std::string_view id) const;
  const ApiPool* pool(std::string_view id) const;
  const ApiMember* member(std::string_view id) const;
  const ApiHealthMonitor* monitor(std::string_view id) const;
  // True when some object of the state has this id, of whatever kind.
  bool contains(std::string_view id) const;
  // The load balancer that holds the object with this id (itself, for a load balancer), or null.
  // `kind`, when given, is the object's collection ("pools", "members", ...): only those are
  // looked at, a seventh of the objects.
  const ApiLoadBalancer* holder(std::string_view id, std::string_view kind = {}) const;
};

// Every object of a state by id, made in one walk: for a reader that looks up many objects (a list
// of ten thousand, each shown with what the store keeps of it), where each lookup would otherwise
// walk them all. Valid while the state is unchanged.
class ApiIndex {
 public:
  explicit ApiIndex(const ApiState& state);

  const ApiLoadBalancer* lb(std::string_view id) const { return find(lbs_, id); }
  const ApiListener* listener(std::string_view id) const { return find(listeners_, id); }
  const ApiPool* pool(std::string_view id) const { return find(pools_, id); }
  const ApiMember* member(std::string_view id) const { return find(members_, id); }
  const ApiHealthMonitor* monitor(std::string_view id) const { return find(monitors_, id); }

 private:
  template <typename T>
  using Map = std::unordered_map<std::string_view, const T*>;
  template <typename T>
  static const T* find(const Map<T>& map, std::string_view id) {
    const auto it = map.find(id);
    return it == map.end() ? nullptr : it->second;
  }

  Map<ApiLoadBalancer> lbs_;
  Map<ApiListener> listeners_;
  Map<ApiPool> pools_;
  Map<ApiMember> members_;
  Map<ApiHealthMonitor> monitors_;
};

}  // namespace vigil::admin
