// The Prometheus text exposition as it is written: a piece of text at a time, families declared
// once, samples appended with to_chars; and the tables of families, one row per family, that the
// render walks (metrics.cc). Internal to metrics*.cc; one render, one thread.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "admin/metrics_query.h"
#include "model/status_tree.h"

namespace vigil::admin::metrics {

class Writer {
 public:
  explicit Writer(size_t reserve) { out_.reserve(reserve); }

  void family(std::string_view name, std::string_view type, std::string_view help) {
    muted_ = filter_ != nullptr && !filter_->wants(MetricsScope::kProcess, name);
    if (muted_) return;
    fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name,
                   type);
  }
  // `extra` is appended to `labels` (e.g. `,status="ONLINE"`), so that label sets built once per
  // object serve every family. Plain appends and to_chars: a render of 10,000 members writes
  // 350,000 of these lines.
  template <class V>
  void sample(std::string_view name, std::string_view labels, std::string_view extra, V value) {
    if (muted_) return;
    out_ += name;
    out_ += '{';
    out_ += labels;
    out_ += extra;
    out_ += "} ";
    append_value(value);
  }
  template <class V>
  void sample(std::string_view name, V value) {
    if (muted_) return;
    out_ += name;
    out_ += ' ';
    append_value(value);
  }
  // From here on, family() leaves out (with their samples) the process families `query` does
  // not want; null: none is left out. For the families that declare themselves as they go
  // (process_families, the store's) rather than through a table.
  void filter_process(const MetricsQuery* query) {
    filter_ = query;
    muted_ = false;
  }
  size_t size() const { return out_.size(); }
  void append(std::string_view text) { out_ += text; }
  std::string take() { return std::exchange(out_, {}); }

 private:
  // Integers exactly; doubles in their shortest form that reads back the same (as Go's client).
  template <class V>
  void append_value(V value) {
    static_assert(std::is_same_v<V, uint64_t> || std::is_same_v<V, double>);
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
    out_.append(buf, end);
    out_ += '\n';
  }

  std::string out_;
  const MetricsQuery* filter_ = nullptr;
  bool muted_ = false;
};

using Lbs = std::vector<model::LoadBalancerView>;

// One family of a table: its header, and the samples of one object `T` (a member, listener, pool
// or load balancer) under that object's label set. The render walks a table family by family,
// object by object, so that it can stop between two objects and go on later.
template <class T>
struct Family {
  std::string_view name, type, help;
  void (*samples)(Writer& w, std::string_view name, const T& object, const std::string& labels,
                  model::WallTime now);
};

// `key="value"` with the value escaped; `sep` goes before it (`,` or nothing).
void append_label(std::string& out, std::string_view sep, std::string_view key,
                  std::string_view value);

// Objects created through the API may have no name: their id labels them then.
inline std::string_view name_or_id(const std::string& name, const std::string& id) {
  return name.empty() ? id : name;
}

inline double seconds(model::WallTime t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// `,status="ONLINE"` for each status, in the order of model::kOperatingStatusNames.
const std::vector<std::string>& status_labels();
// One sample per status, 1 for `current`: so that a series never vanishes when it changes.
void status_samples(Writer& w, std::string_view name, const std::string& labels,
                    model::OperatingStatus current);

// The tables, in the order they are served.
std::span<const Family<model::MemberView>> member_families();      // metrics_members.cc
std::span<const Family<model::MemberView>> disruption_families();  // metrics_disruption.cc
std::span<const Family<model::ListenerView>> listener_families();  // metrics_listeners.cc
std::span<const Family<model::PoolView>> pool_families();          // metrics_pools.cc
std::span<const Family<model::LoadBalancerView>> lb_families();    // metrics_pools.cc

// The label sets of each kind of object.
std::string member_labels(const model::LoadBalancerView& lb, const model::PoolView& p,
                          const model::MemberView& m);
std::string listener_labels(const model::LoadBalancerView& lb, const model::ListenerView& l);
std::string pool_labels(const model::LoadBalancerView& lb, const model::PoolView& p);
std::string lb_labels(const model::LoadBalancerView& lb);

// Unlabelled: vigil_build_info, process_*, the last reload, the peers, and whether `auto` left
// the member families out of this scrape.
void process_families(Writer& w, const Lbs& lbs, bool members_left_out);

}  // namespace vigil::admin::metrics
