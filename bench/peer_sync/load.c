// The load of bench/peer_sync/run.py, in one epoll loop per process, in two roles:
//
//   load echo PORT_FILE
//       an echo backend on 127.0.0.1, on a port the kernel picks (written to PORT_FILE once it
//       listens); it sends back what it reads and closes when its client does.
//   load client PORT MIN_MS MAX_MS
//       client sessions through 127.0.0.1:PORT (vigil's listener), driven by lines on stdin:
//         hold N    open N long-lived sessions (at most 256 opening at once)
//         churn R   from now on open R short sessions a second, each closed MIN_MS..MAX_MS
//                   (uniform) after it opened, so that sessions come and go at the same rate
//         calm      open no more short sessions (those open still close on time)
//         drop      close every session
//         stat      print "held H short S pending P opened O closed C failed F lost L" (a line)
//       A session is counted once the byte it sent came back (vigil reached the echo); before,
//       it is pending. A session that fails (refused, or closed by the other side) is closed
//       and counted failed; L of them were long-lived ones, held until then.
//
// Both stop on SIGTERM, SIGINT or (client) the end of stdin. The descriptor limit is the
// caller's (run.py raises it). Compiled by run.py at run time (cc -O2); C17 and Linux only.
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
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { kFree, kConnecting, kEchoWait, kOpen };
enum { kHeld, kShort };
enum { kMaxOpening = 256, kTickMs = 5 };

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

static void die(const char* what) {
  perror(what);
  exit(1);
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int epfd;
static void watch(int fd, uint32_t events) {
  struct epoll_event ev = {.events = events, .data.fd = fd};
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0) die("epoll_ctl");
}

static int echo_main(const char* port_file) {
  int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (ls < 0 || bind(ls, (struct sockaddr*)&a, sizeof a) != 0 || listen(ls, 4096) != 0 ||
      getsockname(ls, (struct sockaddr*)&a, &len) != 0) {
    die("echo: listen");
  }
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
  FILE* f = fopen(tmp, "w");
  if (f == NULL || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0 ||
      rename(tmp, port_file) != 0) {
    die("echo: port file");
  }
  watch(ls, EPOLLIN);
  struct epoll_event evs[256];
  char buf[4096];
  while (!stop_flag) {
    int n = epoll_wait(epfd, evs, 256, 200);
    for (int i = 0; i < n; ++i) {
      int fd = evs[i].data.fd;
      if (fd == ls) {
        int c;
        while ((c = accept4(ls, NULL, NULL, SOCK_NONBLOCK)) >= 0) watch(c, EPOLLIN);
        continue;
      }
      ssize_t r = read(fd, buf, sizeof buf);
      if (r > 0) {
        if (write(fd, buf, (size_t)r) < 0 && errno != EAGAIN) close(fd);
      } else if (r == 0 || errno != EAGAIN) {
        close(fd);
      }
    }
  }
  return 0;
}

// The client's sessions, indexed by descriptor; short ones also in a min-heap by closing time.
static uint8_t* state;
static uint8_t* kind;
static uint32_t* gen;  // bumped when a descriptor is closed: heap entries of an old one are stale
struct Due {
  uint64_t at;
  int fd;
  uint32_t gen;
};
static struct Due* heap;
static size_t heap_len, heap_cap;
static struct sockaddr_in target;
static uint64_t held, shorts, pending, opened, closed, failed, lost;

static void heap_push(struct Due d) {
  if (heap_len == heap_cap) {
    heap_cap = heap_cap ? 2 * heap_cap : 4096;
    heap = realloc(heap, heap_cap * sizeof *heap);
    if (heap == NULL) die("realloc");
  }
  size_t i = heap_len++;
  for (; i > 0 && heap[(i - 1) / 2].at > d.at; i = (i - 1) / 2) heap[i] = heap[(i - 1) / 2];
  heap[i] = d;
}

static struct Due heap_pop(void) {
  struct Due top = heap[0], last = heap[--heap_len];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= heap_len) break;
    if (c + 1 < heap_len && heap[c + 1].at < heap[c].at) ++c;
    if (heap[c].at >= last.at) break;
    heap[i] = heap[c];
    i = c;
  }
  if (heap_len > 0) heap[i] = last;
  return top;
}

static void end(int fd, int failure) {
  if (state[fd] == kOpen) {
    if (kind[fd] == kHeld)
      --held;
    else
      --shorts;
  } else {
    --pending;
  }
  if (failure && state[fd] == kOpen && kind[fd] == kHeld) ++lost;
  if (failure)
    ++failed;
  else if (kind[fd] == kShort)
    ++closed;
  state[fd] = kFree;
  ++gen[fd];
  close(fd);
}

static void open_one(int k, uint64_t now, unsigned min_ms, unsigned max_ms) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    ++failed;
    return;
  }
  if (connect(fd, (struct sockaddr*)&target, sizeof target) != 0 && errno != EINPROGRESS) {
    ++failed;
    close(fd);
    return;
  }
  state[fd] = kConnecting;
  kind[fd] = (uint8_t)k;
  ++pending;
  watch(fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP);
  if (k == kShort) {
    heap_push(
        (struct Due){now + min_ms + (uint64_t)(rand() % (int)(max_ms - min_ms + 1)), fd, gen[fd]});
  }
}

static void on_event(int fd, uint32_t ev) {
  if (ev & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) return end(fd, 1);
  if (state[fd] == kConnecting && (ev & EPOLLOUT)) {
    if (write(fd, "x", 1) != 1) return end(fd, 1);
    state[fd] = kEchoWait;
    struct epoll_event e = {.events = EPOLLIN | EPOLLRDHUP, .data.fd = fd};
    epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &e);  // no more wake-ups for writability
  }
  if (ev & EPOLLIN) {
    char buf[64];
    ssize_t r = read(fd, buf, sizeof buf);
    if (r == 0 || (r < 0 && errno != EAGAIN)) return end(fd, 1);
    if (r > 0 && state[fd] == kEchoWait) {
      state[fd] = kOpen;
      --pending;
      if (kind[fd] == kHeld)
        ++held;
      else
        ++shorts, ++opened;
    }
  }
}

static int client_main(int port, unsigned min_ms, unsigned max_ms) {
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  size_t slots = rl.rlim_cur;
  state = calloc(slots, 1);
  kind = calloc(slots, 1);
  gen = calloc(slots, sizeof *gen);
  if (state == NULL || kind == NULL || gen == NULL) die("calloc");
  target = (struct sockaddr_in){.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  struct itimerspec its = {.it_interval = {0, kTickMs * 1000000L},
                           .it_value = {0, kTickMs * 1000000L}};
  if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) != 0) die("timerfd");
  watch(tfd, EPOLLIN);
  watch(0, EPOLLIN);
  uint64_t to_hold = 0, rate = 0, churn_since = 0, churn_opened = 0;
  char line[256];
  size_t line_len = 0;
  struct epoll_event evs[512];
  while (!stop_flag) {
    int n = epoll_wait(epfd, evs, 512, 200);
    uint64_t now = now_ms();
    for (int i = 0; i < n; ++i) {
      int fd = evs[i].data.fd;
      if (fd == tfd) {
        uint64_t ticks;
        if (read(tfd, &ticks, sizeof ticks) < 0) continue;
      } else if (fd == 0) {
        ssize_t r = read(0, line + line_len, sizeof line - 1 - line_len);
        if (r <= 0) return 0;
        line_len += (size_t)r;
        char* nl;
        while ((nl = memchr(line, '\n', line_len)) != NULL) {
          *nl = '\0';
          unsigned long v = 0;
          if (sscanf(line, "hold %lu", &v) == 1)
            to_hold += v;
          else if (sscanf(line, "churn %lu", &v) == 1)
            rate = v, churn_since = now, churn_opened = 0;
          else if (strcmp(line, "calm") == 0)
            rate = 0;
          else if (strcmp(line, "drop") == 0) {
            rate = 0, to_hold = 0, heap_len = 0;
            for (size_t s = 3; s < slots; ++s) {
              if (state[s] != kFree) end((int)s, 0);
            }
          } else if (strcmp(line, "stat") == 0) {
            printf("held %lu short %lu pending %lu opened %lu closed %lu failed %lu lost %lu\n",
                   held, shorts, pending, opened, closed, failed, lost);
            fflush(stdout);
          }
          line_len -= (size_t)(nl + 1 - line);
          memmove(line, nl + 1, line_len);
        }
      } else if (state[fd] != kFree) {
        on_event(fd, evs[i].events);
      }
    }
    while (heap_len > 0 && heap[0].at <= now) {
      struct Due d = heap_pop();
      if (d.gen == gen[d.fd] && state[d.fd] != kFree) end(d.fd, 0);
    }
    for (; to_hold > 0 && pending < kMaxOpening; --to_hold) open_one(kHeld, now, 0, 0);
    if (rate > 0) {
      uint64_t due = (now - churn_since) * rate / 1000;
      for (; churn_opened < due; ++churn_opened) open_one(kShort, now, min_ms, max_ms);
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  struct sigaction sa = {.sa_handler = on_signal};
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  epfd = epoll_create1(0);
  if (epfd < 0) die("epoll_create1");
  if (argc == 3 && strcmp(argv[1], "echo") == 0) return echo_main(argv[2]);
  if (argc == 5 && strcmp(argv[1], "client") == 0) {
    unsigned min_ms = (unsigned)atoi(argv[3]), max_ms = (unsigned)atoi(argv[4]);
    if (min_ms <= max_ms) return client_main(atoi(argv[2]), min_ms, max_ms);
  }
  fprintf(stderr, "usage: load echo PORT_FILE | load client PORT MIN_MS MAX_MS\n");
  return 2;
}
