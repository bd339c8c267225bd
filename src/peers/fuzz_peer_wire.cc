// libFuzzer: a peer's bytes, split at every point the input says, never crash the reader, never
// make it wait past a whole frame, and every frame it reads is written back the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "peers/known_sessions.h"
#include "peers/wire.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t split = data[0] % 16 + 1;  // bytes fed at a time
  vigil::peers::FrameReader reader;
  vigil::peers::KnownSessions known(1000);
  for (size_t at = 1; at < size; at += split) {
    reader.feed(std::span(data + at, std::min(split, size - at)));
    for (;;) {
      auto frame = reader.next();
      if (!frame) return 0;  // garbage: the connection would close here
      if (!*frame) break;
      std::vector<uint8_t> again;
      vigil::peers::append(again, **frame);
      vigil::peers::FrameReader back;
      back.feed(again);
      auto same = back.next();
      if (!same || !*same || **same != **frame) std::abort();
      (void)known.apply("peer", **frame);
    }
  }
  return 0;
}
