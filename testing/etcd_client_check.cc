// vigil-etcd-check: drives vigil::etcd::Client from the command line for the integration tests
// (tests/integration/test_etcd_client.py), one JSON line per result:
//   put KEY VALUE [--if-mod REV] [--repeat N]   a txn; --if-mod 0: only if KEY does not exist
//   delete KEY [--if-mod REV]
//   range PREFIX
//   watch PREFIX --from REV --count N --timeout-ms T
// Exit codes: 0 every request succeeded (a watch saw N events), 1 an error or a timeout, 2 usage.
#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <optional>

#include "etcd/client.h"

namespace {

namespace json = boost::json;
using namespace vigil::etcd;
using vigil::Result;

void print(const json::object& o) {
  std::printf("%s\n", json::serialize(o).c_str()), std::fflush(stdout);
}

json::object kv_json(const KeyValue& kv) {
  return {{"key", kv.key},
          {"value", kv.value},
          {"create_revision", kv.create_revision},
          {"mod_revision", kv.mod_revision},
          {"version", kv.version}};
}

struct Args {
  Options options;
  long long timeout_ms = 2000;
  std::string key, value, prefix;
  std::optional<long long> if_mod;
  int repeat = 1;
  long long from = 0;
  int count = 1;
  long long watch_timeout_ms = 10000;
};

// Runs `times` transactions one after the other on one client (so that it keeps the endpoint
// that answered), printing each result with the endpoint in use.
void run_txn(Client& client, std::vector<Compare> compares, std::vector<Op> ops, int times,
             int& failures) {
  if (times == 0) return;
  client.txn(compares, ops, [&client, compares, ops, times, &failures](Result<TxnResult> r) {
    if (r) {
      print({{"succeeded", r->succeeded},
             {"revision", r->revision},
             {"endpoint", client.endpoint_in_use()}});
    } else {
      ++failures;
      print({{"error", r.error().message}, {"endpoint", client.endpoint_in_use()}});
    }
    run_txn(client, compares, ops, times - 1, failures);
  });
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app("vigil-etcd-check: vigil's etcd client from the command line, for tests");
  app.add_option("--endpoints", a.options.endpoints, "etcd client URLs")
      ->required()
      ->delimiter(',');
  app.add_option("--ca", a.options.ca, "CA to verify etcd with");
  app.add_option("--cert", a.options.cert, "client certificate");
  app.add_option("--key", a.options.key, "client key");
  app.add_option("--request-timeout-ms", a.timeout_ms, "a whole request's timeout");
  app.require_subcommand(1);
  CLI::App* put = app.add_subcommand("put", "a txn that puts KEY");
  put->add_option("key", a.key)->required();
  put->add_option("value", a.value)->required();
  put->add_option("--if-mod", a.if_mod, "only if KEY's mod_revision is this (0: absent)");
  put->add_option("--repeat", a.repeat, "this many times, one after the other");
  CLI::App* del = app.add_subcommand("delete", "a txn that deletes KEY");
  del->add_option("key", a.key)->required();
  del->add_option("--if-mod", a.if_mod, "only if KEY's mod_revision is this");
  CLI::App* range = app.add_subcommand("range", "every key under PREFIX");
  range->add_option("prefix", a.prefix)->required();
  CLI::App* watch = app.add_subcommand("watch", "events under PREFIX");
  watch->add_option("prefix", a.prefix)->required();
  watch->add_option("--from", a.from, "the start revision")->required();
  watch->add_option("--count", a.count, "stop after this many events");
  watch->add_option("--timeout-ms", a.watch_timeout_ms, "give up after this long");
  CLI11_PARSE(app, argc, argv);
  a.options.request_timeout = std::chrono::milliseconds(a.timeout_ms);

  if (auto checked = Client::check(a.options); !checked) {
    print({{"error", checked.error().message}});
    return 2;
  }
  boost::asio::io_context io;
  Client client(io, a.options);
  int failures = 0;
  boost::asio::steady_timer timer(io);  // the watch's timeout
  int seen = 0;                         // the watch's events
  std::vector<Compare> compares;
  if (a.if_mod) compares.push_back(Compare{a.key, *a.if_mod});
  if (*put) {
    run_txn(client, compares, {Op{Op::Kind::kPut, a.key, a.value}}, a.repeat, failures);
  } else if (*del) {
    run_txn(client, compares, {Op{Op::Kind::kDelete, a.key, ""}}, 1, failures);
  } else if (*range) {
    client.range_prefix(a.prefix, [&](Result<RangeResult> r) {
      if (!r) {
        ++failures;
        return print({{"error", r.error().message}});
      }
      json::array kvs;
      for (const KeyValue& kv : r->kvs) kvs.push_back(kv_json(kv));
      print({{"revision", r->revision}, {"kvs", std::move(kvs)}});
    });
  } else {
    timer.expires_after(std::chrono::milliseconds(a.watch_timeout_ms));
    client.watch_prefix(
        a.prefix, a.from,
        [&](WatchBatch batch) {
          for (const Event& e : batch.events) {
            json::object o = kv_json(e.kv);
            o["event"] = e.kind == Event::Kind::kPut ? "put" : "delete";
            o["batch_revision"] = batch.revision;
            print(o);
            ++seen;
          }
          if (seen >= a.count) {
            client.cancel_watch();
            timer.cancel();
            print({{"done", true}});
          }
        },
        [&](WatchEnd end) {
          ++failures;
          timer.cancel();
          print({{"end",
                  json::object{{"error", end.error}, {"compact_revision", end.compact_revision}}}});
        });
    timer.async_wait([&](boost::system::error_code ec) {
      if (ec) return;
      ++failures;
      client.cancel_watch();
      print({{"timeout", true}, {"seen", seen}});
    });
  }
  io.run();
  return failures == 0 ? 0 : 1;
}
