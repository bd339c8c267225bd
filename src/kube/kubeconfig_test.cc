// kubeconfig files as kubeadm and `oc` write them, the service account's view, and the settings
// vigil refuses because it could not honour them safely.
#include "kube/kubeconfig.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace vigil::kube {
namespace {

// kubeadm's admin.conf shape; the data fields are base64 of "CA-PEM", "CERT-PEM" and "KEY-PEM".
constexpr std::string_view kAdminConf = R"(apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: Q0EtUEVN
    server: https://[fd00::10]:6443
    tls-server-name: kubernetes
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: kubernetes-admin
  name: kubernetes-admin@kubernetes
current-context: kubernetes-admin@kubernetes
users:
- name: kubernetes-admin
  user:
    client-certificate-data: Q0VSVC1QRU0=
    client-key-data: S0VZLVBFTQ==
)";

TEST(Kubeconfig, ReadsTheCurrentContextsClusterAndUser) {
  auto a = parse_kubeconfig(kAdminConf, "/etc/kubernetes", "kubeconfig admin.conf");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->host, "fd00::10");
  EXPECT_EQ(a->port, "6443");
  EXPECT_EQ(a->tls_server_name, "kubernetes");
  EXPECT_EQ(a->ca_pem, "CA-PEM");
  EXPECT_EQ(a->client_cert_pem, "CERT-PEM");
  EXPECT_EQ(a->client_key_pem, "KEY-PEM");
  EXPECT_EQ(a->token, "");
}

TEST(Kubeconfig, RelativeFilesAreReadFromItsDirectory) {
  auto a = parse_kubeconfig(R"(current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: "https://api.example:6443", certificate-authority: ca.crt}}]
users: [{name: u, user: {tokenFile: /var/run/token}}]
)",
                            "/etc/vigil", "kubeconfig k");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->host, "api.example");
  EXPECT_EQ(a->ca_file, "/etc/vigil/ca.crt");
  EXPECT_EQ(a->token_file, "/var/run/token");
}

TEST(Kubeconfig, RefusesWhatItCannotHonour) {
  struct Case {
    const char* yaml;
    const char* message;
  };
  const std::string head =
      "current-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\n";
  const Case cases[] = {
      {"", "not a kubeconfig"},
      {"kind: Config\n", "no current-context"},
      {"- a list\n", "not a kubeconfig"},
      {"current-context: c\n", "no context named \"c\" in contexts"},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: []\n",
       "no cluster named \"k\" in clusters"},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
       "clusters: [{name: k, cluster: {server: \"http://10.0.0.1:8080\"}}]\n",
       "is not an https:// URL"},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
       "clusters: [{name: k, cluster: {server: \"https://10.0.0.1:6443\", "
       "insecure-skip-tls-verify: true}}]\n",
       "insecure-skip-tls-verify is set"},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\n"
       "clusters: [{name: k, cluster: {server: \"https://10.0.0.1\", "
       "certificate-authority-data: \"!!!\"}}]\n",
       "certificate-authority-data is not base64"},
      {"clusters: [{name: k, cluster: {server: \"https://10.0.0.1\"}}]\n"
       "users: [{name: u, user: {exec: {command: aws}}}]\n",
       "authenticates by exec"},
      {"clusters: [{name: k, cluster: {server: \"https://10.0.0.1\"}}]\n"
       "users: [{name: u, user: {client-certificate: c.crt}}]\n",
       "has a client certificate without its key"},
      {"clusters: [{name: k, cluster: {server: \"https://10.0.0.1\"}}]\n", "no user named \"u\""},
      {"current-context: c\ncontexts: [{name: c, context: {cluster: k}}]\nclusters: [{name: k, "
       "cluster: {server: \"https://10.0.0.1\"}}]\nkey: [unclosed\n",
       "kubeconfig k:"},
  };
  for (const Case& c : cases) {
    const std::string text =
        std::string_view(c.yaml).starts_with("clusters") ? head + c.yaml : c.yaml;
    auto a = parse_kubeconfig(text, "/etc/vigil", "kubeconfig k");
    ASSERT_FALSE(a) << c.yaml;
    EXPECT_NE(a.error().message.find(c.message), std::string::npos)
        << c.yaml << " -> " << a.error().message;
  }
}

TEST(Kubeconfig, InClusterUsesTheServiceAccount) {
  auto a =
      in_cluster({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
                 kServiceAccountDir);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->host, "10.96.0.1");
  EXPECT_EQ(a->port, "443");
  EXPECT_EQ(a->ca_file, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt");
  EXPECT_EQ(a->token_file, "/var/run/secrets/kubernetes.io/serviceaccount/token");
  auto outside = in_cluster({}, kServiceAccountDir);
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().message.find("give members_from.kubernetes.kubeconfig"),
            std::string::npos);
}

TEST(Kubeconfig, LoadingNamesAMissingFile) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("vigil-kubeconfig-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ca.crt") << "CA";
  ApiAccess a{.ca_file = (dir / "ca.crt").string(),
              .token_file = (dir / "missing").string(),
              .source = "kubeconfig k"};
  auto loaded = load_credentials(a);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("missing"), std::string::npos) << loaded.error().message;
  std::ofstream(dir / "missing") << "token\n";
  loaded = load_credentials(a);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->ca_pem, "CA");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vigil::kube
