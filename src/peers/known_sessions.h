// KnownSessions: the client sessions each peer said it holds (peers/wire.h), kept so that this
// node can tickle them when it takes one of their addresses over or outlives the peer. Bounded:
// a peer that sends more than the bound is refused. Pure; control thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/error.h"
#include "peers/wire.h"

namespace vigil::peers {

class KnownSessions {
 public:
  // A peer's sessions at most: 262,144 sessions take about 26 MB here.
  static constexpr size_t kMaxPerPeer = 262'144;

  explicit KnownSessions(size_t max_per_peer = kMaxPerPeer) : max_per_peer_(max_per_peer) {}

  // Carries out what `peer` sent: reset, add, remove or synced (other frames change nothing). An
  // error when the peer would hold more than the bound; its sessions are then forgotten.
  Result<void> apply(const std::string& peer, const Frame& frame);

  // The sessions of any peer whose local address is `ip` (as SocketAddress::ip_bytes(), IPv4 also
  // as IPv4-mapped IPv6), taken out: this node has just gained that address.
  std::vector<SessionEntry> take_on(std::string_view ip);
  // The sessions of `peer` whose local address this node holds (`held` says), taken out: the
  // peer is gone and this node answers for those addresses now. The others stay, for when this
  // node gains their address.
  std::vector<SessionEntry> take_of(const std::string& peer,
                                    const std::function<bool(std::string_view ip)>& held);

  struct PeerState {
    size_t sessions = 0;
    bool synced = false;  // a whole list arrived since the last reset
  };
  PeerState state(const std::string& peer) const;
  size_t total() const;

 private:
  struct Table {
    std::unordered_map<uint64_t, SessionEntry> sessions;
    bool synced = false;
  };
  size_t max_per_peer_;
  std::map<std::string, Table, std::less<>> peers_;
};

}  // namespace vigil::peers
