// A box-drawn text table in the openstack CLI's style (+---+ rules, | separators, text left and
// numbers right aligned), sized to its widest cells. Pure; any thread.
#pragma once

#include <string>
#include <vector>

namespace vigil::cli {

// Widths count UTF-8 code points, so names with accents stay aligned. Every cell goes through
// printable(): names and reasons from the API never reach the terminal with control characters.
// Requires: every row has as many cells as `headers`.
std::string render_table(const std::vector<std::string>& headers,
                         const std::vector<std::vector<std::string>>& rows);

}  // namespace vigil::cli
