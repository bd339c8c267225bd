#include "admin/metrics.h"

#include "admin/metrics_writer.h"

namespace vigil::admin {
namespace metrics {

const std::vector<std::string>& status_labels() {
  static const std::vector<std::string> kLabels = [] {
    std::vector<std::string> out;
    for (const auto& [status, name] : model::kOperatingStatusNames) {
      out.push_back(fmt::format(",status=\"{}\"", name));
    }
    return out;
  }();
  return kLabels;
}

void status_samples(Writer& w, std::string_view name, const std::string& labels,
                    model::OperatingStatus current) {
  const auto& suffixes = status_labels();
  for (size_t i = 0; i < suffixes.size(); ++i) {
    w.sample(name, labels, suffixes[i], uint64_t{current == model::kOperatingStatusNames[i].value});
  }
}

void append_label(std::string& out, std::string_view sep, std::string_view key,
                  std::string_view value) {
  out += sep;
  out += key;
  out += "=\"";
  out += escape_label_value(value);
  out += '"';
}

}  // namespace metrics

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      // ESC, NUL and the other controls a name may hold (the API takes any string) would reach
      // terminals and parsers raw: U+FFFD stands for them.
      out += "\uFFFD";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// Every pool's members of every load balancer: what `auto` scopes are decided by.
size_t member_count(const std::vector<model::LoadBalancerView>& lbs) {
  size_t n = 0;
  for (const model::LoadBalancerView& lb : lbs) {
    for (const model::PoolView& p : lb.pools) n += p.members.size();
  }
  return n;
}

}  // namespace

template <class T>
void MetricsRender::add_table(MetricsScope scope, std::span<const metrics::Family<T>> families,
                              const std::vector<const T*>& objects,
                              const std::vector<std::string>& labels) {
  sections_.push_back(Section{
      .scope = scope,
      .families = families.size(),
      .objects = objects.size(),
      .name = [families](size_t f) { return families[f].name; },
      .header = [families](
                    metrics::Writer& w,
                    size_t f) { w.family(families[f].name, families[f].type, families[f].help); },
      .samples =
          [families, &objects, &labels, now = now_](metrics::Writer& w, size_t f, size_t o) {
            families[f].samples(w, families[f].name, *objects[o], labels[o], now);
          },
  });
}

MetricsRender::MetricsRender(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now,
                             MetricsQuery query, std::string tail)
    : lbs_(lbs),
      now_(now),
      query_(resolve_scopes(std::move(query), member_count(lbs))),
      tail_(std::move(tail)) {
  // Label sets only for the scopes asked for: at 10,000 load balancers the members' are 4 MB.
  const auto asked = [&](MetricsScope s) { return query_.scopes[static_cast<size_t>(s)]; };
  for (const model::LoadBalancerView& lb : lbs_) {
    if (asked(MetricsScope::kMember)) {
      for (const model::PoolView& p : lb.pools) {
        for (const model::MemberView& m : p.members) {
          if (query_.no_maint && m.admin_override &&
              m.admin_override->state == model::AdminState::kMaint) {
            continue;
          }
          members_.push_back(&m);
          member_labels_.push_back(metrics::member_labels(lb, p, m));
        }
      }
    }
    if (asked(MetricsScope::kListener)) {
      for (const model::ListenerView& l : lb.listeners) {
        listeners_.push_back(&l);
        listener_labels_.push_back(metrics::listener_labels(lb, l));
      }
    }
    if (asked(MetricsScope::kPool)) {
      for (const model::PoolView& p : lb.pools) {
        pools_.push_back(&p);
        pool_labels_.push_back(metrics::pool_labels(lb, p));
      }
      lb_objects_.push_back(&lb);
      lb_labels_.push_back(metrics::lb_labels(lb));
    }
  }
  add_table(MetricsScope::kMember, metrics::member_families(), members_, member_labels_);
  add_table(MetricsScope::kMember, metrics::disruption_families(), members_, member_labels_);
  add_table(MetricsScope::kListener, metrics::listener_families(), listeners_, listener_labels_);
  add_table(MetricsScope::kPool, metrics::pool_families(), pools_, pool_labels_);
  add_table(MetricsScope::kPool, metrics::lb_families(), lb_objects_, lb_labels_);
  sections_.push_back(Section{
      .scope = MetricsScope::kProcess,
      .families = 1,
      .objects = 1,
      .name = nullptr,
      .header = [](metrics::Writer&, size_t) {},
      .samples =
          [this](metrics::Writer& w, size_t, size_t) {
            w.filter_process(&query_);
            metrics::process_families(w, lbs_, query_.members_left_out);
            w.filter_process(nullptr);
          },
  });
}

std::string MetricsRender::next(size_t bytes) {
  metrics::Writer w(bytes + bytes / 4);
  while (section_ < sections_.size() && w.size() < bytes) {
    const Section& s = sections_[section_];
    if (family_ == s.families) {
      ++section_;
      family_ = object_ = 0;
      continue;
    }
    if (object_ == 0) {
      const bool wanted = s.name ? query_.wants(s.scope, s.name(family_))
                                 : query_.scopes[static_cast<size_t>(s.scope)];
      if (!wanted) {
        ++family_;
        continue;
      }
      s.header(w, family_);
    }
    if (object_ < s.objects) s.samples(w, family_, object_++);
    if (object_ >= s.objects) {
      ++family_;
      object_ = 0;
    }
  }
  if (section_ == sections_.size() && w.size() < bytes) w.append(std::exchange(tail_, {}));
  return w.take();
}

std::string metrics_text(const std::vector<model::LoadBalancerView>& lbs, model::WallTime now,
                         const MetricsQuery& query) {
  MetricsRender render(lbs, now, query);
  std::string out;
  for (std::string piece = render.next(); !piece.empty(); piece = render.next()) out += piece;
  return out;
}

std::string metrics_text(const model::LoadBalancerView& lb, model::WallTime now) {
  return metrics_text(std::vector<model::LoadBalancerView>{lb}, now);
}

}  // namespace vigil::admin
