#include "etcd/client.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/post.hpp>

#include "etcd/connection.h"

namespace vigil::etcd {

using Clock = std::chrono::steady_clock;

namespace {

// What the client needs from its options, made once: the endpoints taken apart, and the TLS
// context when any endpoint is https or a TLS file is given.
struct Prepared {
  std::vector<Endpoint> endpoints;
  std::shared_ptr<boost::asio::ssl::context> tls;
};

Result<Prepared> prepare(const Options& options) {
  auto endpoints = parse_endpoints(options.endpoints);
  if (!endpoints) return std::unexpected(endpoints.error());
  if (options.request_timeout.count() <= 0) return fail("etcd: the request timeout must be > 0");
  Prepared prepared{std::move(*endpoints), nullptr};
  const bool https = std::ranges::any_of(prepared.endpoints, &Endpoint::tls);
  if (https || !options.ca.empty() || !options.cert.empty() || !options.key.empty()) {
    auto tls = tls_context(options);
    if (!tls) return std::unexpected(tls.error());
    prepared.tls = std::move(*tls);
  }
  return prepared;
}

// The message of an answer other than 200 (the gateway's error, as etcd words it).
std::string status_error(const std::string& url, const Answer& answer) {
  return fmt::format("etcd at {}: HTTP {}: {}", url, answer.status, error_message(answer.body));
}

}  // namespace

Result<Options> Client::check(const Options& options) {
  auto prepared = prepare(options);
  if (!prepared) return std::unexpected(prepared.error());
  return options;
}

Client::Client(boost::asio::io_context& io, Options options)
    : io_(io), options_(std::move(options)) {
  auto prepared = prepare(options_);
  if (!prepared) {
    endpoints_ = std::unexpected(prepared.error());
    return;
  }
  endpoints_ = std::move(prepared->endpoints);
  tls_ = std::move(prepared->tls);
}

Client::~Client() {
  alive_.reset();
  if (unary_) unary_->close();
  cancel_watch();
}

const std::string& Client::endpoint_in_use() const {
  static const std::string kNone;
  return endpoints_ ? (*endpoints_)[current_].url : kNone;
}

void Client::later(std::function<void()> f) {
  boost::asio::post(io_, [alive = std::weak_ptr<bool>(alive_), f = std::move(f)] {
    if (alive.lock()) f();
  });
}

void Client::rotate() { current_ = (current_ + 1) % endpoints_->size(); }

std::shared_ptr<Connection> Client::connect_to_current() {
  return std::make_shared<Connection>(io_, (*endpoints_)[current_], tls_);
}

void Client::range_prefix(std::string prefix, std::function<void(Result<RangeResult>)> done) {
  call("/v3/kv/range", range_request(prefix),
       [this, done = std::move(done)](Result<std::string> body) {
         if (!body) return done(std::unexpected(body.error()));
         auto range = parse_range(*body);
         if (!range)
           return done(fail(
               fmt::format("etcd at {}: range: {}", endpoint_in_use(), range.error().message)));
         done(std::move(*range));
       });
}

void Client::txn(std::vector<Compare> compares, std::vector<Op> success,
                 std::function<void(Result<TxnResult>)> done) {
  call("/v3/kv/txn", txn_request(compares, success),
       [this, done = std::move(done)](Result<std::string> body) {
         if (!body) return done(std::unexpected(body.error()));
         auto txn = parse_txn(*body);
         if (!txn)
           return done(
               fail(fmt::format("etcd at {}: txn: {}", endpoint_in_use(), txn.error().message)));
         done(*txn);
       });
}

void Client::call(std::string target, std::string body,
                  std::function<void(Result<std::string>)> done) {
  if (!endpoints_) {
    later([done = std::move(done), error = endpoints_.error()] { done(std::unexpected(error)); });
    return;
  }
  queue_.push_back(Request{std::move(target), std::move(body), std::move(done)});
  pump();
}

void Client::pump() {
  if (busy_ || queue_.empty()) return;
  busy_ = true;
  attempt(0, Clock::now() + options_.request_timeout, "");
}

void Client::attempt(size_t tried, Clock::time_point deadline, std::string errors) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
  if (!unary_ || !unary_->usable()) {
    if (unary_) unary_->close();
    unary_ = connect_to_current();
  }
  const Request& request = queue_.front();
  unary_->request(request.target, request.body, left,
                  [this, tried, deadline, errors = std::move(errors)](Answer answer) mutable {
                    answered(std::move(answer), tried, deadline, std::move(errors));
                  });
}

void Client::answered(Answer answer, size_t tried, Clock::time_point deadline, std::string errors) {
  Result<std::string> result;
  if (!answer.error.empty()) {
    // Whatever broke, the next request starts from the next endpoint.
    unary_.reset();
    rotate();
    errors += (errors.empty() ? "" : "; ") + answer.error;
    // Only a request that never left may go to another endpoint now: a transaction that reached
    // etcd may have been applied, and sending it twice could apply it twice.
    if (!answer.sent && tried + 1 < endpoints_->size() && Clock::now() < deadline) {
      return attempt(tried + 1, deadline, std::move(errors));
    }
    result = fail(std::move(errors));
  } else if (answer.status != 200) {
    result = fail(status_error(endpoint_in_use(), answer));
    if (answer.status >= 500) {  // etcd unavailable there (no leader, stopping): try another next
      unary_.reset();
      rotate();
    }
  } else {
    result = std::move(answer.body);
  }
  Request request = std::move(queue_.front());
  queue_.pop_front();
  busy_ = false;
  std::weak_ptr<bool> alive = alive_;
  request.done(std::move(result));
  if (alive.lock()) pump();
}

void Client::watch_prefix(std::string prefix, int64_t start_revision,
                          std::function<void(WatchBatch)> on_batch,
                          std::function<void(WatchEnd)> on_end) {
  cancel_watch();
  watch_ = std::make_shared<Watch>();
  watch_->id = next_watch_id_++;
  watch_->prefix = std::move(prefix);
  watch_->start_revision = start_revision;
  watch_->on_batch = std::move(on_batch);
  watch_->on_end = std::move(on_end);
  if (!endpoints_) {
    later([this, id = watch_->id, error = endpoints_.error().message] {
      if (watch_ && watch_->id == id) end_watch(WatchEnd{error, 0});
    });
    return;
  }
  watch_attempt(0, "");
}

void Client::watch_attempt(size_t tried, std::string errors) {
  auto connection = connect_to_current();
  watch_->connection = connection;
  connection->stream(
      "/v3/watch", watch_request(watch_->prefix, watch_->start_revision), options_.request_timeout,
      [this](std::string_view bytes) { return watch_data(bytes); },
      [this, tried, errors = std::move(errors)](Answer answer) mutable {
        if (answer.error.empty()) {
          return end_watch(WatchEnd{status_error(watch_->connection->endpoint().url, answer), 0});
        }
        rotate();
        errors += (errors.empty() ? "" : "; ") + answer.error;
        if (!answer.sent && tried + 1 < endpoints_->size()) {
          return watch_attempt(tried + 1, std::move(errors));
        }
        end_watch(WatchEnd{std::move(errors), 0});
      });
}

bool Client::watch_data(std::string_view bytes) {
  const std::string& url = watch_->connection->endpoint().url;
  std::vector<std::string> lines;
  if (!watch_->lines.feed(bytes, lines)) {
    end_watch(WatchEnd{
        fmt::format("etcd at {}: a watch message longer than {} bytes", url, kMaxWatchMessage), 0});
    return false;
  }
  for (const std::string& line : lines) {
    auto message = parse_watch_message(line);
    if (!message) {
      end_watch(WatchEnd{fmt::format("etcd at {}: watch: {}", url, message.error().message), 0});
      return false;
    }
    if (message->kind == WatchMessage::Kind::kEnd) {
      WatchEnd end = std::move(message->end);
      if (!end.error.empty()) end.error = fmt::format("etcd at {}: {}", url, end.error);
      end_watch(std::move(end));
      return false;
    }
    if (message->kind != WatchMessage::Kind::kEvents) continue;
    Watch& w = *watch_;
    for (Event& e : message->batch.events) {
      w.pending_bytes += e.kv.key.size() + e.kv.value.size();
      w.pending.events.push_back(std::move(e));
    }
    w.pending.revision = message->batch.revision;
    if (w.pending_bytes > kMaxWatchBatch) {
      end_watch(WatchEnd{
          fmt::format("etcd at {}: a watch batch larger than {} bytes", url, kMaxWatchBatch), 0});
      return false;
    }
    if (!message->fragment && !w.pending.events.empty()) {
      WatchBatch batch = std::exchange(w.pending, {});
      w.pending_bytes = 0;
      std::weak_ptr<bool> alive = alive_;
      const std::shared_ptr<Watch> watch = watch_;  // on_batch lives on if it cancels the watch
      watch->on_batch(std::move(batch));
      // The callback may have cancelled this watch, started another or destroyed the client.
      if (!alive.lock() || watch_ != watch) return false;
    }
  }
  return true;
}

void Client::end_watch(WatchEnd end) {
  std::shared_ptr<Watch> watch = std::move(watch_);
  if (watch->connection) watch->connection->close();
  watch->on_end(std::move(end));  // may start the next watch or destroy this client
}

void Client::cancel_watch() {
  if (!watch_) return;
  if (watch_->connection) watch_->connection->close();
  watch_.reset();
}

}  // namespace vigil::etcd
