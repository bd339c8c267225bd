// The Prometheus text exposition as it is written: one reserved string, families declared once,
// samples appended with fmt::format_to. Internal to metrics*.cc; one render, one thread.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "model/status_tree.h"

namespace vigil::admin::metrics {

class Writer {
 public:
  explicit Writer(size_t reserve) { out_.reserve(reserve); }

  void family(std::string_view name, std::string_view type, std::string_view help) {
    fmt::format_to(std::back_inserter(out_), "# HELP {} {}\n# TYPE {} {}\n", name, help, name,
                   type);
  }
  // `extra` is appended to `labels` (e.g. `,status="ONLINE"`), so that label sets built once per
  // object serve every family. Plain appends and to_chars: a render of 10,000 members writes
  // 350,000 of these lines.
  template <class V>
  void sample(std::string_view name, std::string_view labels, std::string_view extra, V value) {
    out_ += name;
    out_ += '{';
    out_ += labels;
    out_ += extra;
    out_ += "} ";
    append_value(value);
  }
  template <class V>
  void sample(std::string_view name, V value) {
    out_ += name;
    out_ += ' ';
    append_value(value);
  }
  std::string take() { return std::move(out_); }

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
};

using Lbs = std::vector<model::LoadBalancerView>;

// `key="value"` with the value escaped; `sep` goes before it (`,` or nothing).
void append_label(std::string& out, std::string_view sep, std::string_view key,
                  std::string_view value);

// Objects created through the API may have no name: their id labels them then.
inline std::string_view name_or_id(const std::string& name, const std::string& id) {
  return name.empty() ? id : name;
}

// `,status="ONLINE"` for each status, in the order of model::kOperatingStatusNames.
const std::vector<std::string>& status_labels();

// Every member's label set, in the order member_families() walks them: built once per render.
std::vector<std::string> member_label_sets(const Lbs& lbs);
void member_families(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels,
                     model::WallTime now);
// vigil_member_sessions_closed_total and the other disruption counters (metrics_disruption.cc).
void disruption_families(Writer& w, const Lbs& lbs, const std::vector<std::string>& labels);

// Bytes the render will take at most, reserved once: every member's label set times the lines
// it appears on, plus room for the listeners, pools and process families.
size_t estimate(const Lbs& lbs, const std::vector<std::string>& member_labels);

// Unlabelled: vigil_build_info, process_*, the last reload.
void process_families(Writer& w, const Lbs& lbs);

}  // namespace vigil::admin::metrics
