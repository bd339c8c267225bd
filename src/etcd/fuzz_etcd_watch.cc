// libFuzzer: a watch stream's bytes, split at every point the input says, never crash the
// splitter or the message parser, and never grow a message past the splitter's limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "etcd/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  constexpr size_t kLimit = 4096;
  const size_t split = data[0] % 64 + 1;  // bytes fed at a time
  vigil::etcd::LineSplitter splitter(kLimit);
  const std::string_view all(reinterpret_cast<const char*>(data) + 1, size - 1);
  for (size_t at = 0; at < all.size(); at += split) {
    std::vector<std::string> lines;
    if (!splitter.feed(all.substr(at, split), lines)) return 0;  // the watch would end here
    for (const std::string& line : lines) {
      if (line.size() > kLimit) std::abort();
      auto message = vigil::etcd::parse_watch_message(line);
      if (message && message->kind == vigil::etcd::WatchMessage::Kind::kEnd &&
          message->end.error.empty() && message->end.compact_revision <= 0) {
        std::abort();  // an end must say why
      }
    }
  }
  // The whole input as one message, as a server that never splits would send it.
  (void)vigil::etcd::parse_watch_message(all);
  return 0;
}
