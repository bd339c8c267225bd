// `openstack loadbalancer member set --weight N / --disable / --enable` on a member of the config
// file: a PUT that Octavia would store becomes the member's runtime override (member_admin.h),
// as `vigil member weight|maint|ready` sets it. Control thread, called by route_octavia_write().
#pragma once

#include <string_view>

#include "admin/http.h"
#include "admin/octavia/reads.h"
#include "admin/target.h"

namespace vigil::admin {

// PUT .../pools/{pool}/members/{member} of a file member: 200 with the member as a GET shows it;
// 400 for a bad body; 409 (read-only) for any field but weight and admin_state_up.
Response set_file_member(const Request& request, const Target& target, const Catalog& catalog,
                         const RouteContext& ctx, const Catalog::Hit<model::PoolView>& pool,
                         std::string_view member_key);

}  // namespace vigil::admin
