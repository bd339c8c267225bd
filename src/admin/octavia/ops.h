// Creating, updating and deleting Octavia objects in an ApiState: the request body's fields
// (fields.h), the relations between objects, Octavia's conflicts (409) and cascades. Each
// operation works on a state the caller copied; on an error the copy is simply dropped. Pure
// apart from the context's callbacks; control thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin/octavia/objects.h"

namespace vigil::admin {

// A listening address already taken by a listener outside the state (the config file's).
struct TakenPort {
  std::string address;  // empty: every address
  int port = 0;
  std::string owner;  // "listener api of /etc/vigil/vigil.yaml", for the message
};

struct OpContext {
  std::string now;  // Octavia's form of the current time, for created_at and updated_at
  // The caller's project (X-Project-Id, else admin.octavia_project): a new load balancer's
  // project_id unless the body names one. Its children take the load balancer's, as in Octavia.
  std::string project_id;
  std::function<std::string()> new_id;
  // True when vip_address is an address of this host.
  std::function<bool(std::string_view)> is_local_address;
  std::vector<TakenPort> taken;  // ports of the config file's listeners
  // For an id the state does not know: the 409 to answer when it names an object of the config
  // file (a relation to it, such as a member for a file's pool), or nullopt for a plain 404.
  std::function<std::optional<ApiError>(std::string_view id)> read_only;
};

// Creates return the new object's id. `body` is the raw request body.
ApiResult<std::string> create_loadbalancer(ApiState& s, std::string_view body, const OpContext& c);
ApiResult<std::string> create_listener(ApiState& s, std::string_view body, const OpContext& c);
ApiResult<std::string> create_pool(ApiState& s, std::string_view body, const OpContext& c);
ApiResult<std::string> create_member(ApiState& s, std::string_view pool_id, std::string_view body,
                                     const OpContext& c);
ApiResult<std::string> create_healthmonitor(ApiState& s, std::string_view body, const OpContext& c);

// Updates and deletes take the object's id (the caller resolved names); 404 when unknown.
ApiResult<void> update_loadbalancer(ApiState& s, std::string_view id, std::string_view body,
                                    const OpContext& c);
ApiResult<void> update_listener(ApiState& s, std::string_view id, std::string_view body,
                                const OpContext& c);
ApiResult<void> update_pool(ApiState& s, std::string_view id, std::string_view body,
                            const OpContext& c);
ApiResult<void> update_member(ApiState& s, std::string_view id, std::string_view body,
                              const OpContext& c);
ApiResult<void> update_healthmonitor(ApiState& s, std::string_view id, std::string_view body,
                                     const OpContext& c);

// Without `cascade`, a load balancer that still has listeners or pools is refused (400, as
// Octavia does). Deleting a pool deletes its members and monitor and clears the default_pool_id
// of the listeners that used it; deleting a listener leaves its pool.
ApiResult<void> delete_loadbalancer(ApiState& s, std::string_view id, bool cascade);
ApiResult<void> delete_listener(ApiState& s, std::string_view id);
ApiResult<void> delete_pool(ApiState& s, std::string_view id);
ApiResult<void> delete_member(ApiState& s, std::string_view id);
ApiResult<void> delete_healthmonitor(ApiState& s, std::string_view id);

}  // namespace vigil::admin
