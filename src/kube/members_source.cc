#include "kube/members_source.h"

#include <fmt/format.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstdlib>

#include "base/file.h"
#include "base/log.h"
#include "base/openssl_reason.h"
#include "etcd/connection.h"
#include "etcd/wire.h"
#include "kube/member_merge.h"

namespace vigil::kube {
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
namespace {

// The longest watch event line: one slice of the API's 1,000 endpoints is far below it.
constexpr size_t kMaxEventLine = 4 << 20;

// The environment, for in_cluster().
std::map<std::string, std::string> service_env() {
  std::map<std::string, std::string> env;
  for (const char* name : {"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"}) {
    if (const char* v = std::getenv(name)) env[name] = v;
  }
  return env;
}

Result<std::shared_ptr<ssl::context>> tls_context(const ApiAccess& a) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
  boost::system::error_code ec;
  ctx->set_options(
      ssl::context::default_workarounds | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1, ec);
  if (a.ca_pem.empty()) {
    ctx->set_default_verify_paths(ec);
  } else if (ctx->add_certificate_authority(boost::asio::buffer(a.ca_pem), ec); ec) {
    return fail(fmt::format("{}: certificate authority: {}", a.source, openssl_reason(ec)));
  }
  if (!a.client_cert_pem.empty()) {
    if (ctx->use_certificate_chain(boost::asio::buffer(a.client_cert_pem), ec); ec) {
      return fail(fmt::format("{}: client certificate: {}", a.source, openssl_reason(ec)));
    }
    if (ctx->use_private_key(boost::asio::buffer(a.client_key_pem), ssl::context::pem, ec); ec) {
      return fail(fmt::format("{}: client key: {}", a.source, openssl_reason(ec)));
    }
  }
  ctx->set_verify_mode(ssl::verify_peer, ec);
  return ctx;
}

std::string server_url(const ApiAccess& a) {
  if (a.host.find(':') != std::string::npos) return fmt::format("https://[{}]:{}", a.host, a.port);
  return fmt::format("https://{}:{}", a.host, a.port);
}

// The message of a Status answer (403: "endpointslices.discovery.k8s.io is forbidden: User
// ... cannot list ..."), which tells the operator what RBAC is missing.
std::string status_message(unsigned status, const std::string& body) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (!ec && v.is_object()) {
    if (const auto* m = v.as_object().if_contains("message"); m && m->is_string()) {
      return fmt::format("HTTP {}: {}", status, std::string_view(m->as_string()));
    }
  }
  return fmt::format("HTTP {}", status);
}

}  // namespace

MembersSource::MembersSource(boost::asio::io_context& io, const Clock& clock, TimerSource& timers,
                             model::KubernetesMembers settings, OnMembers on_members)
    : io_(io),
      clock_(clock),
      settings_(std::move(settings)),
      on_members_(std::move(on_members)),
      next_(timers.create_timer([this] {
        if (next_step_ == Step::Kind::kWatch) return watch();
        list();
      })),
      stale_(timers.create_timer([this] { went_long_stale(); })),
      random_(std::random_device{}()) {
  carry_out(plan_.start());
}

void MembersSource::went_long_stale() {
  if (plan_.state() != SourceState::kStale || long_stale_) return;
  long_stale_ = true;
  log::warn(
      "pool members from the Kubernetes API ({}/{}): not confirmed for {} s; the file's "
      "members are back beside the last known {}",
      settings_.service_namespace, settings_.service, kStaleAfter.count(), members_.size());
  if (!members_.empty()) on_members_(members_);
}

MembersSource::~MembersSource() {
  next_->cancel();
  stale_->cancel();
  drop_connection();
}

SourceStatus MembersSource::status() const {
  SourceStatus s = counts_;
  s.state = plan_.state();
  s.resource_version = plan_.resource_version();
  s.last_error = plan_.last_error();
  s.trouble_since = plan_.trouble_since();
  s.members = members_.size();
  if (access_) s.server = fmt::format("{} ({})", server_url(*access_), access_->source);
  return s;
}

void MembersSource::carry_out(Step step) {
  if (plan_.state() == SourceState::kStale && !long_stale_ && !stale_->armed()) {
    stale_->arm(plan_.trouble_since().value_or(clock_.now()) + kStaleAfter);
  } else if (plan_.state() == SourceState::kFollowing) {
    stale_->cancel();
    if (long_stale_) {
      long_stale_ = false;
      if (!members_.empty()) on_members_(members_);  // the bootstrap members go again
    }
  }
  // Always from the timer, never inside the call that decided: a callback of the connection
  // being replaced does not start the next request from within itself.
  next_step_ = step.kind == Step::Kind::kWait ? Step::Kind::kList : step.kind;
  next_->arm(clock_.now() + (step.kind == Step::Kind::kWait ? step.wait : Duration{}));
}

void MembersSource::drop_connection() {
  if (connection_) connection_->close();
  connection_.reset();
}

Result<std::shared_ptr<etcd::Connection>> MembersSource::connection() {
  if (connection_ && connection_->usable()) return connection_;
  drop_connection();
  if (!access_ || !tls_) {
    auto access = settings_.kubeconfig.empty() ? in_cluster(service_env(), kServiceAccountDir)
                                               : read_kubeconfig(settings_.kubeconfig);
    if (access) access = load_credentials(std::move(*access));
    if (!access) return std::unexpected(access.error());
    auto tls = tls_context(*access);
    if (!tls) return std::unexpected(tls.error());
    access_ = std::move(*access);
    tls_ = std::move(*tls);
  }
  etcd::Endpoint endpoint{.url = server_url(*access_),
                          .host = access_->host,
                          .port = access_->port,
                          .tls = true,
                          .tls_name = access_->tls_server_name,
                          .service = "the Kubernetes API"};
  connection_ = std::make_shared<etcd::Connection>(io_, std::move(endpoint), tls_);
  return connection_;
}

Result<etcd::RequestOptions> MembersSource::get_options() const {
  etcd::RequestOptions options{.method = http::verb::get};
  if (!access_->token_file.empty()) {
    auto token = read_secret_file(access_->token_file);  // again each time: a rotated token
    if (!token) return fail(fmt::format("{}: {}", access_->source, token.error().message));
    options.authorization = "Bearer " + *token;
  } else if (!access_->token.empty()) {
    options.authorization = "Bearer " + access_->token;
  }
  return options;
}

void MembersSource::list() {
  auto c = connection();
  if (!c) return failed(c.error().message);
  auto options = get_options();
  if (!options) return failed(options.error().message);
  (*c)->request(
      list_target(settings_.service_namespace, settings_.service), "", kRequestTimeout,
      [this](etcd::Answer a) { on_list(a.error, a.status, a.body); }, std::move(*options));
}

void MembersSource::on_list(const std::string& error, unsigned status, const std::string& body) {
  if (!error.empty()) return failed(error);
  // A 410 too: vigil lists without a version, so it is no expiry of one, and listing again at
  // once would be a loop of requests against an API that keeps answering so.
  if (status != 200) {
    return failed(fmt::format("listing the EndpointSlices of {}/{}: {}",
                              settings_.service_namespace, settings_.service,
                              status_message(status, body)));
  }
  auto list = parse_slice_list(body, settings_.port);
  if (!list) return failed(list.error().message);
  ++counts_.lists;
  slices_ = std::move(list->slices);
  const bool was_following = plan_.state() == SourceState::kFollowing;
  const Step next = plan_.listed(list->resource_version, clock_.now());
  if (!was_following) {
    log::info("pool members from the Kubernetes API ({}/{}, port {}): listed",
              settings_.service_namespace, settings_.service, settings_.port);
  }
  publish();
  carry_out(next);
}

void MembersSource::watch() {
  auto c = connection();
  if (!c) return failed(c.error().message);
  auto options = get_options();
  if (!options) return failed(options.error().message);
  lines_ = std::make_unique<etcd::LineSplitter>(kMaxEventLine);
  watch_started_ = clock_.now();
  watch_events_ = 0;
  (*c)->stream(
      watch_target(settings_.service_namespace, settings_.service, plan_.resource_version(),
                   kWatchSeconds),
      "", kRequestTimeout, [this](std::string_view bytes) { return on_watch_data(bytes); },
      [this](etcd::Answer a) { on_watch_end(a.error, a.status, a.body); }, std::move(*options));
}

bool MembersSource::on_watch_data(std::string_view bytes) {
  std::vector<std::string> lines;
  if (!lines_->feed(bytes, lines)) {
    drop_connection();
    failed(fmt::format("a watch event longer than {} bytes", kMaxEventLine));
    return false;
  }
  for (const std::string& line : lines) {
    auto event = parse_watch_event(line, settings_.port);
    if (!event) {
      drop_connection();
      publish();
      failed(event.error().message);
      return false;
    }
    if (event->type == WatchEvent::Type::kError) {
      drop_connection();
      publish();
      if (event->code == 410) {
        ++counts_.expiries;
        carry_out(plan_.expired(clock_.now()));
      } else {
        failed(fmt::format("the watch answered an error: {} ({})", event->message, event->code));
      }
      return false;
    }
    apply_event(slices_, *event);
    plan_.saw(event->resource_version);
    ++watch_events_;
  }
  if (!lines.empty()) publish();
  return true;
}

void MembersSource::on_watch_end(const std::string& error, unsigned status,
                                 const std::string& body) {
  if (status == 200) {
    // Its timeout, or the server closed it. One that ends at once with nothing in it, again and
    // again, would be a loop of requests: that waits a backoff like a failure.
    if (watch_events_ == 0 && clock_.now() - watch_started_ < kShortestWatch) {
      return failed("the watch ended as soon as it began");
    }
    return carry_out(plan_.watch_ended(clock_.now()));
  }
  if (status == 410) {
    ++counts_.expiries;
    return carry_out(plan_.expired(clock_.now()));
  }
  if (status != 0) {
    return failed(fmt::format("watching the EndpointSlices of {}/{}: {}",
                              settings_.service_namespace, settings_.service,
                              status_message(status, body)));
  }
  failed(error);
}

void MembersSource::failed(std::string error) {
  ++counts_.failures;
  drop_connection();
  if (plan_.failures() == 0) {
    if (members_.empty()) {
      log::warn("pool members from the Kubernetes API ({}/{}): {}; the file's members stay",
                settings_.service_namespace, settings_.service, error);
    } else {
      log::warn(
          "pool members from the Kubernetes API ({}/{}): {}; the last known {} members "
          "stay until it answers",
          settings_.service_namespace, settings_.service, error, members_.size());
    }
  }
  const double jitter = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  carry_out(plan_.failed(std::move(error), clock_.now(), jitter));
}

void MembersSource::publish() {
  std::vector<Endpoint> ready = ready_endpoints(slices_);
  if (ready.empty()) {
    if (!members_.empty()) {
      log::warn(
          "pool members from the Kubernetes API ({}/{}): no ready endpoint listed; the "
          "last known {} members stay",
          settings_.service_namespace, settings_.service, members_.size());
    }
    return;
  }
  if (ready == members_) return;
  members_ = std::move(ready);
  ++counts_.changes;
  std::string list;
  for (const Endpoint& e : members_) list += (list.empty() ? "" : ", ") + member_name(e);
  log::info("pool members from the Kubernetes API ({}/{}): {}", settings_.service_namespace,
            settings_.service, list);
  on_members_(members_);
}

}  // namespace vigil::kube
