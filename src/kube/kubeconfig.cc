#include "kube/kubeconfig.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <boost/url/parse.hpp>

#include "base/file.h"
#include "config/yaml_tree.h"
#include "net/address.h"

namespace vigil::kube {
namespace {

using config::YamlNode;

const YamlNode* child(const YamlNode& map, std::string_view key) {
  for (size_t i = 0; i < map.entry_count(); ++i) {
    if (map.entry(i).key.scalar() == key) return &map.entry(i).value;
  }
  return nullptr;
}

std::string text_of(const YamlNode& map, std::string_view key) {
  const YamlNode* v = child(map, key);
  return v != nullptr && v->is_scalar() ? v->scalar() : std::string();
}

// The `what` (cluster, user, context) of the entry in the list `list_key` named `name`.
Result<const YamlNode*> named(const YamlNode& doc, std::string_view list_key, std::string_view what,
                              std::string_view name) {
  const YamlNode* list = child(doc, list_key);
  if (list != nullptr && list->is_sequence()) {
    for (const YamlNode& item : list->items()) {
      if (item.is_map() && text_of(item, "name") == name) {
        const YamlNode* inner = child(item, what);
        if (inner != nullptr && inner->is_map()) return inner;
        if (inner != nullptr && inner->is_null()) {
          static const YamlNode kEmpty(YamlNode::Kind::kMap, 0);
          return &kEmpty;
        }
        return fail(fmt::format("{} \"{}\" has no {} map", what, name, what));
      }
    }
  }
  return fail(fmt::format("no {} named \"{}\" in {}", what, name, list_key));
}

// A path as kubectl reads it: relative ones from the kubeconfig's directory.
std::string resolved(std::string_view dir, const std::string& path) {
  if (path.empty() || path.front() == '/' || dir.empty()) return path;
  return fmt::format("{}/{}", dir, path);
}

Result<std::string> base64(const std::string& text, std::string_view field) {
  std::string compact;
  for (char c : text) {
    if (c != '\n' && c != '\r' && c != ' ') compact += c;
  }
  if (compact.size() % 4 != 0) return fail(fmt::format("{} is not base64", field));
  std::string out(compact.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(compact.data()),
                                static_cast<int>(compact.size()));
  if (n < 0) return fail(fmt::format("{} is not base64", field));
  // EVP_DecodeBlock counts the padding's zero bytes in.
  size_t size = static_cast<size_t>(n);
  for (size_t i = compact.size(); i > 0 && compact[i - 1] == '=' && size > 0; --i) --size;
  out.resize(size);
  return out;
}

Result<void> split_server(std::string_view server, ApiAccess& a) {
  auto url = boost::urls::parse_absolute_uri(server);
  if (!url || url->scheme() != "https" || url->host().empty()) {
    return fail(
        fmt::format("server \"{}\" is not an https:// URL (vigil reads the API over TLS "
                    "only)",
                    server));
  }
  a.host = std::string(net::unbracketed(url->host()));
  a.port = url->has_port() ? std::string(url->port()) : "443";
  if (url->has_port() && url->port_number() == 0) {
    return fail(fmt::format("server \"{}\": bad port", server));
  }
  return {};
}

// `key` or `key`-data into `pem`/`file`.
Result<void> pem_or_file(const YamlNode& map, std::string_view key, std::string_view dir,
                         std::string& pem, std::string& file) {
  const std::string data = text_of(map, fmt::format("{}-data", key));
  if (!data.empty()) {
    auto decoded = base64(data, fmt::format("{}-data", key));
    if (!decoded) return std::unexpected(decoded.error());
    pem = std::move(*decoded);
    return {};
  }
  file = resolved(dir, text_of(map, key));
  return {};
}

}  // namespace

Result<ApiAccess> parse_kubeconfig(std::string_view text, std::string_view dir,
                                   std::string_view source) {
  auto wrap = [&](const Error& e) { return fail(fmt::format("{}: {}", source, e.message)); };
  auto doc = config::parse_yaml(text);
  if (!doc) {
    return fail(fmt::format("{}:{}: {}", source, doc.error().line, doc.error().message));
  }
  if (!doc->is_map()) return fail(fmt::format("{}: not a kubeconfig (a YAML map)", source));
  const std::string context_name = text_of(*doc, "current-context");
  if (context_name.empty()) return fail(fmt::format("{}: no current-context", source));
  auto context = named(*doc, "contexts", "context", context_name);
  if (!context) return wrap(context.error());
  auto cluster = named(*doc, "clusters", "cluster", text_of(**context, "cluster"));
  if (!cluster) return wrap(cluster.error());
  ApiAccess a{.source = std::string(source)};
  if (auto ok = split_server(text_of(**cluster, "server"), a); !ok) return wrap(ok.error());
  if (text_of(**cluster, "insecure-skip-tls-verify") == "true") {
    return fail(
        fmt::format("{}: insecure-skip-tls-verify is set; vigil verifies the API "
                    "server's certificate (give certificate-authority, and "
                    "tls-server-name when the address is not in the certificate)",
                    source));
  }
  a.tls_server_name = text_of(**cluster, "tls-server-name");
  if (auto ok = pem_or_file(**cluster, "certificate-authority", dir, a.ca_pem, a.ca_file); !ok) {
    return wrap(ok.error());
  }
  const std::string user_name = text_of(**context, "user");
  if (!user_name.empty()) {
    auto user = named(*doc, "users", "user", user_name);
    if (!user) return wrap(user.error());
    for (const char* unusable : {"exec", "auth-provider", "username", "password"}) {
      if (child(**user, unusable) != nullptr) {
        return fail(
            fmt::format("{}: user \"{}\" authenticates by {}, which vigil does not run; "
                        "use a token, tokenFile or a client certificate",
                        source, user_name, unusable));
      }
    }
    a.token = text_of(**user, "token");
    a.token_file = resolved(dir, text_of(**user, "tokenFile"));
    if (auto ok =
            pem_or_file(**user, "client-certificate", dir, a.client_cert_pem, a.client_cert_file);
        !ok) {
      return wrap(ok.error());
    }
    if (auto ok = pem_or_file(**user, "client-key", dir, a.client_key_pem, a.client_key_file);
        !ok) {
      return wrap(ok.error());
    }
    const bool cert = !a.client_cert_pem.empty() || !a.client_cert_file.empty();
    const bool key = !a.client_key_pem.empty() || !a.client_key_file.empty();
    if (cert != key) {
      return fail(fmt::format("{}: user \"{}\" has a client {} without its {}", source, user_name,
                              cert ? "certificate" : "key", cert ? "key" : "certificate"));
    }
  }
  return a;
}

Result<ApiAccess> read_kubeconfig(const std::string& path) {
  auto text = read_file(path);
  if (!text) return fail(fmt::format("kubeconfig: {}", text.error().message));
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  return parse_kubeconfig(*text, dir, "kubeconfig " + path);
}

Result<ApiAccess> in_cluster(const std::map<std::string, std::string>& env,
                             std::string_view account_dir) {
  auto host = env.find("KUBERNETES_SERVICE_HOST");
  auto port = env.find("KUBERNETES_SERVICE_PORT");
  if (host == env.end() || host->second.empty() || port == env.end() || port->second.empty()) {
    return fail(
        "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set "
        "(not in a pod?); give members_from.kubernetes.kubeconfig");
  }
  ApiAccess a{.source = "in-cluster"};
  a.host = host->second;
  a.port = port->second;
  a.ca_file = fmt::format("{}/ca.crt", account_dir);
  a.token_file = fmt::format("{}/token", account_dir);
  return a;
}

Result<ApiAccess> load_credentials(ApiAccess a) {
  for (auto [file, pem] :
       {std::pair{&a.ca_file, &a.ca_pem}, std::pair{&a.client_cert_file, &a.client_cert_pem},
        std::pair{&a.client_key_file, &a.client_key_pem}}) {
    if (file->empty()) continue;
    auto text = read_file(*file);
    if (!text) return fail(fmt::format("{}: {}", a.source, text.error().message));
    *pem = std::move(*text);
  }
  if (!a.token_file.empty()) {
    if (auto token = read_secret_file(a.token_file); !token) {
      return fail(fmt::format("{}: {}", a.source, token.error().message));
    }
  }
  return a;
}

}  // namespace vigil::kube
