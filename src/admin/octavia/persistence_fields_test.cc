// A pool's session_persistence through the API: Octavia's validation (400s in its words), what
// an update keeps, what GET shows, the state file's round trip and the model the daemon runs.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "admin/octavia/json.h"
#include "admin/octavia/local_network.h"
#include "admin/octavia/object_store.h"
#include "admin/octavia/ops.h"
#include "admin/octavia/store_json.h"
#include "admin/octavia/views.h"

namespace vigil::admin {
namespace {

class SessionPersistenceApiTest : public ::testing::Test {
 protected:
  OpContext context() {
    return OpContext{
        .now = "2024-05-01T12:00:00",
        .new_id = [this] { return fmt::format("00000000-0000-4000-8000-{:012}", ++ids_); },
        .is_local_address = is_local_address,
    };
  }
  void SetUp() override {
    lb_id_ = *create_loadbalancer(s_, R"({"loadbalancer": {"name": "k8s"}})", context());
  }
  ApiResult<std::string> create(std::string_view persistence, std::string_view protocol = "TCP") {
    return create_pool(s_,
                       fmt::format(R"({{"pool": {{"loadbalancer_id": "{}", "protocol": "{}",
                           "lb_algorithm": "ROUND_ROBIN", "session_persistence": {}}}}})",
                                   lb_id_, protocol, persistence),
                       context());
  }
  const ApiPool& pool() const { return s_.loadbalancers.at(0).pools.at(0); }

  ApiState s_;
  std::string lb_id_;
  int ids_ = 0;
};

TEST_F(SessionPersistenceApiTest, RefusesWhatOctaviaRefusesOrVigilCannotDo) {
  struct Case {
    const char* description;
    const char* persistence;
    const char* message;
  };
  const Case cases[] = {
      {"unknown type", R"({"type": "SOURCE_IP_PORT"})",
       "Invalid input for field/attribute type. Value: 'SOURCE_IP_PORT'. Value should be one of: "
       "APP_COOKIE, HTTP_COOKIE, SOURCE_IP"},
      {"no type", R"({"persistence_timeout": 60})",
       "Invalid input for field/attribute type. Value: 'None'. Mandatory field missing."},
      {"HTTP cookie on a TCP pool", R"({"type": "HTTP_COOKIE"})",
       "Validation failure: Session persistence of type HTTP_COOKIE is not supported for TCP "
       "protocol pools."},
      {"app cookie on a TCP pool", R"({"type": "APP_COOKIE", "cookie_name": "s"})",
       "Validation failure: Session persistence of type APP_COOKIE is not supported for TCP "
       "protocol pools."},
      {"app cookie without a name", R"({"type": "APP_COOKIE"})",
       "Validation failure: Field \"cookie_name\" must be specified when using the "
       "\"APP_COOKIE\" session persistence type."},
      {"cookie name with SOURCE_IP", R"({"type": "SOURCE_IP", "cookie_name": "s"})",
       "Validation failure: Field \"cookie_name\" can only be specified with session "
       "persistence of type \"APP_COOKIE\"."},
      {"timeout not a number", R"({"type": "SOURCE_IP", "persistence_timeout": "long"})",
       "Invalid input for field/attribute persistence_timeout. Value: 'long'."},
      {"zero timeout", R"({"type": "SOURCE_IP", "persistence_timeout": 0})",
       "Value should be greater or equal to 1"},
      {"granularity not a netmask",
       R"({"type": "SOURCE_IP", "persistence_granularity": "255.0.255.0"})",
       "Invalid input for field/attribute persistence_granularity. Value: '255.0.255.0'. Value "
       "should be a netmask like 255.255.255.0"},
      {"unknown field", R"({"type": "SOURCE_IP", "colour": "red"})", "colour"},
      {"not an object", R"("SOURCE_IP")", "Invalid input for field/attribute session_persistence."},
  };
  for (const Case& c : cases) {
    auto made = create(c.persistence);
    ASSERT_FALSE(made) << c.description;
    EXPECT_EQ(made.error().status, 400) << c.description;
    EXPECT_NE(made.error().message.find(c.message), std::string::npos)
        << c.description << ": " << made.error().message;
  }
  EXPECT_TRUE(s_.loadbalancers.at(0).pools.empty());
}

TEST_F(SessionPersistenceApiTest, CookieTypesNameThePoolsProtocol) {
  auto made = create(R"({"type": "HTTP_COOKIE"})", "PROXY");
  ASSERT_FALSE(made);
  EXPECT_NE(made.error().message.find("for PROXY protocol pools"), std::string::npos);
}

TEST_F(SessionPersistenceApiTest, SourceIpIsKeptShownAndRun) {
  ASSERT_TRUE(create(R"({"type": "SOURCE_IP", "persistence_timeout": 600,
                          "persistence_granularity": "255.255.255.0"})"));
  ASSERT_TRUE(pool().session_persistence);
  EXPECT_EQ(pool().session_persistence->persistence_timeout, 600);
  // The model the daemon runs.
  const model::Config config = config_of(s_.loadbalancers.at(0));
  const model::SessionPersistence& sp = config.pools.at(0).session_persistence;
  EXPECT_EQ(sp.type, model::Persistence::kSourceIp);
  EXPECT_EQ(sp.timeout, std::chrono::seconds(600));
  EXPECT_EQ(sp.granularity, "255.255.255.0");
  // GET, as Octavia's SessionPersistenceResponse.
  const model::LoadBalancerView view = api_view(s_.loadbalancers.at(0), nullptr);
  const boost::json::object shown = octavia::pool(view, view.pools.at(0));
  EXPECT_EQ(boost::json::serialize(shown.at("session_persistence")),
            R"({"type":"SOURCE_IP","cookie_name":null,"persistence_timeout":600,)"
            R"("persistence_granularity":"255.255.255.0"})");
}

TEST_F(SessionPersistenceApiTest, TimeoutDefaultsToOctavias) {
  ASSERT_TRUE(create(R"({"type": "SOURCE_IP"})"));
  const model::Config config = config_of(s_.loadbalancers.at(0));
  EXPECT_EQ(config.pools.at(0).session_persistence.timeout, std::chrono::seconds(360));
  EXPECT_EQ(config.pools.at(0).session_persistence.granularity, "");
}

TEST_F(SessionPersistenceApiTest, NullFieldsAsOctaviasProviderSendsThemMeanTheDefaults) {
  // vigil's Octavia provider driver passes every key Octavia hands it, unset ones as null.
  const std::string id = *create(
      R"({"type": "SOURCE_IP", "persistence_timeout": null, "persistence_granularity": null})");
  EXPECT_EQ(config_of(s_.loadbalancers.at(0)).pools.at(0).session_persistence.timeout,
            std::chrono::seconds(360));
  ASSERT_TRUE(update_pool(s_, id, R"({"pool": {"session_persistence": {"type": "SOURCE_IP",
                              "persistence_timeout": 600}}})",
                          context()));
  ASSERT_TRUE(update_pool(s_, id, R"({"pool": {"session_persistence": {"type": "SOURCE_IP",
                              "persistence_timeout": null, "persistence_granularity": null}}})",
                          context()));
  EXPECT_EQ(pool().session_persistence->persistence_timeout, std::nullopt);
  EXPECT_EQ(config_of(s_.loadbalancers.at(0)).pools.at(0).session_persistence.timeout,
            std::chrono::seconds(360));
}

TEST_F(SessionPersistenceApiTest, UpdatesChangeNamedFieldsAndNullRemoves) {
  const std::string id = *create(R"({"type": "SOURCE_IP", "persistence_timeout": 600})");
  ASSERT_TRUE(update_pool(s_, id,
                          R"({"pool": {"session_persistence": {"persistence_granularity":
                              "ffff:ffff:ffff:ffff::"}}})",
                          context()));
  ASSERT_TRUE(pool().session_persistence);
  EXPECT_EQ(pool().session_persistence->persistence_timeout, 600);
  EXPECT_EQ(pool().session_persistence->persistence_granularity, "ffff:ffff:ffff:ffff::");
  // A refused update leaves the pool as it was.
  EXPECT_FALSE(update_pool(s_, id, R"({"pool": {"session_persistence": {"type": "HTTP_COOKIE"}}})",
                           context()));
  EXPECT_EQ(pool().session_persistence->type, "SOURCE_IP");
  ASSERT_TRUE(update_pool(s_, id, R"({"pool": {"session_persistence": null}})", context()));
  EXPECT_FALSE(pool().session_persistence);
  EXPECT_EQ(config_of(s_.loadbalancers.at(0)).pools.at(0).session_persistence.type,
            model::Persistence::kNone);
}

TEST_F(SessionPersistenceApiTest, RoundTripsThroughTheStateFile) {
  ASSERT_TRUE(create(R"({"type": "SOURCE_IP", "persistence_granularity": "255.255.0.0"})"));
  const std::string text = state_to_json(s_);
  auto back = state_from_json(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->loadbalancers.at(0).pools.at(0).session_persistence, pool().session_persistence);
  EXPECT_EQ(state_to_json(*back), text);
}

}  // namespace
}  // namespace vigil::admin
