// GET /: a self-contained HTML status page for people (no scripts, no external assets; every
// text escaped), refreshing itself every 5 s. Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "admin/auth.h"
#include "model/status_tree.h"

namespace vigil::admin {

// Who looks at the page. Drain/ready buttons need a session of the write token: a form proves it
// is the page's own with the session's CSRF token, which a header-token request does not have.
struct PageUser {
  Access access = Access::kNone;
  bool signed_in = false;  // through /login: the header offers to sign out
  std::string_view csrf;   // the session's; empty: no forms

  bool buttons() const { return access == Access::kWrite && signed_in && !csrf.empty(); }
};

// Every load balancer, one after the other (the config file's first).
std::string status_page(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now,
                        const PageUser& user = {});
std::string status_page(const model::LoadBalancerView& lb, model::WallTime now,
                        const PageUser& user = {});

// One pool's member table (status_page_members.cc).
std::string members_table(const model::PoolView& pool, model::WallTime now, const PageUser& user);

// `<span class="st ERROR">ERROR</span>`: a status in its colour.
std::string status_badge(model::OperatingStatus s);

// `&`, `<`, `>`, `"` and `'` as character references.
std::string html_escape(std::string_view text);

}  // namespace vigil::admin
