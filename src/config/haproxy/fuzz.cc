// libFuzzer target for the haproxy.cfg importer: any input must give diagnostics, never a crash, a
// hang or an exception; and whatever loads converts to YAML that loads back. Built only with
// -DVIGIL_FUZZ=ON and clang; run: fuzz_config_haproxy -dict=... corpus/ (seed the corpus with
// src/config/haproxy/testdata/*.cfg).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "config/haproxy/convert.h"
#include "config/haproxy/loader.h"
#include "config/loader.h"
#include "config/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const vigil::config::LoadResult result = vigil::config::load_haproxy_cfg(text, "fuzz.cfg");
  (void)vigil::config::check_report(result);
  (void)vigil::config::convert_report(result);
  if (result.config) {
    const auto back = vigil::config::load_yaml(
        vigil::config::to_yaml(*result.process, *result.config), "converted.yaml");
    if (!back.ok()) std::abort();  // the importer made a config vigil YAML cannot express
  }
  return 0;
}
