// How Pools finds its members: by id (index_: API calls, connect failures, names) and by check
// tag (checked_: ten thousand check results a second). Both are brought up to date for the pools
// an adopt() changed only, as are the health checker's targets: a write to one pool costs what
// that pool costs, however many members the others have.
#include "daemon/pools.h"

namespace vigil::daemon {
namespace {

// HAProxy's check-send-proxy: the server's own PROXY version, v1 when it sends none.
model::ProxyProtocol check_proxy_header(const PoolRuntime& p, const MemberRuntime& m) {
  if (!p.config.health_monitor || !p.config.health_monitor->send_proxy) {
    return model::ProxyProtocol::kOff;
  }
  const model::ProxyProtocol traffic = m.config.proxy_protocol.value_or(p.config.proxy_protocol);
  return traffic == model::ProxyProtocol::kOff ? model::ProxyProtocol::kV1 : traffic;
}

}  // namespace

// The members of a pool about to be made anew or removed: their ids leave the index and the
// checker (unless the pool has them again), and their tags are free for others.
void Pools::forget_members(PoolRuntime& pool, Changed& out) {
  for (MemberRuntime& m : pool.members) {
    out.gone_members.push_back(m.id);
    if (m.check_tag == kNoCheckTag) continue;
    checked_[m.check_tag] = {nullptr, 0};
    free_tags_.push_back(m.check_tag);
    m.check_tag = kNoCheckTag;
  }
}

uint32_t Pools::take_tag(MemberRef member) {
  if (free_tags_.empty()) {
    checked_.push_back(member);
    return static_cast<uint32_t>(checked_.size() - 1);
  }
  const uint32_t tag = free_tags_.back();
  free_tags_.pop_back();
  checked_[tag] = member;
  return tag;
}

void Pools::update_checks(const Changed& changed) {
  std::vector<health::Target> targets;
  for (PoolRuntime* p : changed.pools) {
    if (!p->config.health_monitor) continue;
    for (size_t i = 0; i < p->members.size(); ++i) {
      MemberRuntime& m = p->members[i];
      if (!m.config.enabled) continue;
      m.check_tag = take_tag({p, i});
      targets.push_back({.member_id = m.id,
                         .tag = m.check_tag,
                         .monitor = *p->config.health_monitor,
                         .address = m.config.monitor_address.empty() ? m.config.address
                                                                     : m.config.monitor_address,
                         .port = m.config.monitor_port ? m.config.monitor_port : m.config.port,
                         .proxy_header = check_proxy_header(*p, m),
                         .resumed = resumed_check(m, p->config)});
    }
  }
  checks_.change_targets(std::move(targets), changed.gone_members);
}

void Pools::start_checks(const Changed& changed) {
  update_checks(changed);
  carried_.clear();  // applied to the members it named; a later apply must not bring it back
  resolve_names(changed.pools);
}

}  // namespace vigil::daemon
