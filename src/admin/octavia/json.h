// The Octavia v2 shapes of vigil's objects (field names as in the Octavia API reference), so that
// `openstack loadbalancer ...` and Octavia clients read them unchanged. Pure functions; any thread.
#pragma once

#include <boost/json/fwd.hpp>
#include <span>
#include <string>
#include <string_view>

#include "model/status_tree.h"

namespace vigil::admin::octavia {

// A load balancer's vip_port_id: Octavia always has one, vigil has no ports; stable, a UUIDv5
// of the load balancer's id.
std::string vip_port_id(std::string_view lb_id);

boost::json::object loadbalancer(const model::LoadBalancerView& lb);
boost::json::object listener(const model::LoadBalancerView& lb, const model::ListenerView& l);
boost::json::object pool(const model::LoadBalancerView& lb, const model::PoolView& p);
// Octavia's member fields plus `vigil_check` (the last check; clients ignore unknown keys).
boost::json::object member(const model::LoadBalancerView& lb, const model::MemberView& m);
// Requires: p.config.health_monitor is set.
boost::json::object health_monitor(const model::LoadBalancerView& lb, const model::PoolView& p);
// {"statuses": {"loadbalancer": {..., "listeners": [{..., "pools": [{..., "health_monitor"?,
// "members": [...]}]}]}}}
boost::json::object status_tree(const model::LoadBalancerView& lb);
// {"stats": {...}} of the load balancer (sums of its listeners) or of one listener: the data
// plane's counters (proxy::ListenerStats), request_errors being connections refused at
// max_connections or closed for want of a member.
boost::json::object stats(std::span<const model::ListenerView> listeners);

}  // namespace vigil::admin::octavia
