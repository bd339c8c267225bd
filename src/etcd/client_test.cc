// The client against a fake etcd on loopback (its JSON answers written by hand): requests queue
// and answer in order on one kept connection, a silent server times out, a watch delivers its
// batches and ends once, and nothing calls back after cancel_watch() or the client's destructor,
// also when a callback destroys the client. The real etcd: tests/integration/test_etcd_client.py.
#include "etcd/client.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <optional>

#include "testing/run_until.h"

namespace vigil::etcd {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using asio::ip::tcp;
using std::chrono::milliseconds;
using vigil::testing::run_ready;
using vigil::testing::run_until;

std::string http_ok(const std::string& body) {
  return fmt::format(
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
      body.size(), body);
}

std::string chunk(const std::string& line) {
  return fmt::format("{:x}\r\n{}\n\r\n", line.size() + 1, line);
}

std::string range_answer(int revision) {
  return http_ok(fmt::format(R"({{"header":{{"revision":"{}"}}}})", revision));
}

constexpr const char* kStreamHead =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
constexpr const char* kCreated = R"({"result":{"header":{"revision":"1"},"created":true}})";
std::string events(int revision, const std::string& key) {
  return fmt::format(
      R"({{"result":{{"header":{{"revision":"{0}"}},"events":[{{"kv":{{"key":"{1}","mod_revision":"{0}"}}}}]}}}})",
      revision, key);
}

// A fake etcd: answers each request with what `reply` returns for its target (raw HTTP bytes;
// none: never answers), and keeps every connection open.
class FakeEtcd {
 public:
  using Reply = std::function<std::optional<std::string>(const std::string& target)>;
  FakeEtcd(asio::io_context& io, Reply reply)
      : acceptor_(io, {asio::ip::make_address("127.0.0.1"), 0}), reply_(std::move(reply)) {
    accept();
  }
  std::string url() const {
    return fmt::format("http://127.0.0.1:{}", acceptor_.local_endpoint().port());
  }
  int connections = 0;
  std::vector<std::string> targets;
  bool close_after_answer = false;  // as a restarted etcd closes what was kept open

 private:
  struct Session {
    explicit Session(tcp::socket s) : socket(std::move(s)) {}
    tcp::socket socket;
    boost::beast::flat_buffer buffer;
    http::request<http::string_body> request;
    std::string out;
  };

  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) return;
      ++connections;
      auto s = std::make_shared<Session>(std::move(socket));
      sessions_.push_back(s);
      read(s);
      accept();
    });
  }

  void read(std::shared_ptr<Session> s) {
    s->request = {};
    http::async_read(s->socket, s->buffer, s->request,
                     [this, s](boost::system::error_code ec, size_t) {
                       if (ec) return;
                       targets.emplace_back(s->request.target());
                       auto answer = reply_(std::string(s->request.target()));
                       if (!answer) return;
                       s->out = std::move(*answer);
                       asio::async_write(s->socket, asio::buffer(s->out),
                                         [this, s](boost::system::error_code ec, size_t) {
                                           if (ec) return;
                                           if (close_after_answer) return s->socket.close();
                                           read(s);
                                         });
                     });
  }

  tcp::acceptor acceptor_;
  Reply reply_;
  std::vector<std::shared_ptr<Session>> sessions_;
};

TEST(EtcdClient, RequestsQueueAndAnswerInOrderOnOneConnection) {
  asio::io_context io;
  int n = 0;
  FakeEtcd etcd(io, [&](const std::string&) { return range_answer(++n); });
  Client client(io, Options{.endpoints = {etcd.url()}});
  std::vector<int64_t> revisions;
  for (int i = 0; i < 3; ++i) {
    client.range_prefix("a/", [&](Result<RangeResult> r) {
      ASSERT_TRUE(r) << r.error().message;
      revisions.push_back(r->revision);
    });
  }
  EXPECT_TRUE(revisions.empty());  // never inside the call
  ASSERT_TRUE(run_until(io, [&] { return revisions.size() == 3; }));
  EXPECT_EQ(revisions, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(etcd.connections, 1);
  EXPECT_EQ(etcd.targets, (std::vector<std::string>(3, "/v3/kv/range")));
  EXPECT_EQ(client.endpoint_in_use(), etcd.url());
}

TEST(EtcdClient, ARefusedEndpointIsSkippedAndTheOneThatAnsweredKept) {
  asio::io_context io;
  FakeEtcd etcd(io, [&](const std::string&) { return range_answer(7); });
  const std::string refused = [&] {
    tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
    return fmt::format("http://127.0.0.1:{}", a.local_endpoint().port());
  }();  // closed again: nothing listens there now
  Client client(io, Options{.endpoints = {refused, etcd.url()}});
  int answered = 0;
  for (int i = 0; i < 2; ++i) {
    client.range_prefix("a/", [&](Result<RangeResult> r) {
      ASSERT_TRUE(r) << r.error().message;
      ++answered;
    });
  }
  ASSERT_TRUE(run_until(io, [&] { return answered == 2; }));
  EXPECT_EQ(client.endpoint_in_use(), etcd.url());
  EXPECT_EQ(etcd.connections, 1);
}

TEST(EtcdClient, AConnectionTheServerClosedIsNotReused) {
  asio::io_context io;
  int n = 0;
  FakeEtcd etcd(io, [&](const std::string&) { return range_answer(++n); });
  etcd.close_after_answer = true;
  Client client(io, Options{.endpoints = {etcd.url()}});
  std::vector<int64_t> revisions;
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(run_until(io, [&] { return etcd.connections == i; }));
    // One at a time, after the close has arrived: the client must see it and connect again.
    client.range_prefix("a/", [&](Result<RangeResult> r) {
      ASSERT_TRUE(r) << r.error().message;
      revisions.push_back(r->revision);
    });
    ASSERT_TRUE(run_until(io, [&] { return revisions.size() == size_t(i + 1); }));
    run_ready(io);
  }
  EXPECT_EQ(revisions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(etcd.connections, 2);
}

TEST(EtcdClient, ALargeAnswerPassesThroughTheBoundedBuffer) {
  asio::io_context io;
  std::string kvs;
  const std::string value = base64_encode(std::string(64 << 10, 'v'));
  for (int i = 0; i < 80; ++i) {  // 80 values of 64 KiB: 7 MiB of JSON
    kvs += fmt::format(R"({}{{"key":"{}","value":"{}","mod_revision":"{}"}})", i ? "," : "",
                       base64_encode(fmt::format("a/{:02}", i)), value, i + 1);
  }
  FakeEtcd etcd(io, [&](const std::string&) {
    return http_ok(R"({"header":{"revision":"80"},"kvs":[)" + kvs + "]}");
  });
  Client client(io, Options{.endpoints = {etcd.url()}});
  std::optional<Result<RangeResult>> result;
  client.range_prefix("a/", [&](Result<RangeResult> r) { result = std::move(r); });
  ASSERT_TRUE(run_until(io, [&] { return result.has_value(); }));
  ASSERT_TRUE(*result) << (*result).error().message;
  ASSERT_EQ((*result)->kvs.size(), 80u);
  EXPECT_EQ((*result)->kvs[79].key, "a/79");
  EXPECT_EQ((*result)->kvs[79].value.size(), 64u << 10);
}

TEST(EtcdClient, ASilentServerTimesOutNamingTheEndpoint) {
  asio::io_context io;
  FakeEtcd etcd(io, [](const std::string&) { return std::nullopt; });
  Client client(io, Options{.endpoints = {etcd.url()}, .request_timeout = milliseconds(100)});
  std::optional<Result<TxnResult>> result;
  client.txn({}, {{.kind = Op::Kind::kPut, .key = "k", .value = "v"}},
             [&](Result<TxnResult> r) { result = std::move(r); });
  ASSERT_TRUE(run_until(io, [&] { return result.has_value(); }));
  ASSERT_FALSE(*result);
  EXPECT_EQ(result->error().message, "etcd at " + etcd.url() + ": no answer within 100 ms");
}

TEST(EtcdClient, BadOptionsFailEveryRequestLater) {
  asio::io_context io;
  Client client(io, Options{.endpoints = {"ftp://127.0.0.1:1"}});
  std::optional<Result<RangeResult>> result;
  std::optional<WatchEnd> end;
  client.range_prefix("a/", [&](Result<RangeResult> r) { result = std::move(r); });
  client.watch_prefix(
      "a/", 1, [](WatchBatch) { FAIL(); }, [&](WatchEnd e) { end = e; });
  EXPECT_FALSE(result);
  ASSERT_TRUE(run_until(io, [&] { return result && end; }));
  EXPECT_NE(result->error().message.find("scheme must be http or https"), std::string::npos);
  EXPECT_NE(end->error.find("scheme must be http or https"), std::string::npos);
}

TEST(EtcdClient, AWatchDeliversBatchesInOrderAndEndsOnceOnCompaction) {
  asio::io_context io;
  FakeEtcd etcd(io, [](const std::string&) {
    return std::string(kStreamHead) + chunk(kCreated) + chunk(events(2, "YS8x")) +
           chunk(events(3, "YS8y") + "\n" + events(4, "YS8z")) +
           chunk(
               R"({"result":{"header":{"revision":"4"},"compact_revision":"3","canceled":true}})");
  });
  Client client(io, Options{.endpoints = {etcd.url()}});
  std::vector<std::string> keys;
  std::vector<WatchEnd> ends;
  client.watch_prefix(
      "a/", 2,
      [&](WatchBatch b) {
        for (const Event& e : b.events) keys.push_back(e.kv.key);
      },
      [&](WatchEnd e) { ends.push_back(e); });
  ASSERT_TRUE(run_until(io, [&] { return !ends.empty(); }));
  EXPECT_EQ(keys, (std::vector<std::string>{"a/1", "a/2", "a/3"}));
  EXPECT_EQ(ends, (std::vector<WatchEnd>{{.error = "", .compact_revision = 3}}));
  EXPECT_EQ(etcd.targets, (std::vector<std::string>{"/v3/watch"}));
}

TEST(EtcdClient, AWatchJoinsTheFragmentsOfABatch) {
  asio::io_context io;
  const std::string fragment =
      R"({"result":{"header":{"revision":"9"},"fragment":true,"events":[{"kv":{"key":"YS8x","mod_revision":"2"}}]}})";
  FakeEtcd etcd(io, [&](const std::string&) {
    return std::string(kStreamHead) + chunk(kCreated) + chunk(fragment) + chunk(fragment) +
           chunk(events(9, "YS8y"));
  });
  Client client(io, Options{.endpoints = {etcd.url()}});
  std::vector<WatchBatch> batches;
  client.watch_prefix(
      "a/", 2, [&](WatchBatch b) { batches.push_back(std::move(b)); },
      [&](WatchEnd e) { FAIL() << e.error; });
  ASSERT_TRUE(run_until(io, [&] { return !batches.empty(); }));
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].revision, 9);
  ASSERT_EQ(batches[0].events.size(), 3u);
  EXPECT_EQ(batches[0].events[2].kv.key, "a/2");
}

TEST(EtcdClient, CancelWatchInsideOnBatchStopsEverything) {
  asio::io_context io;
  FakeEtcd etcd(io, [](const std::string&) {
    return std::string(kStreamHead) + chunk(kCreated) + chunk(events(2, "YS8x")) +
           chunk(events(3, "YS8y")) + chunk("garbage that would end the watch");
  });
  Client client(io, Options{.endpoints = {etcd.url()}});
  int batches = 0;
  client.watch_prefix(
      "a/", 2,
      [&](WatchBatch) {
        client.cancel_watch();
        ++batches;  // this callback's captures outlive the cancel (ASan checks)
      },
      [&](WatchEnd e) { FAIL() << "on_end after cancel_watch: " << e.error; });
  ASSERT_TRUE(run_until(io, [&] { return batches == 1; }));
  run_ready(io);  // what the server had sent and what the cancel queued have run, calling nothing
  EXPECT_EQ(batches, 1);
}

TEST(EtcdClient, NothingCallsBackAfterTheDestructor) {
  asio::io_context io;
  FakeEtcd etcd(io, [](const std::string& target) -> std::optional<std::string> {
    if (target == "/v3/watch") return std::string(kStreamHead) + chunk(kCreated);
    return std::nullopt;  // requests wait forever
  });
  auto client = std::make_unique<Client>(io, Options{.endpoints = {etcd.url()}});
  int calls = 0;
  client->range_prefix("a/", [&](Result<RangeResult>) { ++calls; });
  client->range_prefix("b/", [&](Result<RangeResult>) { ++calls; });
  client->watch_prefix(
      "a/", 1, [&](WatchBatch) { ++calls; }, [&](WatchEnd) { ++calls; });
  ASSERT_TRUE(run_until(io, [&] { return etcd.targets.size() == 2; }));
  client.reset();
  run_ready(io);
  EXPECT_EQ(calls, 0);
}

TEST(EtcdClient, ACallbackMayDestroyTheClient) {
  asio::io_context io;
  int n = 0;
  FakeEtcd etcd(io, [&](const std::string&) { return range_answer(++n); });
  auto client = std::make_unique<Client>(io, Options{.endpoints = {etcd.url()}});
  int calls = 0;
  client->range_prefix("a/", [&](Result<RangeResult>) {
    ++calls;
    client.reset();
  });
  client->range_prefix("b/", [&](Result<RangeResult>) { ++calls; });
  ASSERT_TRUE(run_until(io, [&] { return calls == 1; }));
  run_ready(io);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(client, nullptr);
}

TEST(EtcdClient, AWatchMayStartTheNextOneFromOnEnd) {
  asio::io_context io;
  int watches = 0;
  FakeEtcd etcd(io, [&](const std::string&) {
    ++watches;
    return std::string(kStreamHead) + chunk(kCreated) + chunk(events(2, "YS8x")) +
           chunk(R"({"result":{"header":{"revision":"4"},"canceled":true}})");
  });
  Client client(io, Options{.endpoints = {etcd.url()}});
  std::vector<std::string> ends;
  int batches = 0;
  std::function<void()> watch = [&] {
    client.watch_prefix(
        "a/", 2, [&](WatchBatch) { ++batches; },
        [&](WatchEnd e) {
          ends.push_back(e.error);
          if (ends.size() < 3) watch();
        });
  };
  watch();
  ASSERT_TRUE(run_until(io, [&] { return ends.size() == 3; }));
  EXPECT_EQ(batches, 3);
  EXPECT_EQ(watches, 3);
  EXPECT_EQ(ends[0], "etcd at " + etcd.url() + ": etcd canceled the watch");
}

}  // namespace
}  // namespace vigil::etcd
