// The Octavia API's shared store (admin.store type etcd: admin/octavia/shared_store.h), made on
// the control thread's loop with an etcd::Client behind it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>

#include "admin/daemon.h"
#include "admin/octavia/shared_store.h"
#include "base/clock.h"
#include "base/timer.h"
#include "etcd/types.h"
#include "model/process.h"

namespace vigil::daemon {

// admin.store's etcd client options, and the store's name in messages: "etcd (URL, URL)".
etcd::Options etcd_options(const model::Store& store);
std::string store_name(const model::Store& store);

// Null for type file. Started: it reads etcd's objects and follows them from then on. An error
// when the TLS files do not load (as `vigil check` says): vigil must not start on them.
Result<std::unique_ptr<admin::SharedStore>> start_shared_store(
    const model::Store& store, boost::asio::io_context& io, admin::ObjectStore& cache,
    admin::Daemon& daemon, const Clock& clock, const WallClock& wall, TimerSource& timers);

}  // namespace vigil::daemon
