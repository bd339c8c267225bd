// libFuzzer: what a Kubernetes API server (or anything at its address) sends, as an
// EndpointSlice list, as watch event lines split anywhere, and as a kubeconfig, never crashes
// the readers, and whatever they accept makes members with a port and an IP address.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "etcd/wire.h"
#include "kube/endpoint_slices.h"
#include "kube/kubeconfig.h"
#include "kube/member_merge.h"
#include "net/address.h"

namespace {

void check(const std::map<std::string, vigil::kube::SliceEndpoints>& slices) {
  for (const vigil::kube::Endpoint& e : vigil::kube::ready_endpoints(slices)) {
    if (e.port == 0 || !vigil::net::SocketAddress::from_ip(e.address, e.port)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view all(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string_view port = data[0] % 2 == 0 ? "https" : "6443";
  if (auto list = vigil::kube::parse_slice_list(all, port)) check(list->slices);
  std::map<std::string, vigil::kube::SliceEndpoints> slices;
  vigil::etcd::LineSplitter lines(4096);
  const size_t split = data[0] % 64 + 1;
  for (size_t at = 0; at < all.size(); at += split) {
    std::vector<std::string> got;
    if (!lines.feed(all.substr(at, split), got)) break;
    for (const std::string& line : got) {
      if (auto event = vigil::kube::parse_watch_event(line, port)) {
        vigil::kube::apply_event(slices, *event);
      }
    }
  }
  check(slices);
  (void)vigil::kube::parse_kubeconfig(all, "/nonexistent", "kubeconfig fuzz");
  return 0;
}
