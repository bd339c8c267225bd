#include "etcd/endpoint.h"

#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/url/parse.hpp>

#include "base/openssl_reason.h"

namespace vigil::etcd {

namespace ssl = boost::asio::ssl;

Result<Endpoint> parse_endpoint(std::string_view url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) return fail(fmt::format("etcd endpoint \"{}\": not a URL", url));
  Endpoint e{std::string(url), std::string(parsed->encoded_host_address()), "", false};
  const std::string scheme = std::string(parsed->scheme());
  if (scheme == "https") {
    e.tls = true;
  } else if (scheme != "http") {
    return fail(fmt::format("etcd endpoint \"{}\": the scheme must be http or https", url));
  }
  // Boost.URL keeps an IPv6 literal's brackets; the resolver wants the address alone.
  if (e.host.size() > 2 && e.host.front() == '[' && e.host.back() == ']') {
    e.host = e.host.substr(1, e.host.size() - 2);
  }
  if (e.host.empty()) return fail(fmt::format("etcd endpoint \"{}\": no host", url));
  if (parsed->has_userinfo() || parsed->has_query() || parsed->has_fragment() ||
      (!parsed->encoded_path().empty() && parsed->encoded_path() != "/")) {
    return fail(fmt::format("etcd endpoint \"{}\": only scheme, host and port are allowed", url));
  }
  e.port = parsed->has_port() ? std::string(parsed->port()) : "2379";
  if (parsed->has_port() && (parsed->port_number() == 0)) {
    return fail(fmt::format("etcd endpoint \"{}\": bad port", url));
  }
  return e;
}

Result<std::vector<Endpoint>> parse_endpoints(const std::vector<std::string>& urls) {
  if (urls.empty()) return fail("etcd: no endpoints");
  std::vector<Endpoint> endpoints;
  for (const std::string& url : urls) {
    auto e = parse_endpoint(url);
    if (!e) return std::unexpected(e.error());
    endpoints.push_back(std::move(*e));
  }
  return endpoints;
}

Result<std::shared_ptr<ssl::context>> tls_context(const Options& options) {
  ERR_clear_error();
  std::shared_ptr<ssl::context> ctx;
  try {
    ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  } catch (const std::exception& e) {  // SSL_CTX_new: out of memory
    return fail(std::string("etcd: cannot create a TLS context: ") + e.what());
  }
  boost::system::error_code ec;
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1,
                   ec);
  if (options.ca.empty()) {
    ctx->set_default_verify_paths(ec);
  } else if (ctx->load_verify_file(options.ca, ec); ec) {
    return fail(fmt::format("etcd ca {}: {}", options.ca, openssl_reason(ec)));
  }
  if (options.cert.empty() != options.key.empty()) {
    return fail("etcd: a client certificate needs both cert and key");
  }
  if (!options.cert.empty()) {
    if (ctx->use_certificate_chain_file(options.cert, ec); ec) {
      return fail(fmt::format("etcd cert {}: {}", options.cert, openssl_reason(ec)));
    }
    if (ctx->use_private_key_file(options.key, ssl::context::pem, ec); ec) {
      const std::string why = openssl_reason(ec);
      if (why.find("key values mismatch") == std::string::npos) {
        return fail(fmt::format("etcd key {}: {}", options.key, why));
      }
    }
    if (ec || SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
      ERR_clear_error();
      return fail(
          fmt::format("etcd key {} does not match the certificate {}", options.key, options.cert));
    }
  }
  ctx->set_verify_mode(ssl::verify_peer, ec);
  return ctx;
}

}  // namespace vigil::etcd
