// The /metrics render of a large deployment: 10,000 members in 100 pools must stay a matter of
// milliseconds, as Prometheus scrapes it every few seconds on the control thread.
// Run: cmake --preset release && cmake --build --preset release --target admin_bench &&
//      build/release/src/admin/admin_bench
#include <benchmark/benchmark.h>

#include "admin/metrics.h"
#include "admin/metrics_test_view.h"

namespace vigil::admin {
namespace {

void render(benchmark::State& state) {
  const std::vector<model::LoadBalancerView> lbs = {
      testing::large_view(static_cast<int>(state.range(0)))};
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = metrics_text(lbs, model::WallTime{} + std::chrono::hours(1));
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(render)->Arg(100)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vigil::admin
