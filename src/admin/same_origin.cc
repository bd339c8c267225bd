#include "admin/same_origin.h"

#include <fmt/format.h>

namespace vigil::admin {

std::optional<std::string> cross_site_refusal(const BrowserHeaders& h) {
  if (!h.sec_fetch_site.empty() && h.sec_fetch_site != "same-origin") {
    return fmt::format("cross-site request refused (Sec-Fetch-Site: {})", h.sec_fetch_site);
  }
  if (h.origin.empty()) return std::nullopt;
  std::string_view rest = h.origin;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else {
    return fmt::format("cross-site request refused (Origin: {})", h.origin);
  }
  if (h.host.empty() || rest != h.host) {
    return fmt::format("cross-site request refused (Origin {} is not this server, {})", h.origin,
                       h.host.empty() ? "no Host" : h.host);
  }
  return std::nullopt;
}

}  // namespace vigil::admin
