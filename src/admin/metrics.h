// GET /metrics: the views in Prometheus text exposition format 0.0.4 (families in
// docs/metrics.md), rendered a piece at a time so that a scrape of 10,000 load balancers is never
// held whole in memory. Pure but for process_open_fds and process_max_fds, read from the process
// at the render; a render is used by one thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "admin/metrics_query.h"
#include "model/status_tree.h"

namespace vigil::admin {
namespace metrics {
class Writer;
template <class T>
struct Family;
}  // namespace metrics

// About what one piece of a streamed exposition holds: a few socket buffers, a piece of a
// thousand members' lines.
inline constexpr size_t kMetricsPieceBytes = 64 * 1024;

// One exposition of every load balancer's series that `query` asks for (each family once),
// rendered piece by piece: family by family, and within a family object by object, so that it
// stops between two objects and goes on at the next call. Objects without a name (possible
// through the API) are labelled by their id. `now` dates the ages (seconds since a member's last
// change). The process families come from the first view (the file's); `tail` (the store's
// families) ends the exposition. Requires: `lbs` outlives the render.
class MetricsRender {
 public:
  MetricsRender(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now,
                MetricsQuery query, std::string tail = {});
  MetricsRender(const MetricsRender&) = delete;
  MetricsRender& operator=(const MetricsRender&) = delete;

  // The next piece, at least `bytes` long unless it is the last (it ends after an object's
  // samples, so it is at most an object's lines longer); empty once everything has been given.
  std::string next(size_t bytes = kMetricsPieceBytes);

 private:
  // Families over a list of objects of one scope, type-erased: a table (metrics_writer.h) and its
  // objects, or the process families, which declare themselves as they go (name is null).
  struct Section {
    MetricsScope scope;
    size_t families = 0;
    size_t objects = 0;
    std::function<std::string_view(size_t family)> name;
    std::function<void(metrics::Writer&, size_t family)> header;
    std::function<void(metrics::Writer&, size_t family, size_t object)> samples;
  };
  template <class T>
  void add_table(MetricsScope scope, std::span<const metrics::Family<T>> families,
                 const std::vector<const T*>& objects, const std::vector<std::string>& labels);

  const std::vector<model::LoadBalancerView>& lbs_;
  const model::WallTime now_;
  const MetricsQuery query_;
  std::string tail_;
  std::vector<Section> sections_;
  // Each scope's objects and their label sets, made once per render.
  std::vector<const model::MemberView*> members_;
  std::vector<std::string> member_labels_;
  std::vector<const model::ListenerView*> listeners_;
  std::vector<std::string> listener_labels_;
  std::vector<const model::PoolView*> pools_;
  std::vector<std::string> pool_labels_;
  std::vector<const model::LoadBalancerView*> lb_objects_;
  std::vector<std::string> lb_labels_;
  // Where the next piece starts.
  size_t section_ = 0, family_ = 0, object_ = 0;
};

// The whole exposition at once: for tests, benchmarks and callers without a stream.
std::string metrics_text(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now,
                         const MetricsQuery& query = {});
std::string metrics_text(const model::LoadBalancerView& lb, model::WallTime now);

// A label value with `\`, `"` and newlines escaped as the exposition format requires, and every
// other control character replaced by U+FFFD.
std::string escape_label_value(std::string_view value);

}  // namespace vigil::admin
