// The connection log's line for a record, in text and as JSON fields. Pure.
#include "proxy/connection_log_line.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

namespace vigil::proxy {
namespace {

using namespace std::chrono_literals;

ConnectionRecord record() {
  ConnectionRecord r{.accepted = TimePoint{} + 1h,
                     .connected = TimePoint{} + 1h + 2ms,
                     .ended = TimePoint{} + 1h + 1503ms,
                     .bytes_in = 517,
                     .bytes_out = 4096,
                     .member_serial = 7,
                     .client_ip = {10, 0, 0, 5},
                     .client_ip_size = 4,
                     .client_port = 51234,
                     .end = SessionEnd::kClientClose};
  const std::string name = "api";
  std::copy(name.begin(), name.end(), r.listener.begin());
  return r;
}

const auto kAccepted = std::chrono::system_clock::time_point{} + 86400s + 1234ms;

TEST(ConnectionLine, SaysWhoHowLongHowMuchAndHowItEnded) {
  const MemberName m{.pool = "masters", .member = "master-01", .address = "10.0.0.11:6443"};
  const ConnectionLine line = connection_line(record(), &m, kAccepted);
  EXPECT_EQ(line.text,
            "connection listener api client 10.0.0.5:51234 member masters/master-01 "
            "10.0.0.11:6443 connect 2ms duration 1503ms bytes_in 517 bytes_out 4096 end "
            "client_close");
  EXPECT_EQ(
      boost::json::serialize(line.fields),
      R"({"listener":"api","client":"10.0.0.5:51234","accepted_at":"1970-01-02T00:00:01.234Z",)"
      R"("pool":"masters","member":"master-01","member_address":"10.0.0.11:6443",)"
      R"("connect_ms":2,"duration_ms":1503,"bytes_in":517,"bytes_out":4096,)"
      R"("end":"client_close","retries":0,"replayed":false})");
}

TEST(ConnectionLine, NoMemberReachedAndAMovedSession) {
  ConnectionRecord r = record();
  r.connected = TimePoint{};
  r.end = SessionEnd::kNoMember;
  r.retries = 3;
  r.replayed = true;
  r.client_ip = {};
  r.client_ip[15] = 1;  // ::1
  r.client_ip_size = 16;
  const ConnectionLine line = connection_line(r, nullptr, kAccepted);
  EXPECT_EQ(line.text,
            "connection listener api client [::1]:51234 member - connect - duration 1503ms "
            "bytes_in 517 bytes_out 4096 end no_member retries 3 replayed");
  EXPECT_TRUE(line.fields.at("member").is_null());
  EXPECT_TRUE(line.fields.at("connect_ms").is_null());
  EXPECT_EQ(line.fields.at("retries"), 3);
  EXPECT_TRUE(connection_line(r, nullptr, kAccepted, /*fields=*/false).fields.empty())
      << "a text log builds no JSON";
}

}  // namespace
}  // namespace vigil::proxy
