// A worker's session listing on real loopback sockets: what it says of each established
// session, the member filter and the limit. Every wait is bounded.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <future>

#include "proxy/test_support.h"
#include "proxy/worker.h"

namespace vigil::proxy {
namespace {

using namespace std::chrono_literals;
using namespace test_support;

SessionListing listing(Worker& w, std::shared_ptr<const std::vector<const BackendStats*>> members,
                       size_t limit = 100) {
  std::promise<SessionListing> answer;
  w.list_sessions(std::move(members), limit,
                  [&](SessionListing l) { answer.set_value(std::move(l)); });
  auto f = answer.get_future();
  EXPECT_EQ(f.wait_for(5s), std::future_status::ready);
  return f.get();
}

// Sends `up` bytes and reads them back from the echoing member.
void echo(int fd, size_t up) {
  const std::string bytes(up, 'x');
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(up));
  std::string back(up, '\0');
  size_t got = 0;
  while (got < up) {
    const ssize_t n = ::recv(fd, back.data() + got, up - got, 0);
    ASSERT_GT(n, 0);
    got += static_cast<size_t>(n);
  }
}

TEST(WorkerSessions, ListsAnEstablishedSessionWithItsAddressesAndBytes) {
  Member a;
  Proxy proxy({a.address()});
  net::Fd client = connect_blocking(proxy.address());
  echo(client.get(), 5);
  echo(client.get(), 7);
  SessionListing l;
  // The worker counts a pass's bytes just after they went out.
  ASSERT_TRUE(eventually([&] {
    l = listing(proxy.worker(), nullptr);
    return l.sessions.size() == 1 && l.sessions[0].bytes_out == 12;
  }));
  EXPECT_EQ(l.total, 1u);
  const SessionInfo& s = l.sessions[0];
  EXPECT_EQ(s.listener, "l");
  EXPECT_EQ(s.member.get(), proxy.pool().candidates[0].stats.get());
  EXPECT_EQ(s.client, net::local_address(client.get())->to_string());
  EXPECT_EQ(s.member_address, a.address().to_string());
  EXPECT_EQ(s.bytes_in, 12u);
  EXPECT_GE(s.age, Duration::zero());
}

TEST(WorkerSessions, TheMemberFilterAndTheLimitAreKept) {
  Member a;
  Member b;
  Proxy proxy({a.address(), b.address()});
  std::vector<net::Fd> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(connect_blocking(proxy.address()));
    echo(clients.back().get(), 1);
  }
  const BackendStats* first = proxy.pool().candidates[0].stats.get();
  auto only_first = std::make_shared<const std::vector<const BackendStats*>>(
      std::vector<const BackendStats*>{first});
  const SessionListing to_first = listing(proxy.worker(), only_first);
  EXPECT_EQ(to_first.total, 2u) << "round robin put two of four on each member";
  for (const SessionInfo& s : to_first.sessions) EXPECT_EQ(s.member.get(), first);

  const SessionListing capped = listing(proxy.worker(), nullptr, 3);
  EXPECT_EQ(capped.total, 4u);
  EXPECT_EQ(capped.sessions.size(), 3u);

  auto nobody = std::make_shared<const std::vector<const BackendStats*>>();
  EXPECT_EQ(listing(proxy.worker(), nobody).total, 0u);
}

std::vector<LostSession> reset_on(Worker& w, const std::string& ip_text) {
  std::promise<std::vector<LostSession>> answer;
  w.reset_sessions_on(std::string(net::SocketAddress::from_ip(ip_text, 0)->ip_bytes()),
                      [&](std::vector<LostSession> lost) { answer.set_value(std::move(lost)); });
  auto f = answer.get_future();
  EXPECT_EQ(f.wait_for(5s), std::future_status::ready);
  return f.get();
}

// The host lost an address: only the sessions whose client connected to it end, with a reset,
// so that the client knows at once rather than after its own timer.
TEST(WorkerSessions, ALostAddressResetsTheSessionsOnItAndNoOthers) {
  Member a;
  Proxy proxy({a.address()});  // listens on 127.0.0.1
  net::Fd client = connect_blocking(proxy.address());
  const timeval bounded{.tv_sec = 5, .tv_usec = 0};  // a recv that would wait, waits 5 s at most
  ::setsockopt(client.get(), SOL_SOCKET, SO_RCVTIMEO, &bounded, sizeof bounded);
  echo(client.get(), 3);
  EXPECT_TRUE(reset_on(proxy.worker(), "127.0.0.2").empty());
  echo(client.get(), 3);  // still passing bytes
  const auto lost = reset_on(proxy.worker(), "::ffff:127.0.0.1");
  ASSERT_EQ(lost.size(), 1u) << "a mapped address is the same";
  EXPECT_EQ(lost[0].local, proxy.address()) << "what the client connected to";
  EXPECT_EQ(lost[0].client, *net::local_address(client.get()));
  char byte = 0;
  const ssize_t n = ::recv(client.get(), &byte, 1, 0);
  EXPECT_EQ(n, -1);
  EXPECT_EQ(errno, ECONNRESET) << "a reset, not an orderly close";
  EXPECT_EQ(listing(proxy.worker(), nullptr).total, 0u);
}

SessionChanges changes(Worker& w) {
  std::promise<SessionChanges> answer;
  w.session_changes([&](SessionChanges c) { answer.set_value(std::move(c)); });
  auto f = answer.get_future();
  EXPECT_EQ(f.wait_for(5s), std::future_status::ready);
  return f.get();
}

// What the peer sync streams (daemon/peer_sync.h): the first answer lists every session, later
// ones what opened since and what closed of those listed; a session that opened and closed
// between two answers is in neither.
TEST(WorkerSessions, SessionChangesListEverySessionOnceThenOnlyWhatChanged) {
  Member a;
  Proxy proxy({a.address()});
  net::Fd first = connect_blocking(proxy.address());
  echo(first.get(), 3);  // the session is up in the worker
  const SessionChanges all = changes(proxy.worker());
  ASSERT_EQ(all.opened.size(), 1u);
  EXPECT_TRUE(all.closed.empty());
  EXPECT_EQ(all.opened[0].local, proxy.address());
  EXPECT_EQ(all.opened[0].client, *net::local_address(first.get()));

  net::Fd second = connect_blocking(proxy.address());
  echo(second.get(), 3);
  {
    net::Fd brief = connect_blocking(proxy.address());
    echo(brief.get(), 3);
  }
  SessionChanges next;
  ASSERT_TRUE(eventually([&] {  // the brief one's close reaches the worker
    return listing(proxy.worker(), nullptr).total == 2;
  }));
  next = changes(proxy.worker());
  ASSERT_EQ(next.opened.size(), 1u) << "the second only: the brief one is gone already";
  EXPECT_EQ(next.opened[0].client, *net::local_address(second.get()));
  EXPECT_TRUE(next.closed.empty());

  const uint64_t first_id = all.opened[0].id;
  first.reset();
  ASSERT_TRUE(eventually([&] { return listing(proxy.worker(), nullptr).total == 1; }));
  const SessionChanges last = changes(proxy.worker());
  EXPECT_TRUE(last.opened.empty());
  ASSERT_EQ(last.closed.size(), 1u);
  EXPECT_EQ(last.closed[0], first_id);
  EXPECT_TRUE(changes(proxy.worker()).closed.empty()) << "each close is said once";
}

// The peer sync polls has_new_sessions() every 20 ms and gathers only when it is set: it must
// be set by a session accepted after an answer, and cleared by the next answer.
TEST(WorkerSessions, ANewSessionIsFlaggedUntilTheNextAnswer) {
  Member a;
  Proxy proxy({a.address()});
  EXPECT_FALSE(proxy.worker().has_new_sessions());
  changes(proxy.worker());  // tracking starts
  EXPECT_FALSE(proxy.worker().has_new_sessions());
  net::Fd client = connect_blocking(proxy.address());
  echo(client.get(), 3);  // the session is up in the worker
  EXPECT_TRUE(proxy.worker().has_new_sessions());
  EXPECT_EQ(changes(proxy.worker()).opened.size(), 1u);
  EXPECT_FALSE(proxy.worker().has_new_sessions());
  client.reset();
  ASSERT_TRUE(eventually([&] { return listing(proxy.worker(), nullptr).total == 0; }));
  EXPECT_FALSE(proxy.worker().has_new_sessions()) << "a close is no news to flush";
}

}  // namespace
}  // namespace vigil::proxy
