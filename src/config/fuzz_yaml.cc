// libFuzzer target for the YAML loader: any input must give diagnostics, never a crash, a hang or
// an exception. Built only with -DVIGIL_FUZZ=ON and clang; run: fuzz_config_yaml corpus/
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/loader.h"
#include "config/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const vigil::config::LoadResult result = vigil::config::load_yaml(text, "fuzz.yaml");
  (void)vigil::config::check_report(result);
  return 0;
}
