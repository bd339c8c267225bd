#include "daemon/store_import.h"

#include <fmt/format.h>

#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "admin/octavia/etcd_layout.h"
#include "admin/octavia/object_store.h"
#include "daemon/shared_store_start.h"
#include "etcd/client.h"

namespace vigil::daemon {
namespace {

// etcd refuses a request over 1.5 MiB (its --max-request-bytes): a transaction carries at most
// this much of values, and one load balancer larger than it goes alone.
constexpr size_t kMaxTxnBytes = 1 << 20;

// Runs one request of `client` to its end.
template <typename T, typename Call>
Result<T> wait_for(boost::asio::io_context& io, Call call) {
  std::optional<Result<T>> got;
  call([&](Result<T> r) { got = std::move(r); });
  io.restart();
  while (!got && io.run_one() > 0) {
  }
  if (!got) return fail("the request to etcd never ended");
  return std::move(*got);
}

}  // namespace

int run_store_import(const model::Store& store, const std::string& state_file, std::ostream& out,
                     std::ostream& err) {
  if (store.type != model::StoreType::kEtcd) {
    err << "vigil store import: the config's admin.store is not type etcd; set it (with "
           "endpoints and prefix) first\n";
    return 1;
  }
  if (state_file.empty()) {
    err << "vigil store import: no state file: give --state-file or set admin.state_file\n";
    return 1;
  }
  // A path with a typo would import nothing and write the marker: every node whose state file
  // holds load balancers would then take etcd's empty prefix for "all of them were deleted".
  if (std::error_code ec; !std::filesystem::is_regular_file(state_file, ec)) {
    err << "vigil store import: there is no state file at " << state_file
        << " (a node that never had API objects has nothing to import)\n";
    return 1;
  }
  auto loaded = admin::ObjectStore::load(state_file);
  if (!loaded) {
    err << "vigil store import: " << loaded.error().message << "\n";
    return 1;
  }
  const admin::ApiState& state = loaded->state();
  const std::string name = store_name(store);
  boost::asio::io_context io;
  etcd::Client client(io, etcd_options(store));
  auto held = wait_for<etcd::RangeResult>(
      io, [&](auto done) { client.range_prefix(store.prefix, std::move(done)); });
  if (!held) {
    err << "vigil store import: cannot read " << name << ": " << held.error().message << "\n";
    return 1;
  }
  // What an interrupted import of these same objects left is taken as done; anything else is
  // somebody's data. Each transaction carries whole load balancers, so each is there or not.
  std::vector<std::vector<etcd::Op>> puts;
  std::map<std::string, std::string, std::less<>> expected;  // key: value
  for (const admin::ApiLoadBalancer& lb : state.loadbalancers) {
    puts.push_back(admin::puts_of(lb, store.prefix));
    for (const etcd::Op& op : puts.back()) expected.emplace(op.key, op.value);
  }
  std::set<std::string, std::less<>> present;
  for (const etcd::KeyValue& kv : held->kvs) {
    const auto it = expected.find(kv.key);
    if (it == expected.end() || it->second != kv.value) {
      err << fmt::format(
          "vigil store import: {} already holds {} keys under {} (such as {}); the import fills "
          "an empty prefix only. Choose another prefix, or clear this one if it holds nothing "
          "you need (etcdctl del --prefix {})\n",
          name, held->kvs.size(), store.prefix, kv.key, store.prefix);
      return 1;
    }
    present.insert(kv.key);
  }
  size_t put = 0, listeners = 0, pools = 0, members = 0;
  for (size_t i = 0; i < puts.size();) {
    std::vector<etcd::Compare> compares;
    std::vector<etcd::Op> ops;
    size_t bytes = 0, batch = 0;
    for (; i < puts.size(); ++i) {
      size_t size = 0;
      for (const etcd::Op& op : puts[i]) size += op.key.size() + op.value.size();
      if (!ops.empty() &&
          (bytes + size > kMaxTxnBytes || ops.size() + puts[i].size() > admin::kMaxTxnOps)) {
        break;
      }
      const admin::ApiLoadBalancer& lb = state.loadbalancers[i];
      listeners += lb.listeners.size();
      pools += lb.pools.size();
      for (const admin::ApiPool& p : lb.pools) members += p.members.size();
      if (present.contains(puts[i].front().key)) continue;
      for (etcd::Op& op : puts[i]) {
        compares.push_back({.key = op.key, .mod_revision = 0});
        ops.push_back(std::move(op));
      }
      bytes += size;
      ++batch;
    }
    if (ops.empty()) continue;
    put += batch;
    auto done = wait_for<etcd::TxnResult>(
        io, [&](auto cb) { client.txn(std::move(compares), std::move(ops), std::move(cb)); });
    if (!done || !done->succeeded) {
      err << fmt::format(
          "vigil store import: {} {} after {} of {} load balancers; run the import again: it "
          "goes on from there\n",
          name, done ? "refused a write (another writer under the prefix)" : done.error().message,
          put - batch, puts.size());
      return 1;
    }
  }
  const std::string marker = admin::marker_key(store.prefix);
  auto marked = wait_for<etcd::TxnResult>(io, [&](auto cb) {
    client.txn(
        {{.key = marker, .mod_revision = 0}},
        {{.kind = etcd::Op::Kind::kPut, .key = marker, .value = std::string(admin::kMarkerValue)}},
        std::move(cb));
  });
  if (!marked || !marked->succeeded) {
    err << fmt::format("vigil store import: cannot write {} to {}: {}\n", marker, name,
                       marked ? "it exists already" : marked.error().message);
    return 1;
  }
  out << fmt::format(
      "imported {} load balancers ({} listeners, {} pools, {} members) from {} into {} under {} "
      "(revision {}); member overrides stay in each node's state file\n",
      puts.size(), listeners, pools, members, state_file, name, store.prefix, marked->revision);
  return 0;
}

}  // namespace vigil::daemon
