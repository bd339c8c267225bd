// MembersSource: follows one Service's EndpointSlices for a pool (members_from.kubernetes):
// lists, watches, re-lists, backs off, as WatchPlan decides, over TLS with the server verified,
// and hands the ready endpoints to its owner whenever they change. An answer with no ready
// endpoint, a watch that breaks and an API that is down change nothing: the last known members
// stay, and status() says since when they have not been confirmed. Lives on the control thread's
// io_context; every callback runs there, never inside a call; none after the destructor.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/timer.h"
#include "kube/endpoint_slices.h"
#include "kube/kubeconfig.h"
#include "kube/watch_plan.h"
#include "model/config.h"

namespace vigil::etcd {
class Connection;
class LineSplitter;
struct RequestOptions;
}  // namespace vigil::etcd

namespace vigil::kube {

// What `vigil status`, /metrics and the page show of a source.
struct SourceStatus {
  SourceState state = SourceState::kBootstrap;
  std::string server;            // "https://10.0.0.11:6443 (kubeconfig /etc/vigil/kubeconfig)"
  std::string resource_version;  // the last one seen
  std::string last_error;        // empty when all is well
  std::optional<TimePoint> trouble_since;
  size_t members = 0;     // the API's ready endpoints last known (0: none known yet)
  uint64_t lists = 0;     // lists that answered
  uint64_t expiries = 0;  // 410s
  uint64_t failures = 0;  // requests that failed, in all
  uint64_t changes = 0;   // times the members changed
};

class MembersSource {
 public:
  using OnMembers = std::function<void(const std::vector<Endpoint>&)>;

  // Starts at once (the first list is sent from the io_context, not inside this call). `access`
  // comes from the kubeconfig or in-cluster; an error is shown in status() and tried again with
  // the backoff (a service account's files may come after the pod starts).
  MembersSource(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
                model::KubernetesMembers settings, OnMembers on_members);
  ~MembersSource();
  MembersSource(const MembersSource&) = delete;
  MembersSource& operator=(const MembersSource&) = delete;

  const model::KubernetesMembers& settings() const { return settings_; }
  SourceStatus status() const;
  // The API's ready endpoints last known; empty until it first lists one.
  const std::vector<Endpoint>& members() const { return members_; }
  // Whether the API has not confirmed them for kStaleAfter: the pool then has its bootstrap
  // members back beside them (member_merge.h). Changes call on_members too.
  bool long_stale() const { return long_stale_; }
  static constexpr std::chrono::seconds kStaleAfter{60};

  // How long a request may take to be answered (a list; a watch's header), and the watch's own
  // timeout: the server ends it within this, so a watch that the network lost silently is
  // replaced even without TCP keepalive's help.
  static constexpr std::chrono::seconds kRequestTimeout{10};
  static constexpr int kWatchSeconds = 300;
  static constexpr std::chrono::seconds kShortestWatch{1};

 private:
  void carry_out(Step step);
  void went_long_stale();
  void list();
  void watch();
  void on_list(const std::string& error, unsigned status, const std::string& body);
  bool on_watch_data(std::string_view bytes);
  void on_watch_end(const std::string& error, unsigned status, const std::string& body);
  void failed(std::string error);
  void publish();
  // The connection for the next request: the kept one when it can take it, else a new one (and
  // the API's access read first, when it has not been or failed).
  Result<std::shared_ptr<etcd::Connection>> connection();
  void drop_connection();
  // A GET with the bearer token, when the access has one (its file read now).
  Result<etcd::RequestOptions> get_options() const;

  boost::asio::io_context& io_;
  const Clock& clock_;
  model::KubernetesMembers settings_;
  OnMembers on_members_;
  std::unique_ptr<Timer> next_;   // the next list or watch, or the end of a backoff
  std::unique_ptr<Timer> stale_;  // kStaleAfter after the API was last read, while it is not
  bool long_stale_ = false;
  std::mt19937_64 random_;

  WatchPlan plan_;
  std::optional<ApiAccess> access_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  std::map<std::string, SliceEndpoints> slices_;
  std::vector<Endpoint> members_;
  std::shared_ptr<etcd::Connection> connection_;
  std::unique_ptr<etcd::LineSplitter> lines_;
  Step::Kind next_step_ = Step::Kind::kList;
  TimePoint watch_started_{};
  uint64_t watch_events_ = 0;  // of the watch under way, bookmarks included
  SourceStatus counts_;
};

}  // namespace vigil::kube
