// The "floor" of bench/healthcheck/run.py (tcp-scale): the least a TCP health checker can do.
// Member i (address 127.0.X.Y, X = 1 + i / 250, Y = 1 + i % 250) is checked every INTERVAL_MS,
// the members evenly spread over the interval; a check is socket(), a nonblocking connect(),
// epoll until writable, getsockopt(SO_ERROR), SO_LINGER 0 and close() (a reset, as vigil and
// HAProxy close their checks). One thread, one epoll set; wake-ups have 1 ms resolution, so
// checks leave in batches of about members/interval/1000. A check not writable within 1 s is
// closed and counted as a timeout.
//
// With "noack" it also does what HAProxy does for a TCP check: TCP_QUICKACK off before the
// connect(), so the handshake's final ACK is held back and the reset goes out instead; the
// listener never completes the handshake and nothing is accepted.
//
//   floor MEMBERS PORT INTERVAL_MS MAX_SECONDS [noack]
//
// Stops on SIGTERM or SIGINT, or after MAX_SECONDS, and prints its counters on stderr.
// Compiled by run.py at run time (cc -O2); C17 and Linux only.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static int ep;
static uint64_t* started;  // per descriptor: when its check started, 0 when none runs on it
static long max_fd;
static unsigned long ok, failed, timeouts, errors;
static int noack;

static void finish(int fd) {
  struct linger lg = {.l_onoff = 1, .l_linger = 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  close(fd);  // also leaves the epoll set
  started[fd] = 0;
}

static void launch(uint64_t member, uint16_t port, uint64_t now) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s < 0) {
    errors++;
    return;
  }
  if (s >= max_fd) {
    close(s);
    errors++;
    return;
  }
  if (noack) {
    int zero = 0;
    setsockopt(s, IPPROTO_TCP, TCP_QUICKACK, &zero, sizeof zero);
  }
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(member_addr(member));
  int rc = connect(s, (struct sockaddr*)&a, sizeof a);
  if (rc == 0) {  // connected at once: done
    ok++;
    finish(s);
    return;
  }
  if (errno != EINPROGRESS) {
    failed++;
    close(s);
    return;
  }
  struct epoll_event ev = {.events = EPOLLOUT, .data.fd = s};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev) != 0) {
    errors++;
    close(s);
    return;
  }
  started[s] = now ? now : 1;
}

int main(int argc, char** argv) {
  if (argc != 5 && !(argc == 6 && strcmp(argv[5], "noack") == 0)) {
    fprintf(stderr, "usage: floor MEMBERS PORT INTERVAL_MS MAX_SECONDS [noack]\n");
    return 2;
  }
  noack = argc == 6;
  const uint64_t n = (uint64_t)atol(argv[1]);
  const int port = atoi(argv[2]);
  const uint64_t interval = (uint64_t)atol(argv[3]) * 1000000u;
  const double max_s = atof(argv[4]);
  if (n < 1 || n > 250 * 254 || port < 1 || port > 65535 || interval == 0 || max_s <= 0) {
    fprintf(stderr, "floor: bad arguments\n");
    return 2;
  }
  stop_on_signals();
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  max_fd = rl.rlim_cur > 1048576 ? 1048576 : (long)rl.rlim_cur;
  started = calloc((size_t)max_fd, sizeof *started);
  ep = epoll_create1(EPOLL_CLOEXEC);
  if (!started || ep < 0) return 1;

  const uint64_t t0 = now_ns();
  const uint64_t deadline = t0 + (uint64_t)(max_s * 1e9);
  uint64_t seq = 0;  // check number seq: member seq % n, due at t0 + seq * interval / n
  uint64_t next_sweep = t0 + 1000000000u;
  struct epoll_event evs[1024];
  while (!stop_flag) {
    uint64_t now = now_ns();
    if (now >= deadline) break;
    for (uint64_t burst = 0; burst < n && t0 + seq * interval / n <= now; burst++, seq++) {
      launch(seq % n, (uint16_t)port, now);
    }
    const uint64_t next = t0 + seq * interval / n;
    now = now_ns();
    int timeout_ms = next > now ? (int)((next - now + 999999u) / 1000000u) : 0;
    if (timeout_ms > 100) timeout_ms = 100;
    int k = epoll_wait(ep, evs, 1024, timeout_ms);
    if (k < 0 && errno != EINTR) {
      perror("floor: epoll_wait");
      break;
    }
    for (int e = 0; e < k; e++) {
      const int fd = evs[e].data.fd;
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err == 0) {
        ok++;
      } else {
        failed++;
      }
      finish(fd);
    }
    now = now_ns();
    if (now >= next_sweep) {  // once a second: checks not answered within 1 s
      for (long fd = 0; fd < max_fd; fd++) {
        if (started[fd] && now - started[fd] > 1000000000u) {
          timeouts++;
          finish((int)fd);
        }
      }
      next_sweep = now + 1000000000u;
    }
  }
  fprintf(stderr, "floor: %lu checks due, %lu ok, %lu failed, %lu timed out, %lu not started\n",
          (unsigned long)seq, ok, failed, timeouts, errors);
  return 0;
}
