// The control plane's side of GET /v1/sessions and POST /v1/sessions/kill: the workers own their
// sessions, so each is asked through its mailbox and answers on its own thread; the answers are
// gathered on the control thread (never waited for there) under a deadline, so that a wedged
// worker gives a clear error rather than a request that hangs.
#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <unordered_map>

#include "base/log.h"
#include "daemon/control_plane.h"
#include "daemon/gathering.h"

namespace vigil::daemon {

void ControlPlane::list_sessions(std::optional<std::vector<std::string>> member_ids, size_t limit,
                                 std::function<void(Result<admin::SessionTable>)> done) {
  std::shared_ptr<const std::vector<const proxy::BackendStats*>> filter;
  if (member_ids) {
    auto members = std::make_shared<std::vector<const proxy::BackendStats*>>();
    for (const std::string& id : *member_ids) {
      if (const MemberRuntime* m = pools_->member(id)) members->push_back(m->stats.get());
    }
    filter = std::move(members);
  }
  auto finish = [this, limit,
                 done = std::move(done)](Result<std::vector<proxy::SessionListing>> parts) {
    if (!parts) return done(std::unexpected(parts.error()));
    // Named now, not when asked: a session's member is found by its counters.
    std::unordered_map<const proxy::BackendStats*, std::pair<std::string, std::string>> names;
    for (const auto& [id, pool] : pools_->all()) {
      for (const MemberRuntime& m : pool->members) {
        names[m.stats.get()] = {pool->config.name, m.config.name};
      }
    }
    admin::SessionTable table;
    for (const proxy::SessionListing& part : *parts) {
      table.total += part.total;
      for (const proxy::SessionInfo& s : part.sessions) {
        const auto name = names.find(s.member.get());
        table.rows.push_back({.id = fmt::format("{}-{}", part.worker, s.id),
                              .listener = s.listener,
                              .pool = name == names.end() ? "" : name->second.first,
                              .member = name == names.end() ? "" : name->second.second,
                              .client = s.client,
                              .member_address = s.member_address,
                              .age_seconds = std::chrono::duration<double>(s.age).count(),
                              .bytes_in = s.bytes_in,
                              .bytes_out = s.bytes_out});
      }
    }
    std::ranges::stable_sort(table.rows, std::greater<>{}, &admin::SessionRow::age_seconds);
    if (table.rows.size() > limit) table.rows.resize(limit);
    done(std::move(table));
  };
  auto g = gathering<proxy::SessionListing>(workers_.size(), clock_, timer_source_, finish);
  for (auto& w : workers_) {
    w->list_sessions(filter, limit, [this, g](proxy::SessionListing l) {
      boost::asio::post(io_, [g, l = std::move(l)]() mutable { g->add(std::move(l)); });
    });
  }
}

void ControlPlane::kill_sessions(const std::vector<std::string>& member_ids,
                                 std::function<void(Result<size_t>)> done) {
  std::vector<const MemberRuntime*> members;
  for (const std::string& id : member_ids) {
    if (const MemberRuntime* m = pools_->member(id)) members.push_back(m);
  }
  std::string what;
  for (const MemberRuntime* m : members) what += (what.empty() ? "" : ", ") + m->config.name;
  auto finish = [what, done = std::move(done)](Result<std::vector<size_t>> counts) {
    if (!counts) return done(std::unexpected(counts.error()));
    size_t killed = 0;
    for (size_t n : *counts) killed += n;
    log::info("admin API: closed {} sessions of member {}", killed, what);
    done(killed);
  };
  auto g = gathering<size_t>(workers_.size() * members.size(), clock_, timer_source_, finish);
  for (const MemberRuntime* m : members) {
    for (auto& w : workers_) {
      w->close_member_sessions(
          m->stats, [this, g](size_t n) { boost::asio::post(io_, [g, n] { g->add(n); }); },
          proxy::SessionEnd::kKilled);
    }
  }
}

}  // namespace vigil::daemon
