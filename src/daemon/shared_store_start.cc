#include "daemon/shared_store_start.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/log.h"
#include "etcd/client.h"

namespace vigil::daemon {
namespace {

// The shared store's view of etcd::Client: the same calls, one to one.
class ClientKv final : public admin::EtcdKv {
 public:
  ClientKv(boost::asio::io_context& io, etcd::Options options) : client_(io, std::move(options)) {}

  void range_prefix(std::string prefix,
                    std::function<void(Result<etcd::RangeResult>)> done) override {
    client_.range_prefix(std::move(prefix), std::move(done));
  }
  void txn(std::vector<etcd::Compare> compares, std::vector<etcd::Op> ops,
           std::function<void(Result<etcd::TxnResult>)> done) override {
    client_.txn(std::move(compares), std::move(ops), std::move(done));
  }
  void watch_prefix(std::string prefix, int64_t start_revision,
                    std::function<void(etcd::WatchBatch)> on_batch,
                    std::function<void(etcd::WatchEnd)> on_end) override {
    client_.watch_prefix(std::move(prefix), start_revision, std::move(on_batch), std::move(on_end));
  }
  void cancel_watch() override { client_.cancel_watch(); }

 private:
  etcd::Client client_;
};

}  // namespace

etcd::Options etcd_options(const model::Store& store) {
  return {.endpoints = store.endpoints,
          .ca = store.tls.ca,
          .cert = store.tls.cert,
          .key = store.tls.key,
          .request_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(store.timeout)};
}

std::string store_name(const model::Store& store) {
  return fmt::format("etcd ({})", fmt::join(store.endpoints, ", "));
}

Result<std::unique_ptr<admin::SharedStore>> start_shared_store(
    const model::Store& store, boost::asio::io_context& io, admin::ObjectStore& cache,
    admin::Daemon& daemon, const Clock& clock, const WallClock& wall, TimerSource& timers) {
  if (store.type != model::StoreType::kEtcd) return std::unique_ptr<admin::SharedStore>{};
  const etcd::Options options = etcd_options(store);
  const std::string name = store_name(store);
  if (auto checked = etcd::Client::check(options); !checked) {
    // Files that do not load now will not later: every request would fail the same way.
    return fail(fmt::format("{}:{}: admin.store: {}", store.where.file, store.where.line,
                            checked.error().message));
  }
  if (cache.state_file().empty()) {
    log::warn(
        "admin.store is etcd but admin.state_file is not set: while etcd is unreachable, a "
        "restarted vigil serves none of the API's objects");
  }
  auto shared = std::make_unique<admin::SharedStore>(
      std::make_unique<ClientKv>(io, options), cache, daemon, clock, wall, timers,
      admin::SharedStore::Options{
          .prefix = store.prefix, .name = name, .feeds_readyz = store.readyz});
  shared->start();
  log::info("admin.store: the API's objects live in {} under {}", name, store.prefix);
  return shared;
}

}  // namespace vigil::daemon
