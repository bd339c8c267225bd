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
//
// Built with -DFLOOR_VIGIL_SOCKETS it is target "floor-vigil-sockets": the same forwarder with the
// socket options vigil's listeners have (listen_on()), so that what they cost the kernel is
// told apart from what vigil's own code costs.
//
// Built with -DFLOOR_SOCKMAP (and -lbpf) it is target "floor-sockmap" instead:
//
//   floor-sockmap BPF_OBJECT LISTEN_PORT:BACKEND_PORT ...
//
// the same process, but once a connection's backend leg is established both legs go into a BPF
// sockmap whose verdict program (floor_sockmap.bpf.c) sends each segment out of the peer socket:
// the kernel alone forwards, and this process only accepts, connects and passes on the ends.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/tcp.h>  // TCP_NODELAY; floor-sockmap: the tcp_info with tcpi_bytes_acked
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef FLOOR_SOCKMAP
#include <time.h>

#include "floor_sockmap.h"
#endif

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
  uint64_t sent;  // bytes this process sent out of this socket
  bool read_eof, write_shut;
#ifdef FLOOR_SOCKMAP
  uint32_t key;              // its key in the sockmap (local port << 16 | remote port)
  struct side* next_ending;  // in `ending`: its peer has ended, bytes are still on their way
  long ending_deadline_ms;
#endif
};

struct pair {
  struct side client, backend;
  bool closed;
  bool offloaded;  // floor-sockmap: in the map (or refused by it), whichever came first
  struct pair* next_dead;
};

struct listener {
  enum kind kind;
  int fd;
  struct sockaddr_in backend;
};

static int ep;
static struct pair* dead;  // closed this round, freed after the batch of events
#ifdef FLOOR_SOCKMAP
static struct side* ending;  // sides that pass on their peer's end once the kernel sent the rest

static void stop_ending(struct side* s) {
  for (struct side** at = &ending; *at != NULL; at = &(*at)->next_ending) {
    if (*at == s) {
      *at = s->next_ending;
      return;
    }
  }
}
#endif

static void close_pair(struct pair* p) {
  if (p->closed) return;
  p->closed = true;
#ifdef FLOOR_SOCKMAP
  stop_ending(&p->client);
  stop_ending(&p->backend);
  if (p->offloaded) offload_forget(p->client.key, p->backend.key);
#endif
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
    to->sent += (uint64_t)n;
  }
  free(to->pending);
  to->pending = NULL;
  to->pending_len = to->pending_off = 0;
  return true;
}

#ifdef FLOOR_SOCKMAP
static void watch_out(struct side* s) {
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = s};
  epoll_ctl(ep, EPOLL_CTL_MOD, s->fd, &ev);
}
#endif

// `to`'s peer has read its end of stream: `to` passes it on, and the pair closes once both ways
// have ended.
static void shut(struct side* to) {
  shutdown(to->fd, SHUT_WR);
  to->write_shut = true;
  if (to->peer->write_shut) close_pair(to->pair);
}

#ifdef FLOOR_SOCKMAP
static long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

// Bytes the kernel redirected may still be queued for `to` behind a kernel worker, and the end
// of stream must not overtake them: `to` waits in `ending` (checked every millisecond) until it
// has taken them all, or 5 s have passed.
static void end_stream(struct side* to) {
  if (!to->pair->offloaded || offload_drained(to->fd, to->sent, to->peer->key)) {
    shut(to);
    return;
  }
  to->ending_deadline_ms = now_ms() + 5000;
  to->next_ending = ending;
  ending = to;
}

static void finish_endings(void) {
  const long now = now_ms();
  for (struct side** at = &ending; *at != NULL;) {
    struct side* s = *at;
    if (offload_drained(s->fd, s->sent, s->peer->key) || now >= s->ending_deadline_ms) {
      *at = s->next_ending;
      shut(s);
    } else {
      at = &s->next_ending;
    }
  }
}
#else
static void end_stream(struct side* to) { shut(to); }
#endif

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
      end_stream(to);
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
    to->sent += (uint64_t)s;
    if (s < n) {  // the peer is full (or still connecting): keep the rest, wait for EPOLLOUT
      to->pending = malloc((size_t)(n - s));
      if (to->pending == NULL) {
        close_pair(from->pair);
        return;
      }
      memcpy(to->pending, buf + s, (size_t)(n - s));
      to->pending_len = (size_t)(n - s);
      to->pending_off = 0;
#ifdef FLOOR_SOCKMAP
      if (to->pair->offloaded) watch_out(to);  // offload() stopped watching for EPOLLOUT
#endif
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
#ifdef FLOOR_VIGIL_SOCKETS
  // What vigil's listeners carry and their connections inherit: SO_REUSEPORT (a listening socket
  // per worker, and the hand-over of an upgrade) and the client legs' dead-peer detection with
  // the default dead_peer_timeout of 60 s (keepalive after 30 s, 3 probes 10 s apart, and
  // TCP_USER_TIMEOUT).
  const int idle = 30, interval = 10, count = 3;
  const unsigned user_timeout_ms = 60000;
  setsockopt(s, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  setsockopt(s, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(s, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(s, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  setsockopt(s, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof user_timeout_ms);
#endif
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || bind(s, (struct sockaddr*)&a, sizeof a) != 0 || listen(s, 4096) != 0) {
    perror("floor: listen");
    exit(1);
  }
  return s;
}

#ifdef FLOOR_SOCKMAP
// The backend leg is established (its first EPOLLOUT) and what arrived before has been pumped:
// the kernel takes over. A refusal is said once, as "error", which the run reports.
static void offload(struct pair* p) {
  p->offloaded = true;
  static bool told;
  if (!offload_pair(p->client.fd, p->backend.fd, &p->client.key, &p->backend.key)) {
    if (!told)
      fprintf(stderr, "floor-sockmap: error: a pair stays in user space: %s\n", strerror(errno));
    told = true;
    return;
  }
  // The kernel's sends make a leg writable again and again; with nothing of its own to send,
  // the process would wake for each of them. It still hears of the ends (and of data that came
  // before the map took over).
  struct side* legs[] = {&p->client, &p->backend};
  for (int i = 0; i < 2; i++) {
    if (legs[i]->pending != NULL) continue;
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = legs[i]};
    epoll_ctl(ep, EPOLL_CTL_MOD, legs[i]->fd, &ev);
  }
}
#endif

int main(int argc, char** argv) {
#ifdef FLOOR_SOCKMAP
  if (argc < 2) {
    fprintf(stderr, "usage: floor-sockmap BPF_OBJECT LISTEN_PORT:BACKEND_PORT ...\n");
    return 2;
  }
  offload_start(argv[1]);
  argv++;
  argc--;
#endif
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
#ifdef FLOOR_SOCKMAP
    int n = epoll_wait(ep, evs, 256, ending != NULL ? 1 : 1000);
#else
    int n = epoll_wait(ep, evs, 256, 1000);
#endif
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
#ifdef FLOOR_SOCKMAP
      if (s == &s->pair->backend && !s->pair->closed && !s->pair->offloaded &&
          (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) == EPOLLOUT) {
        offload(s->pair);
      }
#endif
    }
#ifdef FLOOR_SOCKMAP
    finish_endings();
#endif
    while (dead) {
      struct pair* p = dead;
      dead = p->next_dead;
      free(p);
    }
  }
  return 0;
}
