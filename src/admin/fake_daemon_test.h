// FakeDaemon: an admin::Daemon for the admin and CLI tests. It runs `lbs` (the sample view unless
// a test sets others) and shows them whatever the scope, as the Daemon contract allows; it
// records what the routes asked and carried out, for the tests to assert on. One thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "admin/daemon.h"
#include "admin/sample_view_test.h"

namespace vigil::admin::testing {

class FakeDaemon : public Daemon {
 public:
  // A views() call, its strings copied.
  struct Asked {
    bool file = true;
    bool api = true;
    bool file_members = true;
    bool history = true;
    std::optional<std::string> lb_id;
    std::optional<std::string> pool_key;
  };

  std::vector<model::LoadBalancerView> views(const ViewScope& scope) const override {
    asked.push_back(
        {.file = scope.file,
         .api = scope.api,
         .file_members = scope.file_members,
         .history = scope.history,
         .lb_id = scope.lb_id ? std::optional<std::string>(*scope.lb_id) : std::nullopt,
         .pool_key = scope.pool_key ? std::optional<std::string>(*scope.pool_key) : std::nullopt});
    return lbs;
  }
  Result<void> apply(const ApiChange& change) override {
    if (!refuse.empty()) return fail(refuse);
    applied.push_back(change);
    return {};
  }
  Result<std::vector<std::string>> reload() override {
    ++reloads;
    return reload_result;
  }
  // Shown in the views at once, as the daemon shows it.
  Result<void> set_override(const std::string& member_id, std::optional<model::AdminOverride> next,
                            std::string_view) override {
    ++override_calls;
    if (!override_error.empty()) return fail(override_error);
    overrides.emplace_back(member_id, next);
    for (model::LoadBalancerView& lb : lbs) {
      for (model::PoolView& p : lb.pools) {
        for (model::MemberView& m : p.members) {
          if (m.id == member_id) m.admin_override = next;
        }
      }
    }
    return {};
  }
  std::optional<std::string> serving() const override { return problem; }
  bool stopping() const override { return is_stopping; }
  Result<int> upgrade() override { return upgrade_result; }
  // Answers at once.
  void list_sessions(std::optional<std::vector<std::string>> member_ids, size_t limit,
                     std::function<void(Result<SessionTable>)> done) override {
    listed = std::move(member_ids);
    list_limit = limit;
    done(table);
  }
  // Closes two sessions per member.
  void kill_sessions(const std::vector<std::string>& member_ids,
                     std::function<void(Result<size_t>)> done) override {
    killed = member_ids;
    done(member_ids.size() * 2);
  }

  // What it runs and answers; tests change them.
  std::vector<model::LoadBalancerView> lbs{sample_view()};
  std::optional<std::string> problem;  // serving(): why not; none: it serves
  bool is_stopping = false;
  std::string refuse;          // apply() refuses with this when set
  std::string override_error;  // set_override() fails with this when set
  Result<std::vector<std::string>> reload_result = std::vector<std::string>{};
  Result<int> upgrade_result = 4242;
  Result<SessionTable> table = SessionTable{};

  // What was asked and done.
  mutable std::vector<Asked> asked;
  std::vector<ApiChange> applied;
  int override_calls = 0;  // failed ones too
  std::vector<std::pair<std::string, std::optional<model::AdminOverride>>> overrides;  // made
  int reloads = 0;
  std::optional<std::optional<std::vector<std::string>>> listed;
  size_t list_limit = 0;
  std::optional<std::vector<std::string>> killed;
};

}  // namespace vigil::admin::testing
