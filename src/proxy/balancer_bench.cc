// Microbenchmarks of the per-connection pick and of building and publishing a pool snapshot.
// Run: cmake --preset release && cmake --build --preset release --target proxy_bench &&
//      build/release/src/proxy/proxy_bench
#include <benchmark/benchmark.h>

#include "proxy/balancer.h"

namespace vigil::proxy {
namespace {

PoolSnapshotPtr make_pool(model::Algorithm algorithm, int members) {
  auto pool = std::make_shared<PoolSnapshot>();
  pool->algorithm = algorithm;
  for (int i = 0; i < members; ++i) {
    pool->candidates.push_back({.member_id = "member-" + std::to_string(i),
                                .name = "member-" + std::to_string(i),
                                .address = *net::SocketAddress::from_ip("127.0.0.1", 6443),
                                .weight = 1 + i % 3,
                                .stats = std::make_shared<BackendStats>()});
  }
  return pool;
}

void pick(benchmark::State& state, model::Algorithm algorithm) {
  const auto pool = make_pool(algorithm, static_cast<int>(state.range(0)));
  auto balancer = make_balancer(*pool);
  uint32_t client = 0x0a000001;
  for (auto _ : state) {
    ++client;
    const std::string_view ip(reinterpret_cast<const char*>(&client), sizeof client);
    benchmark::DoNotOptimize(balancer->pick(*pool, {.client_ip = ip}));
  }
}
BENCHMARK_CAPTURE(pick, round_robin, model::Algorithm::kRoundRobin)->Arg(3)->Arg(100);
BENCHMARK_CAPTURE(pick, least_connections, model::Algorithm::kLeastConnections)->Arg(3)->Arg(100);
BENCHMARK_CAPTURE(pick, source_ip, model::Algorithm::kSourceIp)->Arg(3)->Arg(100);

// What the control thread does per health change: build a snapshot and hand a copy of the
// pointer to each worker.
void publish_snapshot(benchmark::State& state) {
  const int members = static_cast<int>(state.range(0));
  std::vector<PoolSnapshotPtr> workers(2);
  const auto base = make_pool(model::Algorithm::kRoundRobin, members);
  for (auto _ : state) {
    auto next = std::make_shared<PoolSnapshot>(*base);
    for (auto& w : workers) w = next;
    benchmark::DoNotOptimize(workers.data());
  }
}
BENCHMARK(publish_snapshot)->Arg(3)->Arg(100)->Arg(1000);

}  // namespace
}  // namespace vigil::proxy
