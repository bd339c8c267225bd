// The listeners' binds against each other before anything is bound (bind_check.h).
#include "daemon/bind_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace vigil::daemon {
namespace {

std::string name(const model::Config& lb, const model::Listener& l) {
  return lb.name + "/" + l.name;
}

std::unexpected<Error> clash(const std::string& a, const std::string& b, uint16_t port) {
  return fail(fmt::format("listeners {} and {} both listen on port {}", a, b, port));
}

config::BindAddress bind_of(const model::Listener& l) {
  return {.address = l.bind_address, .port = l.port};
}

}  // namespace

Result<std::shared_ptr<const config::BindIndex>> check_binds(
    const std::vector<model::Config*>& lbs, std::shared_ptr<const config::BindIndex> file) {
  const model::Config& first = *lbs.front();
  if (!file) {
    auto index = std::make_shared<config::BindIndex>();
    for (const auto& l : first.listeners) {
      if (const auto at = index->add(bind_of(l))) {
        return clash(name(first, first.listeners[*at]), name(first, l), l.port);
      }
    }
    file = std::move(index);
  }
  config::BindIndex others;
  std::vector<std::pair<const model::Config*, const model::Listener*>> numbered;
  for (const model::Config* lb : std::span(lbs).subspan(1)) {
    for (const auto& l : lb->listeners) {
      const config::BindAddress bind = bind_of(l);
      if (const auto at = file->find(bind)) {
        return clash(name(first, first.listeners[*at]), name(*lb, l), l.port);
      }
      if (const auto at = others.add(bind)) {
        const auto& [earlier_lb, earlier] = numbered[*at];
        return clash(name(*earlier_lb, *earlier), name(*lb, l), l.port);
      }
      numbered.emplace_back(lb, &l);
    }
  }
  return file;
}

Result<void> check_running_binds(std::span<model::Config* const> given,
                                 std::span<const LoadBalancerRuntime> running,
                                 const std::vector<const LoadBalancerRuntime*>& replaced) {
  config::BindIndex index;
  std::vector<std::pair<const model::Config*, const model::Listener*>> numbered;
  for (const model::Config* lb : given) {
    for (const auto& l : lb->listeners) {
      index.add(bind_of(l));  // a clash among them is check_binds()'
      numbered.emplace_back(lb, &l);
    }
  }
  if (numbered.empty()) return {};
  for (const LoadBalancerRuntime& lb : running) {
    if (std::ranges::find(replaced, &lb) != replaced.end()) continue;
    for (const auto& l : lb.config.listeners) {
      if (const auto at = index.find(bind_of(l))) {
        const auto& [given_lb, given_l] = numbered[*at];
        return clash(name(lb.config, l), name(*given_lb, *given_l), l.port);
      }
    }
  }
  return {};
}

}  // namespace vigil::daemon
