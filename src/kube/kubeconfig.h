// How vigil reaches a Kubernetes API: the server and credentials of a kubeconfig's current
// context, or of the pod's service account (in-cluster), as client-go's clientcmd and
// rest.InClusterConfig read them. Reading is split from loading: parse_kubeconfig is pure (text
// in, fields and file paths out); load_credentials reads the files a config names.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/error.h"

namespace vigil::kube {

struct ApiAccess {
  std::string host;  // as in the URL, brackets removed
  std::string port;  // "443" when the server's URL names none
  // The name the server's certificate must carry (kubeconfig's tls-server-name): empty, the host.
  std::string tls_server_name;
  // PEM text, or a file to read it from; both empty: the system's CAs.
  std::string ca_pem, ca_file;
  // A bearer token, or a file that holds one (read again for every request: a projected
  // service-account token is rotated in place).
  std::string token, token_file;
  std::string client_cert_pem, client_cert_file, client_key_pem, client_key_file;
  std::string source;  // for messages: "kubeconfig /etc/vigil/kubeconfig" or "in-cluster"
};

// The current context's cluster and user. `dir`: the kubeconfig's directory, against which
// relative file paths are read (as kubectl does). Refuses what vigil would not do safely:
// insecure-skip-tls-verify, and credentials it cannot use (exec plugins, auth providers,
// username/password).
Result<ApiAccess> parse_kubeconfig(std::string_view text, std::string_view dir,
                                   std::string_view source);
Result<ApiAccess> read_kubeconfig(const std::string& path);

// The service account's view: KUBERNETES_SERVICE_HOST and _PORT from `env`, the token and CA
// under `account_dir` (/var/run/secrets/kubernetes.io/serviceaccount in a pod).
inline constexpr std::string_view kServiceAccountDir =
    "/var/run/secrets/kubernetes.io/serviceaccount";
Result<ApiAccess> in_cluster(const std::map<std::string, std::string>& env,
                             std::string_view account_dir);

// Reads the files `access` names into its PEM fields (not the token file: see above), so that a
// config whose files are missing or unreadable fails at load, naming the file.
Result<ApiAccess> load_credentials(ApiAccess access);

}  // namespace vigil::kube
