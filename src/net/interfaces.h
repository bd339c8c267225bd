// The IP addresses this host's interfaces hold (getifaddrs), as text: what `vigil check` compares
// listeners' bind addresses with. Reads the kernel's state; any thread.
#pragma once

#include <string>
#include <vector>

#include "base/error.h"

namespace vigil::net {

Result<std::vector<std::string>> local_addresses();

}  // namespace vigil::net
