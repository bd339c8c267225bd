// AddressLoss: hears from the kernel when this host loses an address (NETLINK_ROUTE, RTM_DELADDR)
// and reports it once the host holds it on no interface. A keepalived or BGP node whose address
// moved to another node still holds the sessions clients opened to it; nothing it sends from an
// address it no longer holds reaches them in order, and the clients wait on their own timers
// (client-go: 30 s + 15 s). Resetting them at once makes each client reconnect, to the address's
// new holder. Control thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace boost::asio {
class io_context;
}

namespace vigil::daemon {

class AddressLoss {
 public:
  // `ip`: the address's bytes, as net::SocketAddress::ip_bytes(); `text`: as printed.
  using OnLost = std::function<void(const std::string& ip, const std::string& text)>;
  // An address added to an interface of this host (keepalived moved it here): the peers' sessions
  // on it are to be tickled (daemon/peer_sync.h). Null: not reported.
  using OnGained = OnLost;

  // Listens on `io` from now on. Without a netlink socket (a sandbox that refuses it) it logs
  // why and reports nothing.
  AddressLoss(boost::asio::io_context& io, OnLost on_lost, OnGained on_gained = nullptr);
  ~AddressLoss();
  AddressLoss(const AddressLoss&) = delete;
  AddressLoss& operator=(const AddressLoss&) = delete;

 private:
  struct Socket;
  void read();
  void on_datagram(size_t size);

  OnLost on_lost_;
  OnGained on_gained_;
  std::unique_ptr<Socket> socket_;
  // A read that completed just before the destructor still calls back: it holds this weakly.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

}  // namespace vigil::daemon
