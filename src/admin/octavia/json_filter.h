// The filters of Octavia's (and Neutron's) list calls: `?name=x&operating_status=ONLINE` keeps
// the objects whose field has that value. Pure; any thread.
#pragma once

#include <boost/json/fwd.hpp>

#include "admin/target.h"

namespace vigil::admin {

// True when every query parameter naming a scalar field of `o` matches its value (numbers and
// booleans compare by their text, "true" and "True" alike). `x_id` also matches an element
// {"id": ...} of the list `xs` (`loadbalancer_id` against `loadbalancers`), as Octavia filters
// by relation. Parameters that name no field (`fields`, `limit`, `sort`, ...) are ignored.
bool matches_filters(const boost::json::object& o, const Target& target);

}  // namespace vigil::admin
