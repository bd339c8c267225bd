#include "daemon/process_reload.h"

#include <fmt/format.h>

#include <string_view>
#include <utility>

namespace vigil::daemon {
namespace {

// A reload that changes what only a restart carries out says so instead of ignoring it in
// silence, and keeps what runs.
void keep_running(std::string_view key, const std::string& was, std::string& now,
                  std::vector<std::string>& out) {
  if (was == now) return;
  out.push_back(
      fmt::format("{} changed from \"{}\" to \"{}\": it takes a restart; still using \"{}\"", key,
                  was, now, was));
  now = was;
}

}  // namespace

ProcessReload reload_process(const model::Process& running, model::Process loaded) {
  ProcessReload out{.next = std::move(loaded)};
  keep_running("admin.listen", running.admin.listen, out.next.admin.listen, out.warnings);
  keep_running("admin.socket", running.admin.socket, out.next.admin.socket, out.warnings);
  keep_running("admin.state_file", running.admin.state_file, out.next.admin.state_file,
               out.warnings);
  // The store's watch and connections run as they started.
  model::Store moved = out.next.admin.store;
  moved.where = running.admin.store.where;  // where the key is in the file is no change
  if (!(moved == running.admin.store)) {
    out.warnings.push_back(
        "admin.store changed: it takes a restart; still using the store "
        "vigil started with");
    out.next.admin.store = running.admin.store;
  }
  out.next.workers = running.workers;
  // The peer sync listens and connects as it started; its settings change with a restart.
  keep_running("peer_name", running.peer_name, out.next.peer_name, out.warnings);
  keep_running("peers_auth.token_file", running.peers_auth.token_file,
               out.next.peers_auth.token_file, out.warnings);
  if (out.next.peers != running.peers) {
    out.warnings.push_back(
        "peers changed: it takes a restart; still syncing with the nodes "
        "vigil started with");
    out.next.peers = running.peers;
  }
  return out;
}

}  // namespace vigil::daemon
