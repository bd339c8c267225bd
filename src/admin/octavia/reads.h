// The Octavia v2 subset under /v2/lbaas and /v2.0/lbaas, reads: lists with filters on any scalar
// field, shows, the status tree and stats, over every load balancer (the config file's and the
// API's). Writes are in writes.h. Pure; called by route() on the control thread, and for whole
// lists on a render thread, from copies (routes.cc).
#pragma once

#include <boost/json/fwd.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "admin/http.h"
#include "admin/octavia/object_store.h"
#include "admin/target.h"
#include "model/status_tree.h"

namespace vigil::admin {

// The objects the Octavia routes see, found by id (or by name, for curl users) across load
// balancers, and rendered in Octavia's shape with the store's fields for API objects.
class Catalog {
 public:
  // How what the store keeps of an object is looked up. A walk of the state reads its lookup
  // hints, which the control thread updates at each write: only there, and only for the first
  // few lookups (a single object's GET never pays for an index). Off the control thread, from a
  // copy of the state, the index is made at once and nothing walks.
  enum class Lookup { kWalkFirst, kIndexNow };

  // `lbs` are the merged views (views.h); `store` may be null. Both must outlive the catalog.
  // `file_project` is the project_id shown on the config file's objects (admin.octavia_project).
  Catalog(const std::vector<model::LoadBalancerView>& lbs, const ObjectStore* store,
          std::string_view file_project = {})
      : Catalog(lbs, store != nullptr ? &store->state() : nullptr, file_project) {}
  // The same from the API's state (null: none), which must outlive the catalog.
  Catalog(const std::vector<model::LoadBalancerView>& lbs, const ApiState* state,
          std::string_view file_project = {}, Lookup lookup = Lookup::kWalkFirst);

  template <typename T>
  struct Hit {
    const model::LoadBalancerView* lb = nullptr;
    const T* item = nullptr;
    explicit operator bool() const { return item != nullptr; }
  };
  Hit<model::LoadBalancerView> loadbalancer(std::string_view key) const;
  Hit<model::ListenerView> listener(std::string_view key) const;
  Hit<model::PoolView> pool(std::string_view key) const;
  Hit<model::MemberView> member(const model::PoolView& pool, std::string_view key) const;
  Hit<model::PoolView> monitored_pool(std::string_view key) const;  // by monitor id or name

  // The object behind any id, of whatever kind; null when none.
  const model::LoadBalancerView* owner_of(std::string_view id) const;
  // True for a load balancer created through the API.
  bool from_api(const model::LoadBalancerView& lb) const;
  // 409: "objects from FILE are read-only through the API: edit the file and reload".
  Response read_only(const model::LoadBalancerView& lb) const;

  const std::vector<model::LoadBalancerView>& lbs() const { return lbs_; }
  const ApiState* state() const { return state_; }

  boost::json::object render(const model::LoadBalancerView& lb) const;
  boost::json::object render(const model::LoadBalancerView& lb, const model::ListenerView& l) const;
  boost::json::object render(const model::LoadBalancerView& lb, const model::PoolView& p) const;
  boost::json::object render(const model::LoadBalancerView& lb, const model::MemberView& m) const;
  boost::json::object render_monitor(const model::LoadBalancerView& lb,
                                     const model::PoolView& p) const;
  boost::json::object status_tree(const model::LoadBalancerView& lb) const;

 private:
  // Sets the project of an object of the config file.
  void file_project(boost::json::object& o) const;
  // What the store keeps of the objects shown, by id: looked up by a walk for the first few, by
  // an index made then for the rest, so that a list of N costs N lookups rather than N walks of N.
  template <typename T>
  const T* stored(std::string_view id, const T* (ApiIndex::*indexed)(std::string_view) const,
                  const T* (ApiState::*walked)(std::string_view) const) const;

  const std::vector<model::LoadBalancerView>& lbs_;
  const ApiState* state_;
  std::string file_project_;
  mutable int lookups_ = 0;
  mutable std::shared_ptr<const ApiIndex> index_;
};

// GET on the Octavia paths. Requires: target.segments starts with "v2" or "v2.0", then "lbaas".
Response route_octavia(const Target& target, const Catalog& catalog);

}  // namespace vigil::admin
