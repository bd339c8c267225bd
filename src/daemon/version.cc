#include "daemon/version.h"

#include <fmt/format.h>
#include <link.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <yaml.h>

#include <CLI/Version.hpp>
#include <boost/version.hpp>
#include <climits>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "daemon/build_info.h"

namespace vigil::daemon {
namespace {

int add_object(dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name != nullptr && *info->dlpi_name != '\0') {
    static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
  }
  return 0;
}

// The shared objects this process has loaded, as their real files ("libfmt.so.9.1.0"): the
// library versions that run, which are not always those the build saw.
std::vector<std::string> loaded_objects() {
  std::vector<std::string> paths;
  dl_iterate_phdr(add_object, &paths);
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    char real[PATH_MAX];
    const std::string file = ::realpath(path.c_str(), real) != nullptr ? real : path;
    files.push_back(file.substr(file.rfind('/') + 1));
  }
  return files;
}

// ", loaded libfmt.so.9.1.0" for the first object named `stem`*, or ", statically linked".
std::string loaded(const std::vector<std::string>& objects, std::string_view stem) {
  for (const std::string& o : objects) {
    if (o.starts_with(stem)) return ", loaded " + o;
  }
  return ", statically linked";
}

std::string or_unknown(std::string_view value) {
  return value.empty() ? std::string("unknown") : std::string(value);
}

}  // namespace

std::string version_text() {
  const std::vector<std::string> objects = loaded_objects();
  std::string out = "vigil " VIGIL_VERSION "\n";
  out += fmt::format("commit: {}\n", or_unknown(VIGIL_GIT_COMMIT));
  out += fmt::format("build: {}, g++ {}\n", or_unknown(VIGIL_BUILD_TYPE), __VERSION__);
  out += fmt::format("OpenSSL: {} (built with {})\n", OpenSSL_version(OPENSSL_VERSION),
                     OPENSSL_VERSION_TEXT);
  out += fmt::format("Boost: {}.{}.{} (Asio and Beast built in{})\n", BOOST_VERSION / 100000,
                     BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100,
                     loaded(objects, "libboost_json.so"));
  out += fmt::format("libyaml: {} (built with {}{})\n", yaml_get_version_string(),
                     or_unknown(VIGIL_BUILT_WITH_LIBYAML), loaded(objects, "libyaml-0.so"));
  out += fmt::format("libsystemd: {} (built with{})\n", or_unknown(VIGIL_BUILT_WITH_SYSTEMD),
                     loaded(objects, "libsystemd.so"));
  out += fmt::format("fmt: {}.{}.{} (built with{})\n", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                     FMT_VERSION % 100, loaded(objects, "libfmt.so"));
  out += fmt::format("CLI11: {} (headers)\n", CLI11_VERSION);
  return out;
}

}  // namespace vigil::daemon
