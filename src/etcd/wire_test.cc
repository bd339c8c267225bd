// The JSON gateway's wire format: the bodies the client sends, and what it makes of etcd's
// answers and watch messages, garbage included (an error naming what is wrong, never a crash).
#include "etcd/wire.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace vigil::etcd {
namespace {

namespace json = boost::json;

TEST(EtcdWire, Base64RoundTripsEveryLength) {
  std::string bytes;
  for (int i = 0; i < 260; ++i) {
    auto back = base64_decode(base64_encode(bytes));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(*back, bytes);
    bytes.push_back(static_cast<char>(i * 37));
  }
  EXPECT_EQ(base64_encode("a/b"), "YS9i");
}

TEST(EtcdWire, Base64GarbageIsAnError) {
  struct Case {
    const char* description;
    std::string text;
  };
  for (const Case& c : {Case{.description = "length", .text = "YS9"},
                        Case{.description = "alphabet", .text = "YS*i"},
                        Case{.description = "after padding", .text = "dg=a"},
                        Case{.description = "three pads", .text = "d==="},
                        Case{.description = "space", .text = "YS i"}}) {
    auto r = base64_decode(c.text);
    EXPECT_FALSE(r) << c.description;
    if (!r) {
      EXPECT_NE(r.error().message.find("base64"), std::string::npos) << c.description;
    }
  }
}

TEST(EtcdWire, PrefixRangeEndIncrementsTheLastByte) {
  EXPECT_EQ(prefix_range_end("a/"), "a0");
  EXPECT_EQ(prefix_range_end("a\xff"), "b");
  EXPECT_EQ(prefix_range_end("\xff\xff"), std::string(1, '\0'));
  EXPECT_EQ(prefix_range_end(""), std::string(1, '\0'));
}

TEST(EtcdWire, RequestsCarryBase64KeysAndInt64sAsStrings) {
  EXPECT_EQ(json::parse(range_request("a/")), json::parse(R"({"key":"YS8=","range_end":"YTA="})"));
  EXPECT_EQ(json::parse(watch_request("a/", 7)),
            json::parse(R"({"create_request":{"key":"YS8=","range_end":"YTA=",
                            "start_revision":"7","fragment":true}})"));
  const std::string txn = txn_request({{.key = "a/b", .mod_revision = 0}},
                                      {{.kind = Op::Kind::kPut, .key = "a/b", .value = "v"},
                                       {.kind = Op::Kind::kDelete, .key = "a/c"},
                                       {.kind = Op::Kind::kDeletePrefix, .key = "a/"}});
  EXPECT_EQ(json::parse(txn), json::parse(R"({
    "compare":[{"target":"MOD","result":"EQUAL","key":"YS9i","mod_revision":"0"}],
    "success":[{"request_put":{"key":"YS9i","value":"dg=="}},
               {"request_delete_range":{"key":"YS9j"}},
               {"request_delete_range":{"key":"YS8=","range_end":"YTA="}}]})"));
}

TEST(EtcdWire, RangeAnswers) {
  auto r = parse_range(R"({"header":{"cluster_id":"1","revision":"12"},"count":"2","kvs":[
      {"key":"YS9i","create_revision":"2","mod_revision":"11","version":"3","value":"dg=="},
      {"key":"YS9j","create_revision":"12","mod_revision":"12","version":"1"}]})");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r,
            (RangeResult{.revision = 12, .kvs = {{"a/b", "v", 2, 11, 3}, {"a/c", "", 12, 12, 1}}}));
  auto empty = parse_range(R"({"header":{"revision":"5"}})");
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_EQ(*empty, (RangeResult{.revision = 5}));
}

TEST(EtcdWire, TxnAnswers) {
  auto ok = parse_txn(R"({"header":{"revision":"8"},"succeeded":true,"responses":[{}]})");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(*ok, (TxnResult{.succeeded = true, .revision = 8}));
  auto failed = parse_txn(R"({"header":{"revision":"8"}})");  // false is left out
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_EQ(*failed, (TxnResult{.succeeded = false, .revision = 8}));
}

TEST(EtcdWire, GarbageAnswersNameWhatIsWrong) {
  struct Case {
    const char* description;
    std::string body;
    std::string error;
  };
  for (const Case& c : {
           Case{.description = "not JSON", .body = "<html>", .error = "not JSON"},
           Case{.description = "array", .body = "[]", .error = "not a JSON object"},
           Case{.description = "no header", .body = R"({"kvs":[]})", .error = "no header"},
           Case{.description = "revision",
           .body = R"({"header":{"revision":"12x"}})",
           .error = "revision is not an int64"},
           Case{.description = "revision overflow",
           .body = R"({"header":{"revision":"99999999999999999999"}})",
           .error = "revision is not an int64"},
           Case{.description = "kvs",
           .body = R"({"header":{"revision":"1"},"kvs":{}})",
           .error = "kvs is not an array"},
           Case{.description = "key",
           .body = R"({"header":{"revision":"1"},"kvs":[{"key":"!!!!"}]})",
           .error = "key: bad base64"},
           Case{.description = "version",
           .body = R"({"header":{"revision":"1"},"kvs":[{"key":"YQ==","version":true}]})",
           .error = "version is not an int64"},
       }) {
    auto r = parse_range(c.body);
    ASSERT_FALSE(r) << c.description;
    EXPECT_NE(r.error().message.find(c.error), std::string::npos)
        << c.description << ": " << r.error().message;
  }
  auto txn = parse_txn(R"({"header":{"revision":"1"},"succeeded":"yes"})");
  ASSERT_FALSE(txn);
  EXPECT_EQ(txn.error().message, "succeeded is not a boolean");
}

TEST(EtcdWire, ErrorMessagesOfTheGateway) {
  EXPECT_EQ(error_message(R"({"error":"etcdserver: no leader","message":"etcdserver: no leader",
                              "code":14})"),
            "etcdserver: no leader");
  EXPECT_EQ(error_message(R"({"error":{"grpc_code":14,"message":"etcdserver: no leader"}})"),
            "etcdserver: no leader");
  EXPECT_EQ(error_message("404 page not found\n"), "404 page not found?");
  EXPECT_EQ(error_message(std::string(300, 'x')), std::string(200, 'x') + "...");
}

TEST(EtcdWire, WatchMessages) {
  auto created = parse_watch_message(
      R"({"result":{"header":{"revision":"1"},"watch_id":"0","created":true}})");
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created->kind, WatchMessage::Kind::kCreated);

  auto events = parse_watch_message(R"({"result":{"header":{"revision":"3"},"events":[
      {"kv":{"key":"YS9i","create_revision":"2","mod_revision":"3","version":"2","value":"dg=="}},
      {"type":"DELETE","kv":{"key":"YS9j","mod_revision":"3"}}]}})");
  ASSERT_TRUE(events) << events.error().message;
  EXPECT_EQ(events->kind, WatchMessage::Kind::kEvents);
  EXPECT_EQ(events->batch, (WatchBatch{.revision = 3,
                                       .events = {{Event::Kind::kPut, {"a/b", "v", 2, 3, 2}},
                                                  {Event::Kind::kDelete, {"a/c", "", 0, 3, 0}}}}));

  EXPECT_FALSE(events->fragment);
  auto fragment = parse_watch_message(
      R"({"result":{"header":{"revision":"3"},"fragment":true,"events":[{"kv":{"key":"YQ=="}}]}})");
  ASSERT_TRUE(fragment) << fragment.error().message;
  EXPECT_TRUE(fragment->fragment);

  auto compacted = parse_watch_message(
      R"({"result":{"header":{"revision":"9"},"compact_revision":"5","canceled":true}})");
  ASSERT_TRUE(compacted) << compacted.error().message;
  EXPECT_EQ(compacted->kind, WatchMessage::Kind::kEnd);
  EXPECT_EQ(compacted->end, (WatchEnd{.error = "", .compact_revision = 5}));

  auto canceled = parse_watch_message(
      R"({"result":{"header":{"revision":"9"},"canceled":true,"cancel_reason":"why"}})");
  ASSERT_TRUE(canceled) << canceled.error().message;
  EXPECT_EQ(canceled->end, (WatchEnd{.error = "etcd canceled the watch: why"}));

  auto error = parse_watch_message(R"({"error":{"grpc_code":14,"message":"no leader"}})");
  ASSERT_TRUE(error) << error.error().message;
  EXPECT_EQ(error->kind, WatchMessage::Kind::kEnd);
  EXPECT_EQ(error->end.error, "etcd ended the watch: no leader");
}

TEST(EtcdWire, GarbageWatchMessagesAreErrors) {
  for (const char* text : {
           "{",
           "null",
           R"({"result":1})",
           R"({"result":{}})",
           R"({"result":{"header":{"revision":"1"},"events":[{"type":"MOVE","kv":{}}]}})",
           R"({"result":{"header":{"revision":"1"},"events":[{"type":"PUT"}]}})",
           R"({"result":{"header":{"revision":"1"},"compact_revision":"five"}})",
           R"({"result":{"header":{"revision":"1"},"compact_revision":"-5","canceled":true}})",
           R"({"result":{"header":{"revision":"1"},"created":"yes"}})",
       }) {
    EXPECT_FALSE(parse_watch_message(text)) << text;
  }
}

TEST(EtcdWire, LineSplitterJoinsReadsAndBoundsALine) {
  LineSplitter splitter(10);
  std::vector<std::string> lines;
  EXPECT_TRUE(splitter.feed("{\"a\"", lines));
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(splitter.feed(":1}\n\r\n{}\n{", lines));
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{}"}));
  lines.clear();
  EXPECT_TRUE(splitter.feed("123456789", lines));  // "{" and nine more: at the limit
  EXPECT_FALSE(splitter.feed("0", lines));
}

}  // namespace
}  // namespace vigil::etcd
