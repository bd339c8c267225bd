// The least a userspace Layer-4 proxy does, for bench/dataplane/run.py (target "floor"): how much
// of each metric is the kernel's, the way bench/healthcheck/floor.c is for health checks.
//
//   floor LISTEN_PORT:BACKEND_PORT ...
//
// Listens on 127.0.0.1:LISTEN_PORT and connects every accepted connection at once to
// 127.0.0.1:BACKEND_PORT. One thread, one edge-triggered epoll set, each socket registered once;
// TCP_NODELAY on both legs; an event pumps only the direction it concerns; after a short read
// no further recv() unless the event carried HUP, RDHUP or ERR. Data goes through one 64 KiB
// stack buffer: recv() then send(), and only what the peer would not take yet is copied aside
// (then reading that direction waits for EPOLLOUT on the peer). No splice(), no timeouts, no
// limits, no logging, no balancing: nothing a real load balancer can do without. A half-close is
// passed on with shutdown(SHUT_WR). Stops on SIGTERM or SIGINT. C17 and Linux only; compiled by
// run.py at run time (cc -O2).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_SIZE 65536
#define MAX_PORTS 16

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

enum kind { LISTENER, SIDE };

struct pair;

// One socket of a proxied connection: what it still has to send (data its peer read that it
// could not take at once) and whether it has read its end.
struct side {
  enum kind kind;  // first: epoll data points at a listener or a side
  int fd;
  struct pair* pair;
  struct side* peer;
  char* pending;  // malloc'd, only while a send was short
  size_t pending_len, pending_off;
  bool read_eof;
};

struct pair {
  struct side client, backend;
  bool closed;
  struct pair* next_dead;
};

struct listener {
  enum kind kind;
  int fd;
  struct sockaddr_in backend;
};

static int ep;
static struct pair* dead;  // closed this round, freed after the batch of events

static void close_pair(struct pair* p) {
  if (p->closed) return;
  p->closed = true;
  close(p->client.fd);  // a closed fd leaves the epoll set by itself
  close(p->backend.fd);
  free(p->client.pending);
  free(p->backend.pending);
  p->next_dead = dead;
  dead = p;
}

// Sends what `to` has pending; false when some is still left.
static bool flush(struct side* to) {
  while (to->pending_off < to->pending_len) {
    ssize_t n = send(to->fd, to->pending + to->pending_off, to->pending_len - to->pending_off,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN) return false;
      close_pair(to->pair);
      return false;
    }
    to->pending_off += (size_t)n;
  }
  free(to->pending);
  to->pending = NULL;
  to->pending_len = to->pending_off = 0;
  return true;
}

// Moves what `from` can read to its peer until `from` is drained or the peer is full.
static void pump(struct side* from, uint32_t events) {
  static char buf[BUF_SIZE];
  struct side* to = from->peer;
  const bool hangup = events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR);
  while (!from->pair->closed && !from->read_eof && to->pending == NULL) {
    ssize_t n = recv(from->fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      close_pair(from->pair);
      return;
    }
    if (n == 0) {
      from->read_eof = true;
      shutdown(to->fd, SHUT_WR);
      if (to->read_eof) close_pair(from->pair);
      return;
    }
    ssize_t s = send(to->fd, buf, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (s < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN) {
        close_pair(from->pair);
        return;
      }
      s = 0;
    }
    if (s < n) {  // the peer is full (or still connecting): keep the rest, wait for EPOLLOUT
      to->pending = malloc((size_t)(n - s));
      if (to->pending == NULL) {
        close_pair(from->pair);
        return;
      }
      memcpy(to->pending, buf + s, (size_t)(n - s));
      to->pending_len = (size_t)(n - s);
      to->pending_off = 0;
      return;
    }
    if (n < (ssize_t)sizeof buf && !hangup) return;  // drained: the next data is a new edge
  }
}

static void watch(struct side* s) {
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = s};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ev) != 0) close_pair(s->pair);
}

static void accept_all(struct listener* l) {
  for (;;) {
    int c = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (c < 0) return;  // EAGAIN, or out of descriptors: the rest wait in the backlog
    int b = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (b < 0) {
      close(c);
      return;
    }
    const int one = 1;
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(b, (struct sockaddr*)&l->backend, sizeof l->backend) != 0 && errno != EINPROGRESS) {
      close(b);
      close(c);
      continue;
    }
    struct pair* p = calloc(1, sizeof *p);
    if (p == NULL) {
      close(b);
      close(c);
      continue;
    }
    p->client = (struct side){.kind = SIDE, .fd = c, .pair = p, .peer = &p->backend};
    p->backend = (struct side){.kind = SIDE, .fd = b, .pair = p, .peer = &p->client};
    watch(&p->client);
    watch(&p->backend);
  }
}

static int listen_on(int port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || bind(s, (struct sockaddr*)&a, sizeof a) != 0 || listen(s, 4096) != 0) {
    perror("floor: listen");
    exit(1);
  }
  return s;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 1 + MAX_PORTS) {
    fprintf(stderr, "usage: floor LISTEN_PORT:BACKEND_PORT ... (at most %d)\n", MAX_PORTS);
    return 2;
  }
  struct sigaction sa = {.sa_handler = on_signal};
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  ep = epoll_create1(EPOLL_CLOEXEC);
  static struct listener listeners[MAX_PORTS];
  for (int i = 1; i < argc; i++) {
    int lport = 0, bport = 0;
    if (sscanf(argv[i], "%d:%d", &lport, &bport) != 2 || lport < 1 || lport > 65535 || bport < 1 ||
        bport > 65535) {
      fprintf(stderr, "floor: bad LISTEN_PORT:BACKEND_PORT %s\n", argv[i]);
      return 2;
    }
    struct listener* l = &listeners[i - 1];
    l->kind = LISTENER;
    l->fd = listen_on(lport);
    l->backend = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)bport)};
    l->backend.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = l};
    epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &ev);
  }
  struct epoll_event evs[256];
  while (!stop_flag) {
    int n = epoll_wait(ep, evs, 256, 1000);
    for (int i = 0; i < n; i++) {
      if (*(enum kind*)evs[i].data.ptr == LISTENER) {
        accept_all(evs[i].data.ptr);
        continue;
      }
      struct side* s = evs[i].data.ptr;
      if (s->pair->closed) continue;
      // Writable: what waited for this side goes out, then its peer may read again.
      if ((evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && s->pending && flush(s)) {
        pump(s->peer, EPOLLRDHUP);  // the peer's data may have arrived while it waited
      }
      if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) pump(s, evs[i].events);
    }
    while (dead) {
      struct pair* p = dead;
      dead = p->next_dead;
      free(p);
    }
  }
  return 0;
}
