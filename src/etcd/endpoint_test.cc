// The client's options are checked before anything connects: endpoint URLs, and TLS files that
// must load (the TLS cases with real files are in tests/integration/test_etcd_client.py).
#include "etcd/endpoint.h"

#include <gtest/gtest.h>

#include "etcd/client.h"

namespace vigil::etcd {
namespace {

TEST(EtcdEndpoint, Parses) {
  EXPECT_EQ(parse_endpoint("http://127.0.0.1:2379"),
            (Endpoint{"http://127.0.0.1:2379", "127.0.0.1", "2379", false}));
  EXPECT_EQ(parse_endpoint("https://etcd.example:12379/"),
            (Endpoint{"https://etcd.example:12379/", "etcd.example", "12379", true}));
  EXPECT_EQ(parse_endpoint("https://[::1]:2379"),
            (Endpoint{"https://[::1]:2379", "::1", "2379", true}));
  EXPECT_EQ(parse_endpoint("http://10.0.0.5"), (Endpoint{"http://10.0.0.5", "10.0.0.5", "2379"}));
}

TEST(EtcdEndpoint, RefusesWhatIsNotAnEndpoint) {
  struct Case {
    std::string url;
    std::string error;
  };
  for (const Case& c :
       {Case{"127.0.0.1:2379", "not a URL"},
        Case{"ftp://127.0.0.1:2379", "scheme must be http or https"}, Case{"http://", "no host"},
        Case{"http://127.0.0.1:2379/v3", "only scheme, host and port"},
        Case{"http://u@127.0.0.1:2379", "only scheme, host and port"},
        Case{"http://127.0.0.1:0", "bad port"}, Case{"not a url", "not a URL"}}) {
    auto e = parse_endpoint(c.url);
    ASSERT_FALSE(e) << c.url;
    EXPECT_NE(e.error().message.find(c.error), std::string::npos) << e.error().message;
    EXPECT_NE(e.error().message.find(c.url), std::string::npos) << e.error().message;
  }
}

TEST(EtcdEndpoint, CheckNamesTheFileThatDoesNotLoad) {
  Options options{.endpoints = {"https://127.0.0.1:2379"}, .ca = "/nonexistent/ca.pem"};
  auto r = Client::check(options);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("etcd ca /nonexistent/ca.pem"), std::string::npos)
      << r.error().message;
  options.ca.clear();
  options.cert = "/nonexistent/cert.pem";
  r = Client::check(options);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("both cert and key"), std::string::npos) << r.error().message;
  EXPECT_FALSE(Client::check(Options{}));
  EXPECT_TRUE(Client::check(Options{.endpoints = {"http://127.0.0.1:2379"}}));
}

}  // namespace
}  // namespace vigil::etcd
