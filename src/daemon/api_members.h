// ApiMembers: the members_from sources of the file's pools, and the file's load balancer as it
// runs with them: a pool whose source has listed members runs with those (kube/member_merge.h),
// any other with the file's own. A change of the API's members calls `changed`, and the owner
// applies running() again, as a reload would (members that stay keep their health and sessions).
// Control thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/timer.h"
#include "kube/members_source.h"
#include "model/config.h"
#include "model/status_tree.h"

namespace vigil::daemon {

class ApiMembers {
 public:
  ApiMembers(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
             std::function<void()> changed);

  // `file` with the API's members in the pools that follow one and have heard from it.
  model::Config running(const model::Config& file) const;
  // Follows the pools of `file` that name members_from, once it runs: a source for each new
  // pool (or one whose members_from changed; it starts again from the file's members), none
  // for pools gone or that dropped it. Sources that stay keep their members.
  void follow(const model::Config& file);
  // What status and metrics show of pool `pool_name`'s source; none when it follows none.
  std::optional<model::MembersSourceView> view(const std::string& pool_name) const;

 private:
  boost::asio::io_context& io_;
  const Clock& clock_;
  TimerSource& timers_;
  std::function<void()> changed_;
  std::map<std::string, std::unique_ptr<kube::MembersSource>> sources_;  // by pool name
};

}  // namespace vigil::daemon
