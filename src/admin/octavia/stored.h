// The Octavia fields only the object store knows (description, project_id, tags, admin_state_up,
// timestamps, the VIP, the listener's limits as given), written over what json.h renders
// from a view, for objects created through the API. Pure; any thread.
#pragma once

#include <boost/json/fwd.hpp>

#include "admin/octavia/objects.h"

namespace vigil::admin::octavia {

void stored_loadbalancer(boost::json::object& o, const ApiLoadBalancer& lb);
void stored_listener(boost::json::object& o, const ApiListener& l);
void stored_pool(boost::json::object& o, const ApiPool& p);
void stored_member(boost::json::object& o, const ApiMember& m);
void stored_monitor(boost::json::object& o, const ApiHealthMonitor& hm);

}  // namespace vigil::admin::octavia
