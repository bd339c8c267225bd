#include "peers/known_sessions.h"

#include <iterator>

#include "net/address.h"

namespace vigil::peers {
namespace {

bool on(const SessionEntry& e, std::string_view ip) {
  return net::unmapped(e.local.ip_bytes()) == net::unmapped(ip);
}

template <typename Keep>
void take_if(std::unordered_map<uint64_t, SessionEntry>& sessions, Keep take,
             std::vector<SessionEntry>& out) {
  for (auto it = sessions.begin(); it != sessions.end();) {
    if (take(it->second)) {
      out.push_back(std::move(it->second));
      it = sessions.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace

Result<void> KnownSessions::apply(const std::string& peer, const Frame& frame) {
  Table& t = peers_[peer];
  if (std::holds_alternative<Reset>(frame)) {
    t = Table{};
  } else if (std::holds_alternative<Synced>(frame)) {
    t.synced = true;
  } else if (const auto* add = std::get_if<Add>(&frame)) {
    for (const SessionEntry& e : add->sessions) t.sessions.insert_or_assign(e.key, e);
    if (t.sessions.size() > max_per_peer_) {
      peers_.erase(peer);
      return fail("holds more than " + std::to_string(max_per_peer_) + " sessions");
    }
  } else if (const auto* remove = std::get_if<Remove>(&frame)) {
    for (uint64_t key : remove->keys) t.sessions.erase(key);
  }
  return {};
}

std::vector<SessionEntry> KnownSessions::take_on(std::string_view ip) {
  std::vector<SessionEntry> out;
  for (auto& [name, t] : peers_) {
    take_if(
        t.sessions, [&](const SessionEntry& e) { return on(e, ip); }, out);
  }
  return out;
}

std::vector<SessionEntry> KnownSessions::take_of(
    const std::string& peer, const std::function<bool(std::string_view ip)>& held) {
  std::vector<SessionEntry> out;
  auto it = peers_.find(peer);
  if (it == peers_.end()) return out;
  take_if(
      it->second.sessions, [&](const SessionEntry& e) { return held(e.local.ip_bytes()); }, out);
  return out;
}

KnownSessions::PeerState KnownSessions::state(const std::string& peer) const {
  auto it = peers_.find(peer);
  if (it == peers_.end()) return {};
  return {.sessions = it->second.sessions.size(), .synced = it->second.synced};
}

size_t KnownSessions::total() const {
  size_t n = 0;
  for (const auto& [name, t] : peers_) n += t.sessions.size();
  return n;
}

}  // namespace vigil::peers
