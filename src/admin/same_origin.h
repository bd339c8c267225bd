// Whether a browser's POST comes from vigil's own page: the second guard of the page's forms
// beside their CSRF token (the SameSite=Strict cookie is the first). Pure; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vigil::admin {

struct BrowserHeaders {
  std::string_view host;            // Host
  std::string_view origin;          // Origin; empty when absent
  std::string_view sec_fetch_site;  // Sec-Fetch-Site; empty when absent
};

// Why the request is refused as cross-site, or nullopt. A browser that sends Sec-Fetch-Site must
// say `same-origin`; an Origin must be http(s)://HOST with the request's own Host. A request with
// neither (an old browser, a tool) passes: the CSRF token still has to match.
std::optional<std::string> cross_site_refusal(const BrowserHeaders& h);

}  // namespace vigil::admin
