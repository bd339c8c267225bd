// AdminDaemon: the ControlPlane as the admin API sees it (admin::Daemon), one line per method, so
// that the admin API asks one interface rather than a dozen closures. Owned by the ControlPlane,
// beside the AdminServer it serves; control thread only.
#pragma once

#include "admin/daemon.h"

namespace vigil::daemon {

class ControlPlane;

class AdminDaemon final : public admin::Daemon {
 public:
  explicit AdminDaemon(ControlPlane& control) : control_(control) {}

  std::vector<model::LoadBalancerView> views(const admin::ViewScope& scope) const override;
  uint64_t views_after(const admin::ViewScope& scope, uint64_t cursor, size_t count,
                       std::vector<model::LoadBalancerView>& out) const override;
  Result<void> apply(const admin::ApiChange& change) override;
  Result<std::vector<std::string>> reload() override;
  Result<void> set_override(const std::string& member_id, std::optional<model::AdminOverride> next,
                            std::string_view by) override;
  std::optional<std::string> serving() const override;
  bool stopping() const override;
  Result<int> upgrade() override;
  void list_sessions(std::optional<std::vector<std::string>> member_ids, size_t limit,
                     std::function<void(Result<admin::SessionTable>)> done) override;
  void kill_sessions(const std::vector<std::string>& member_ids,
                     std::function<void(Result<size_t>)> done) override;

 private:
  ControlPlane& control_;
};

}  // namespace vigil::daemon
