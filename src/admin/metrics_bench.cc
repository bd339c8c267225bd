// The /metrics render of large deployments, a piece at a time as the server streams it: 10,000
// members in 100 pools, and 10,000 load balancers of three members as Octavia makes them, with
// the default query (no member histograms; `auto` scopes: process and pool only above 2,000
// members), every scope, everything, and the scopes of a fleet's frequent scrape. CPU time per
// scrape and its size (`bytes`, `series`, the largest piece). Run: cmake --preset release && cmake
// --build --preset release --target admin_bench &&
//      build/release/src/admin/admin_bench
#include <benchmark/benchmark.h>

#include <algorithm>

#include "admin/metrics.h"
#include "admin/metrics_test_view.h"

namespace vigil::admin {
namespace {

const model::WallTime kNow = model::WallTime{} + std::chrono::hours(1);

MetricsQuery scoped(std::initializer_list<MetricsScope> scopes, bool histograms) {
  MetricsQuery q{.member_histograms = histograms};
  q.scopes.fill(false);
  for (MetricsScope s : scopes) q.scopes[static_cast<size_t>(s)] = true;
  return q;
}

const MetricsQuery kEverything{};
const MetricsQuery kDefault{.member_histograms = false, .auto_scopes = true};
const MetricsQuery kEveryScope{.member_histograms = false};
const MetricsQuery kProcessAndPools = scoped({MetricsScope::kProcess, MetricsScope::kPool}, false);

void scrape(benchmark::State& state, const std::vector<model::LoadBalancerView>& lbs,
            const MetricsQuery& query) {
  size_t bytes = 0, largest = 0, series = 0;
  for (auto _ : state) {
    MetricsRender render(lbs, kNow, query);
    bytes = largest = 0;
    for (std::string piece = render.next(); !piece.empty(); piece = render.next()) {
      bytes += piece.size();
      largest = std::max(largest, piece.size());
      benchmark::DoNotOptimize(piece.data());
    }
  }
  MetricsRender render(lbs, kNow, query);
  for (std::string piece = render.next(); !piece.empty(); piece = render.next()) {
    // Pieces end at the end of a line: every line starts at 0 or after a newline.
    for (size_t at = 0; at < piece.size(); at = piece.find('\n', at) + 1) {
      if (piece[at] != '#') ++series;
    }
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["series"] = static_cast<double>(series);
  state.counters["largest_piece"] = static_cast<double>(largest);
}

void one_lb(benchmark::State& state, const MetricsQuery& query) {
  scrape(state, {testing::large_view(static_cast<int>(state.range(0)))}, query);
}
BENCHMARK_CAPTURE(one_lb, everything, kEverything)
    ->Arg(100)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

void fleet(benchmark::State& state, const MetricsQuery& query) {
  scrape(state, testing::fleet_view(static_cast<int>(state.range(0))), query);
}
BENCHMARK_CAPTURE(fleet, default, kDefault)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(fleet, every_scope, kEveryScope)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(fleet, everything, kEverything)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(fleet, process_and_pools, kProcessAndPools)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vigil::admin
