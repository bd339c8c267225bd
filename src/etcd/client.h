// Client: an asynchronous etcd v3 client over etcd's JSON gateway (HTTP/1.1 + JSON, plain or
// TLS), for keeping objects in etcd: range a prefix, a transaction guarded by mod revisions, and
// one watch of a prefix. It lives on one io_context and is called and calls back on its thread
// only; every callback runs on that thread, never inside the call that asked for it.
// Requests are serialized on one kept-alive connection (one in flight, the rest queued); the
// watch has a connection of its own. A request that cannot connect tries the next endpoint;
// any connection error or timeout makes the next request start from the next endpoint, and the
// one that answered is kept. Every error message names the endpoint and what happened.
// A callback may call any method, start the next watch, or destroy the client. A watch has no
// timeout once etcd answered: a host that goes away ends it through TCP keepalive (about 25 s),
// an etcd that stops answering on a live host does not.
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "etcd/endpoint.h"
#include "etcd/types.h"
#include "etcd/wire.h"

namespace vigil::etcd {

class Connection;
struct Answer;

class Client {
 public:
  Client(boost::asio::io_context& io, Options options);  // all callbacks run on `io`'s thread
  ~Client();  // cancels everything; no callback runs after the destructor
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Static validation: URLs parse, scheme http/https, files readable and load (CA, cert+key
  // match); the error names what is wrong. A Client made from options that fail this fails
  // every request with the same error.
  static Result<Options> check(const Options& options);

  void range_prefix(std::string prefix, std::function<void(Result<RangeResult>)> done);
  void txn(std::vector<Compare> compares, std::vector<Op> success,
           std::function<void(Result<TxnResult>)> done);
  // Starts watching every key under `prefix` from start_revision (inclusive). on_batch for each
  // non-empty batch of events, in order. on_end once, when it ends for any reason (then call
  // watch_prefix again). Only one watch at a time: starting one cancels the one before.
  void watch_prefix(std::string prefix, int64_t start_revision,
                    std::function<void(WatchBatch)> on_batch, std::function<void(WatchEnd)> on_end);
  void cancel_watch();                         // on_end is not called after this
  const std::string& endpoint_in_use() const;  // for messages and metrics

 private:
  // The longest watch message (a batch of events): etcd caps a request at 1.5 MiB by default,
  // and a transaction's events come in one message.
  static constexpr size_t kMaxWatchMessage = 64 << 20;
  // The keys and values of one batch that etcd sent in fragments: its own limit on a batch is its
  // history, so this is the bound on what a watch holds.
  static constexpr size_t kMaxWatchBatch = 256 << 20;

  struct Request {
    std::string target, body;
    std::function<void(Result<std::string>)> done;  // the body of a 200 answer
  };
  struct Watch {
    uint64_t id = 0;  // tells a new watch from the one a callback ended
    std::string prefix;
    int64_t start_revision = 0;
    std::function<void(WatchBatch)> on_batch;
    std::function<void(WatchEnd)> on_end;
    LineSplitter lines{kMaxWatchMessage};
    WatchBatch pending;  // the fragments of a batch so far
    size_t pending_bytes = 0;
    std::shared_ptr<Connection> connection;
  };

  void call(std::string target, std::string body, std::function<void(Result<std::string>)> done);
  void pump();
  void attempt(size_t tried, std::chrono::steady_clock::time_point deadline, std::string errors);
  void answered(Answer answer, size_t tried, std::chrono::steady_clock::time_point deadline,
                std::string errors);
  void watch_attempt(size_t tried, std::string errors);
  bool watch_data(std::string_view bytes);
  void end_watch(WatchEnd end);
  std::shared_ptr<Connection> connect_to_current();
  void rotate();
  // Runs `f` on the io_context later, unless this client is gone by then.
  void later(std::function<void()> f);

  boost::asio::io_context& io_;
  Options options_;
  Result<std::vector<Endpoint>> endpoints_;  // or why the options are unusable
  std::shared_ptr<boost::asio::ssl::context> tls_;
  size_t current_ = 0;
  std::deque<Request> queue_;
  bool busy_ = false;
  std::shared_ptr<Connection> unary_;
  std::shared_ptr<Watch> watch_;  // shared: held while its callback runs, which may cancel it
  uint64_t next_watch_id_ = 1;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace vigil::etcd
