// Text from the daemon made safe for a terminal: names and reasons can be created through the
// API by anyone with the token, and an escape sequence in one would drive the reader's terminal.
// Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace vigil::cli {

// `text` with every control character (C0, DEL, C1, line separators, bidirectional overrides)
// and every byte that is not part of valid UTF-8 written as a visible escape: "\n", "\t", "\r",
// "\x1b", "\u009b", "\u202e". Printable text, accented letters included, is kept as it is.
std::string printable(std::string_view text);

}  // namespace vigil::cli
