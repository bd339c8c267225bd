#include "net/interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <cerrno>

#include "net/socket.h"

namespace vigil::net {

Result<std::vector<std::string>> local_addresses() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return fail("getifaddrs: " + errno_string(errno));
  std::vector<std::string> out;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw = nullptr;
    if (i->ifa_addr->sa_family == AF_INET) {
      raw = &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr;
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      raw = &reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr;
    }
    if (raw && ::inet_ntop(i->ifa_addr->sa_family, raw, text, sizeof text)) out.emplace_back(text);
  }
  ::freeifaddrs(list);
  return out;
}

}  // namespace vigil::net
