// Endpoint: one etcd endpoint URL taken apart, and the checks of the client's options (URLs,
// TLS files) done before anything connects. Pure but for reading the TLS files; thread-safe.
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "etcd/types.h"

namespace vigil::etcd {

struct Endpoint {
  std::string url;  // as given, for messages
  std::string host;
  std::string port;
  bool tls = false;
  // The name the server's certificate must carry; empty: host. (A Kubernetes API reached at an
  // address its certificate does not list: kubeconfig's tls-server-name.)
  std::string tls_name;
  std::string service = "etcd";  // for messages: "etcd at https://...: ..."
  bool operator==(const Endpoint&) const = default;
};

// "http://127.0.0.1:2379" or "https://[::1]:2379"; the port defaults to 2379.
Result<Endpoint> parse_endpoint(std::string_view url);
Result<std::vector<Endpoint>> parse_endpoints(const std::vector<std::string>& urls);

// A TLS client context from the options: the CA to verify servers (the system's when none),
// and the client certificate and key when given. Errors name the file and what is wrong.
Result<std::shared_ptr<boost::asio::ssl::context>> tls_context(const Options& options);

}  // namespace vigil::etcd
