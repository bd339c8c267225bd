#include "admin/store_health.h"

#include <fmt/format.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <chrono>

#include "admin/metrics_writer.h"
#include "admin/status_page.h"
#include "admin/text.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

std::string time_or_null(model::WallTime t) { return is_set(t) ? iso8601_utc(t) : ""; }

void add(std::string& body, const StoreHealth& h, model::WallTime now, StoreShown how) {
  if (how == StoreShown::kStatus && body.starts_with('{')) {
    body.insert(1, "\"store\":" + store_health_json(h, now) + (body.size() > 2 ? "," : ""));
  }
}

}  // namespace

int64_t store_age_seconds(const StoreHealth& h, model::WallTime now) {
  if (h.following) return 0;
  if (!is_set(h.followed_at)) return -1;
  return seconds_between(h.followed_at, now);
}

std::string store_health_json(const StoreHealth& h, model::WallTime now) {
  json::object o{
      {"type", "etcd"},
      {"name", h.name},
      {"prefix", h.prefix},
      {"reachable", h.reachable},
      {"following", h.following},
      {"revision", h.revision},
      {"etcd_revision", h.etcd_revision},
      {"followed_at", time_or_null(h.followed_at)},
      {"age_seconds", store_age_seconds(h, now)},
      {"last_error", h.last_error},
      {"last_error_at", time_or_null(h.last_error_at)},
      {"refusing_writes", h.refusing},
      {"writes", h.writes},
      {"conflicts", h.conflicts},
      {"failed_writes", h.failed_writes},
      {"followed_changes", h.followed_changes},
      {"bad_values", h.bad_values},
      {"resyncs", h.resyncs},
      {"waiting", h.waiting},
  };
  return json::serialize(o);
}

std::string store_metrics_text(const StoreHealth& h, model::WallTime now,
                               const MetricsQuery& query) {
  metrics::Writer w(2048);
  w.filter_process(&query);
  const auto gauge = [&](std::string_view name, std::string_view help, uint64_t v) {
    w.family(name, "gauge", help);
    w.sample(name, v);
  };
  const auto counter = [&](std::string_view name, std::string_view help, uint64_t v) {
    w.family(name, "counter", help);
    w.sample(name, v);
  };
  gauge("vigil_store_up", "1 when the last request to the API's etcd store was answered.",
        h.reachable ? 1 : 0);
  gauge("vigil_store_following",
        "1 while this node holds every change etcd has committed under the store's prefix.",
        h.following ? 1 : 0);
  gauge("vigil_store_revision", "The last etcd revision carried out on this node.",
        static_cast<uint64_t>(std::max<int64_t>(h.revision, 0)));
  gauge("vigil_store_etcd_revision", "etcd's revision when it last answered.",
        static_cast<uint64_t>(std::max<int64_t>(h.etcd_revision, 0)));
  w.family("vigil_store_stale_seconds", "gauge",
           "Seconds since this node last knew it held all of etcd's changes; 0 while it does.");
  w.sample("vigil_store_stale_seconds",
           static_cast<double>(std::max<int64_t>(store_age_seconds(h, now), 0)));
  gauge("vigil_store_refusing_writes",
        "1 while the API refuses every write (an etcd prefix that vigil never wrote while this "
        "node holds objects).",
        h.refusing.empty() ? 0 : 1);
  w.family("vigil_store_writes_total", "counter",
           "API writes through this node by result: committed by etcd, conflict (409: changed "
           "elsewhere first), failed (503: etcd did not commit).");
  w.sample("vigil_store_writes_total", "result=\"committed\"", "", h.writes);
  w.sample("vigil_store_writes_total", "result=\"conflict\"", "", h.conflicts);
  w.sample("vigil_store_writes_total", "result=\"failed\"", "", h.failed_writes);
  counter("vigil_store_followed_changes_total",
          "Load balancers put or removed on this node through other nodes' writes.",
          h.followed_changes);
  counter("vigil_store_bad_values_total",
          "Keys under the store's prefix whose value is not a valid vigil object, left alone.",
          h.bad_values);
  counter("vigil_store_resyncs_total", "Whole reads of the store's prefix.", h.resyncs);
  gauge("vigil_store_waiting", "Writes and followed changes waiting their turn.", h.waiting);
  return w.take();
}

std::string store_notice_html(const StoreHealth& h, model::WallTime now) {
  std::string text = h.following
                         ? fmt::format("following at revision {}", h.revision)
                         : fmt::format("NOT following ({}; this node's copy is {} s old): {}",
                                       h.reachable ? "reachable" : "unreachable",
                                       store_age_seconds(h, now), h.last_error);
  if (!h.refusing.empty()) text += "; writes refused: " + h.refusing;
  return fmt::format("<p class=\"{}\">API objects in {}: {}</p>\n",
                     h.following && h.refusing.empty() ? "muted" : "error", html_escape(h.name),
                     html_escape(text));
}

Response with_store(Response r, const StoreHealth& h, model::WallTime now, StoreShown how) {
  const auto show = [h, now, how](Response& ready) {
    if (how == StoreShown::kHeader) {
      ready.headers.emplace_back("X-Vigil-Store-Age", std::to_string(store_age_seconds(h, now)));
    } else {
      add(ready.body, h, now, how);
    }
  };
  if (!r.later) {
    show(r);
    return r;
  }
  r.later = [later = std::move(r.later), show](std::function<void(Response)> send) {
    later([show, send = std::move(send)](Response ready) {
      show(ready);
      send(std::move(ready));
    });
  };
  return r;
}

}  // namespace vigil::admin
