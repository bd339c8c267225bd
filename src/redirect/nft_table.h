// NftTable: this process's own nftables table (family inet, named vigil_<pid>), created with
// `flags owner` (Linux 5.12): the kernel deletes an owned table when the netlink socket that made
// it closes, that is when vigil exits however it exits, SIGKILL included, so no redirect outlives
// the listener it points at. It holds one libnftables context, and with it that one socket, for
// its whole life (owned by daemon/redirects.h for the process's). Control thread only: a call
// waits for the kernel's answer.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "base/error.h"
#include "redirect/plan.h"
#include "redirect/rule_table.h"

struct nft_ctx;

namespace vigil::redirect {

class NftTable final : public RuleTable {
 public:
  // Errors are nftables' own first line ("Could not process rule: Operation not permitted").
  // Opens the context and its netfilter socket; creates no table yet. Fails, without exiting,
  // where the process may not open a netfilter socket at all (no AF_NETLINK).
  static Result<std::unique_ptr<NftTable>> open(std::string name);
  ~NftTable() override;
  NftTable(const NftTable&) = delete;
  NftTable& operator=(const NftTable&) = delete;

  Result<void> set(std::span<const Rule> rules) override;
  // Whether the kernel takes nftables commands from this process: a listing, which needs
  // CAP_NET_ADMIN as every nfnetlink message does (`vigil check`).
  Result<void> probe();
  const std::string& name() const { return name_; }

 private:
  NftTable(nft_ctx* ctx, std::string name) : ctx_(ctx), name_(std::move(name)) {}
  nft_ctx* ctx_;
  std::string name_;
  bool exists_ = false;  // this process's table is in the kernel
};

}  // namespace vigil::redirect
