#include "admin/octavia/stored.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "admin/octavia/names.h"

namespace vigil::admin::octavia {
namespace {

namespace json = boost::json;

json::value text_or_null(const std::string& s) {
  return s.empty() ? json::value() : json::value(s);
}

void common(json::object& o, const ApiCommon& c, bool has_description) {
  o["name"] = c.name;
  if (has_description) o["description"] = c.description;
  o["project_id"] = c.project_id;
  o["tenant_id"] = c.project_id;  // Octavia's older name, still sent on every object
  o["admin_state_up"] = c.admin_state_up;
  o["created_at"] = c.created_at;
  o["updated_at"] = c.updated_at;
  o["tags"] = json::array(c.tags.begin(), c.tags.end());
}

}  // namespace

void stored_loadbalancer(json::object& o, const ApiLoadBalancer& lb) {
  common(o, lb, true);
  o["vip_address"] = lb.vip_address;
  o["vip_subnet_id"] = lb.vip_subnet_id;
  o["vip_network_id"] = lb.vip_network_id;
  o["vigil_topology"] = lb.topology;
}

void stored_listener(json::object& o, const ApiListener& l) {
  common(o, l, true);
  o["connection_limit"] = l.connection_limit;
  // Unset timeouts show the values vigil uses, which the view already renders.
  if (l.timeout_client_data) o["timeout_client_data"] = *l.timeout_client_data;
  if (l.timeout_member_connect) o["timeout_member_connect"] = *l.timeout_member_connect;
  if (l.timeout_member_data) o["timeout_member_data"] = *l.timeout_member_data;
  if (l.timeout_tcp_inspect) o["timeout_tcp_inspect"] = *l.timeout_tcp_inspect;
}

void stored_pool(json::object& o, const ApiPool& p) { common(o, p, true); }

void stored_member(json::object& o, const ApiMember& m) {
  common(o, m, false);
  o["subnet_id"] = text_or_null(m.subnet_id);
}

void stored_monitor(json::object& o, const ApiHealthMonitor& hm) {
  common(o, hm, false);
  o["delay"] = hm.delay;
  o["timeout"] = hm.timeout;
  o["http_version"] = hm.http_version ? json::value(*hm.http_version) : json::value();
  o["domain_name"] = text_or_null(hm.domain_name);
  // A disabled monitor is not run: Octavia shows it OFFLINE.
  o["operating_status"] = octavia_name(hm.admin_state_up ? model::OperatingStatus::kOnline
                                                         : model::OperatingStatus::kOffline);
}

}  // namespace vigil::admin::octavia
