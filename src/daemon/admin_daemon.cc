#include "daemon/admin_daemon.h"

#include "daemon/announced_reload.h"
#include "daemon/control_plane.h"

namespace vigil::daemon {

std::vector<model::LoadBalancerView> AdminDaemon::views(const admin::ViewScope& scope) const {
  return control_.views(scope);
}

uint64_t AdminDaemon::views_after(const admin::ViewScope& scope, uint64_t cursor, size_t count,
                                  std::vector<model::LoadBalancerView>& out) const {
  return control_.views_after(scope, cursor, count, out);
}

Result<void> AdminDaemon::apply(const admin::ApiChange& change) {
  return control_.apply_api(change);
}

// systemd hears of a reload the API asks for as of one SIGHUP asks for.
Result<std::vector<std::string>> AdminDaemon::reload() { return announced_reload(control_); }

Result<void> AdminDaemon::set_override(const std::string& member_id,
                                       std::optional<model::AdminOverride> next,
                                       std::string_view by) {
  return control_.pools().set_override(member_id, std::move(next), by);
}

// Not the watchdog's answer (serving_problem() alone): a restart does not free a port another
// process holds, but a load balancer in front of vigil should not send it traffic either.
std::optional<std::string> AdminDaemon::serving() const {
  return control_.serving_problem().or_else([this] { return control_.unbound_listeners(); });
}

bool AdminDaemon::stopping() const { return control_.stopping(); }

Result<int> AdminDaemon::upgrade() { return control_.upgrade(); }

void AdminDaemon::list_sessions(std::optional<std::vector<std::string>> member_ids, size_t limit,
                                std::function<void(Result<admin::SessionTable>)> done) {
  control_.list_sessions(std::move(member_ids), limit, std::move(done));
}

void AdminDaemon::kill_sessions(const std::vector<std::string>& member_ids,
                                std::function<void(Result<size_t>)> done) {
  control_.kill_sessions(member_ids, std::move(done));
}

}  // namespace vigil::daemon
