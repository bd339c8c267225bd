// `admin.store`: the file by default, etcd with its endpoints, prefix, TLS and timeout; each
// mistake an error at its line.
#include <gtest/gtest.h>

#include "config/loader.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

using namespace std::chrono_literals;
using testing::all;
using testing::has_error;
using testing::kListenerAndPool;
using testing::load;

LoadResult load_admin(std::string_view admin) {
  return load("admin:\n" + std::string(admin) + std::string(kListenerAndPool));
}

TEST(StoreKeys, TheFileIsTheDefault) {
  const LoadResult r = load(kListenerAndPool);
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  EXPECT_EQ(r.process->admin.store.type, model::StoreType::kFile);
  EXPECT_EQ(r.process->admin.store.prefix, "/vigil/");
  EXPECT_EQ(r.process->admin.store.timeout, 2s);
}

TEST(StoreKeys, EtcdWithEveryKey) {
  const LoadResult r = load_admin(R"(  state_file: /var/lib/vigil/state.json
  store:
    type: etcd
    endpoints: [https://10.0.0.5:2379, "https://[fd00::6]:2379", http://etcd-3.example:2379/]
    prefix: /vigil/prod/
    tls: {ca: /etc/vigil/etcd-ca.pem, cert: /etc/vigil/etcd.pem, key: /etc/vigil/etcd.key}
    timeout: 500ms
    readyz: true
)");
  ASSERT_TRUE(r.ok()) << all(r.diagnostics);
  const model::Store& s = r.process->admin.store;
  EXPECT_EQ(s.type, model::StoreType::kEtcd);
  EXPECT_EQ(s.endpoints,
            (std::vector<std::string>{"https://10.0.0.5:2379", "https://[fd00::6]:2379",
                                      "http://etcd-3.example:2379/"}));
  EXPECT_EQ(s.prefix, "/vigil/prod/");
  EXPECT_EQ(s.tls, (model::StoreTls{.ca = "/etc/vigil/etcd-ca.pem",
                                    .cert = "/etc/vigil/etcd.pem",
                                    .key = "/etc/vigil/etcd.key"}));
  EXPECT_EQ(s.timeout, 500ms);
  EXPECT_TRUE(s.readyz);
  EXPECT_EQ(s.where.line, 3);
}

TEST(StoreKeys, MistakesAreErrorsAtTheirLine) {
  struct Case {
    std::string_view admin;
    int line;
    std::string_view message;
  };
  const Case cases[] = {
      {"  store: {type: etc}\n", 2,
       "admin.store.type: unknown store type \"etc\"; use file or etcd"},
      {"  store: {type: etcd}\n", 2, "admin.store: type etcd needs `endpoints`"},
      {"  store: {endpoints: [http://127.0.0.1:2379]}\n", 2,
       "`endpoints` and `tls` are for type etcd"},
      {"  store:\n    type: etcd\n    endpoints: [127.0.0.1:2379]\n", 4,
       "\"127.0.0.1:2379\" is no etcd client URL"},
      {"  store:\n    type: etcd\n    endpoints:\n      - http://127.0.0.1\n", 5,
       "\"http://127.0.0.1\" is no etcd client URL"},
      {"  store: {type: etcd, endpoints: [\"http://127.0.0.1:2379/v3\"]}\n", 2,
       "is no etcd client URL"},
      {"  store: {type: etcd, endpoints: [\"ftp://127.0.0.1:2379\"]}\n", 2,
       "is no etcd client URL"},
      {"  store: {type: etcd, endpoints: []}\n", 2, "admin.store.endpoints: empty"},
      {"  store: {type: etcd, endpoints: [http://e:2379], prefix: /vigil}\n", 2,
       "admin.store.prefix: \"/vigil\" must end with \"/\""},
      {"  store: {type: etcd, endpoints: [http://e:2379], tls: {cert: /c}}\n", 2,
       "`cert` and `key` go together"},
      {"  store: {type: etcd, endpoints: [http://e:2379], timeout: 0s}\n", 2,
       "admin.store.timeout"},
      {"  store: {type: etcd, endpoints: [http://e:2379], tls: {crt: /c}}\n", 2,
       "unknown key \"crt\""},
      {"  store: etcd\n", 2, "admin.store: expected a map of keys"},
  };
  for (const Case& c : cases) {
    const LoadResult r = load_admin(c.admin);
    EXPECT_TRUE(has_error(r, c.line, c.message)) << c.admin << all(r.diagnostics);
    EXPECT_FALSE(r.process) << c.admin;
  }
}

}  // namespace
}  // namespace vigil::config
