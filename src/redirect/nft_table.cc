#include "redirect/nft_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <nftables/libnftables.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace vigil::redirect {
namespace {

// libnftables 1.0.6 opens its netlink socket in nft_ctx_new() and exits the process when it
// cannot ("mnl.c:60: Unable to initialize Netlink socket: Too many open files", exit status 3,
// seen 2026-12-05 with RLIMIT_NOFILE 3): vigil asks first, and fails with a reason instead.
Result<void> netfilter_socket_allowed() {
  const int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
  if (fd < 0) {
    return fail(std::string("cannot open a netfilter netlink socket: ") + std::strerror(errno));
  }
  ::close(fd);
  return {};
}

bool is_netfilter_socket(int fd) {
  int domain = 0;
  int protocol = 0;
  socklen_t len = sizeof(domain);
  if (::getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_NETLINK) {
    return false;
  }
  len = sizeof(protocol);
  return ::getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) == 0 &&
         protocol == NETLINK_NETFILTER;
}

// libnftables opens its socket without SOCK_CLOEXEC and does not give its descriptor out. A
// process `vigil upgrade` starts would inherit it, and with it the old process's table would
// outlive the old process. Every netfilter socket of this process is this context's (nothing
// else in vigil opens one), so each is marked close-on-exec.
void close_netfilter_sockets_on_exec() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  while (const dirent* e = ::readdir(dir)) {
    const std::string_view name = e->d_name;
    if (name.empty() || name[0] < '0' || name[0] > '9') continue;
    const int fd = std::atoi(e->d_name);
    if (fd == ::dirfd(dir) || !is_netfilter_socket(fd)) continue;
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags >= 0 && (flags & FD_CLOEXEC) == 0) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
  ::closedir(dir);
}

// The first line of libnftables' error text ("Error: Could not process rule: Operation not
// permitted"); the rest repeats the command with carets under it.
std::string first_line(const char* text) {
  std::string_view s = text != nullptr ? text : "";
  s = s.substr(0, s.find('\n'));
  if (s.starts_with("Error: ")) s.remove_prefix(7);
  return s.empty() ? "failed without a message" : std::string(s);
}

}  // namespace

Result<std::unique_ptr<NftTable>> NftTable::open(std::string name) {
  if (auto allowed = netfilter_socket_allowed(); !allowed) return std::unexpected(allowed.error());
  nft_ctx* ctx = nft_ctx_new(NFT_CTX_DEFAULT);
  if (ctx == nullptr) return fail("cannot make a libnftables context");
  close_netfilter_sockets_on_exec();
  // Output and errors into buffers, not onto vigil's stdout and stderr.
  nft_ctx_buffer_output(ctx);
  nft_ctx_buffer_error(ctx);
  return std::unique_ptr<NftTable>(new NftTable(ctx, std::move(name)));
}

NftTable::~NftTable() { nft_ctx_free(ctx_); }

Result<void> NftTable::probe() {
  if (nft_run_cmd_from_buffer(ctx_, "list tables") != 0) {
    return fail(first_line(nft_ctx_get_error_buffer(ctx_)));
  }
  return {};
}

Result<void> NftTable::set(std::span<const Rule> rules) {
  if (rules.empty() && !exists_) return {};
  const std::string script = nft_script(name_, rules);
  if (nft_run_cmd_from_buffer(ctx_, script.c_str()) != 0) {
    return fail(first_line(nft_ctx_get_error_buffer(ctx_)));
  }
  exists_ = !rules.empty();
  return {};
}

}  // namespace vigil::redirect
