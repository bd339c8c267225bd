#include "daemon/api_members.h"

#include "kube/member_merge.h"

namespace vigil::daemon {
namespace {

// The same source, wherever the file writes it: a key moved to another line keeps its members.
bool same_source(const model::KubernetesMembers& a, const model::KubernetesMembers& b) {
  return a.service_namespace == b.service_namespace && a.service == b.service && a.port == b.port &&
         a.kubeconfig == b.kubeconfig;
}

}  // namespace

ApiMembers::ApiMembers(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
                       std::function<void()> changed)
    : io_(io), clock_(clock), timers_(timers), changed_(std::move(changed)) {}

model::Config ApiMembers::running(const model::Config& file) const {
  model::Config out = file;
  for (model::Pool& pool : out.pools) {
    if (!pool.members_from) continue;
    auto it = sources_.find(pool.name);
    // A source made for other settings (the file changed them) is not this pool's any more.
    if (it == sources_.end() || !same_source(it->second->settings(), *pool.members_from) ||
        it->second->members().empty()) {
      continue;
    }
    pool = kube::with_api_members(pool, it->second->members(), it->second->long_stale());
  }
  return out;
}

void ApiMembers::follow(const model::Config& file) {
  std::map<std::string, std::unique_ptr<kube::MembersSource>> next;
  for (const model::Pool& pool : file.pools) {
    if (!pool.members_from) continue;
    auto it = sources_.find(pool.name);
    if (it != sources_.end() && same_source(it->second->settings(), *pool.members_from)) {
      next[pool.name] = std::move(it->second);
      continue;
    }
    next[pool.name] = std::make_unique<kube::MembersSource>(
        io_, clock_, timers_, *pool.members_from,
        [this](const std::vector<kube::Endpoint>&) { changed_(); });
  }
  sources_ = std::move(next);  // the others stop here: no callback of theirs comes after
}

std::optional<model::MembersSourceView> ApiMembers::view(const std::string& pool_name) const {
  auto it = sources_.find(pool_name);
  if (it == sources_.end()) return std::nullopt;
  const kube::SourceStatus s = it->second->status();
  model::MembersSourceView v{.state = kube::to_string(s.state),
                             .server = s.server,
                             .resource_version = s.resource_version,
                             .last_error = s.last_error,
                             .members = s.members,
                             .lists = s.lists,
                             .expiries = s.expiries,
                             .failures = s.failures,
                             .changes = s.changes};
  if (s.trouble_since) {
    v.unconfirmed_seconds = std::chrono::duration<double>(clock_.now() - *s.trouble_since).count();
  }
  return v;
}

}  // namespace vigil::daemon
