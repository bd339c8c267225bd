// ControlPlane: starting the session sync with the other nodes of `peers:` (daemon/peer_sync.h)
// and giving it what it asks of this process: its credentials, the workers' sessions, the
// tickler, and the addresses this host holds.
#include <unistd.h>

#include <algorithm>
#include <boost/asio/post.hpp>

#include "admin/token_files.h"
#include "base/log.h"
#include "daemon/control_plane.h"
#include "net/interfaces.h"
#include "peers/tls.h"

namespace vigil::daemon {

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// The token, or the TLS context; an error names the file and, for TLS, the config's file:line.
Result<PeerSync::Auth> peer_auth(const model::PeersAuth& auth) {
  if (auth.tls) {
    auto context = peers::tls_context(*auth.tls);
    if (!context) {
      return fail(auth.tls->where.file + ":" + std::to_string(auth.tls->where.line) + ": " +
                  context.error().message);
    }
    return PeerSync::Auth{.token = {}, .tls = std::move(*context)};
  }
  auto token = admin::read_token_file("peers_auth.token_file", auth.token_file, true);
  if (!token) return std::unexpected(token.error());
  return PeerSync::Auth{.token = std::move(*token), .tls = nullptr};
}

}  // namespace

Result<void> ControlPlane::start_peer_sync() {
  if (process_.peers.empty()) return {};
  auto self = find_self(process_.peers, process_.peer_name, host_name());
  if (!self) return std::unexpected(self.error());
  auto auth = peer_auth(process_.peers_auth);
  if (!auth) return std::unexpected(auth.error());
  PeerSync::Hooks hooks{
      .gather =
          [this](std::function<void(std::vector<proxy::SessionChanges>)> done) {
            struct Tally {
              size_t pending = 0;
              std::vector<proxy::SessionChanges> changes;
              std::function<void(std::vector<proxy::SessionChanges>)> done;
            };
            auto tally = std::make_shared<Tally>(
                Tally{.pending = workers_.size(), .changes = {}, .done = std::move(done)});
            if (workers_.empty()) return tally->done({});
            for (auto& w : workers_) {
              w->session_changes([this, tally](proxy::SessionChanges c) {
                boost::asio::post(io_, [tally, c = std::move(c)]() mutable {
                  tally->changes.push_back(std::move(c));
                  if (--tally->pending == 0) tally->done(std::move(tally->changes));
                });
              });
            }
          },
      .news =
          [this] {
            return std::ranges::any_of(workers_,
                                       [](const auto& w) { return w->has_new_sessions(); });
          },
      .tickle = [this](std::vector<proxy::LostSession> lost) { tickler_->tickle(std::move(lost)); },
      .held =
          [] {
            std::vector<std::string> out;
            auto held = net::local_addresses();
            if (!held) return out;
            for (const std::string& text : *held) {
              if (auto a = net::SocketAddress::from_ip(text, 0)) out.emplace_back(a->ip_bytes());
            }
            return out;
          }};
  peer_sync_ = std::make_unique<PeerSync>(io_, clock_, timer_source_, process_.peers, self->name,
                                          std::move(*auth), std::move(hooks));
  return peer_sync_->start();
}

}  // namespace vigil::daemon
