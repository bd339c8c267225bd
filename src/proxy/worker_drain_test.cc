// A worker's graceful stop on real loopback sockets: stop_accepting() refuses new connects and
// keeps established sessions; when_idle() answers once they have ended. Every wait is bounded.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <future>

#include "proxy/test_support.h"
#include "proxy/worker.h"

namespace vigil::proxy {
namespace {

using namespace std::chrono_literals;
using namespace test_support;

// A session through the proxy that has passed a byte both ways (so it is established).
net::Fd established(const net::SocketAddress& proxy) {
  net::Fd fd = connect_blocking(proxy);
  char c = 0;
  EXPECT_EQ(::send(fd.get(), "a", 1, 0), 1);
  EXPECT_EQ(::recv(fd.get(), &c, 1, 0), 1);
  return fd;
}

bool refused(const net::SocketAddress& to) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  return ::connect(fd.get(), to.sockaddr_ptr(), to.size()) != 0 && errno == ECONNREFUSED;
}

TEST(WorkerDrain, StopAcceptingRefusesNewConnectsAndKeepsTheSession) {
  Member a;
  Proxy proxy({a.address()});
  net::Fd held = established(proxy.address());

  std::promise<size_t> held_count;
  proxy.worker().stop_accepting([&](size_t n) { held_count.set_value(n); });
  auto count = held_count.get_future();
  ASSERT_EQ(count.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(count.get(), 1u);

  EXPECT_TRUE(refused(proxy.address()));
  ASSERT_EQ(::send(held.get(), "b", 1, 0), 1);
  char c = 0;
  ASSERT_EQ(::recv(held.get(), &c, 1, 0), 1);
  EXPECT_EQ(c, 'b');

  proxy.worker().stop();
  EXPECT_EQ(proxy.worker().sessions_cut_at_stop(), 1u);
}

TEST(WorkerDrain, WhenIdleAnswersOnceTheLastSessionEnds) {
  Member a;
  Proxy proxy({a.address()});
  net::Fd held = established(proxy.address());
  proxy.worker().stop_accepting(nullptr);
  std::promise<void> idle;
  proxy.worker().when_idle([&] { idle.set_value(); });
  auto done = idle.get_future();
  EXPECT_EQ(done.wait_for(200ms), std::future_status::timeout) << "a session is still open";

  held.reset();  // the client ends its session
  ASSERT_EQ(done.wait_for(5s), std::future_status::ready);
  proxy.worker().stop();
  EXPECT_EQ(proxy.worker().sessions_cut_at_stop(), 0u);
}

TEST(WorkerDrain, WhenIdleAnswersAtOnceWithoutSessions) {
  Member a;
  Proxy proxy({a.address()});
  proxy.worker().stop_accepting(nullptr);
  std::promise<void> idle;
  proxy.worker().when_idle([&] { idle.set_value(); });
  EXPECT_EQ(idle.get_future().wait_for(5s), std::future_status::ready);
}

TEST(WorkerDrain, AnUpdateWhileStoppingAddsNoListener) {
  Member a;
  Proxy proxy({a.address()});
  proxy.worker().stop_accepting(nullptr);
  NewListener l2 = new_listener("l2");
  const auto second = l2.address;
  ListenerChanges changes;
  changes.set.push_back(std::move(l2.socket));
  proxy.worker().update({std::make_shared<PoolSnapshot>(proxy.pool())}, std::move(changes));
  std::promise<void> seen;  // the mailbox is in order: after this, the update has run
  proxy.worker().ping([&] { seen.set_value(); });
  ASSERT_EQ(seen.get_future().wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(refused(second));
}

}  // namespace
}  // namespace vigil::proxy
