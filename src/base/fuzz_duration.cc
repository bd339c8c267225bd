// libFuzzer target for parse_duration: never a crash, and never a wrap-around. An accepted
// duration is not negative, and writing one more part after it ("5s" -> "5s1s") never gives a
// shorter one: a sum of parts that overflowed would (it once ran 584 years as 5 s). UBSan, in the
// fuzz preset, also catches the signed overflow itself. Built only with -DVIGIL_FUZZ=ON and clang.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "base/duration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto d = vigil::parse_duration(text);
  if (!d) return 0;
  if (*d < vigil::Duration::zero()) std::abort();
  const auto longer = vigil::parse_duration(text + "1ns");
  if (longer && *longer <= *d) std::abort();
  return 0;
}
