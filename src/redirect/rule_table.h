// RuleTable: where the redirects are carried out, as daemon/redirects.h sees it: the nftables
// table (nft_table.h) in the daemon, a fake in tests. Control thread only.
#pragma once

#include <span>

#include "base/error.h"
#include "redirect/plan.h"

namespace vigil::redirect {

class RuleTable {
 public:
  virtual ~RuleTable() = default;
  // Makes the table hold exactly `rules` (none: no table), all or nothing.
  virtual Result<void> set(std::span<const Rule> rules) = 0;
};

}  // namespace vigil::redirect
