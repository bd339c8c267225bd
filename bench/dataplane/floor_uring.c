// The bare forwarder of floor.c on io_uring instead of epoll, for bench/dataplane/run.py (target
// "floor-uring"): does io_uring lower what the machine pays per request below the epoll floor?
//
//   floor_uring LISTEN_PORT:BACKEND_PORT ...
//
// Same job as floor.c: listens on 127.0.0.1:LISTEN_PORT, connects every accepted connection at
// once to 127.0.0.1:BACKEND_PORT, TCP_NODELAY on both legs, half-close passed on with
// shutdown(SHUT_WR), no splice, no timeouts, no limits, no logging. What io_uring adds:
//   - batched submission: the completions of one wake-up are handled, and everything they ask
//     for (sends, re-armed receives, connects) goes to the kernel in one io_uring_enter();
//   - multishot accept: one request accepts every connection of a listener;
//   - multishot receive into provided buffers: one request per socket for its whole life, the
//     kernel picks a free 64 KiB buffer from a shared ring for each read, so an idle socket holds
//     no buffer (what vigil's buffer pool does by hand);
//   - IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN: completions are run when this thread waits,
//     not by interrupting it; and a registered ring fd (no fdget per io_uring_enter()).
// What the kernel lacks is dropped, in that order of preference, and the line it prints at start
// (stderr, "floor_uring: features ...") says what was used. Multishot receive and buffer rings
// (Linux 6.0) are required. One send at a time per socket keeps the bytes in order; a socket
// whose receive found no free buffer (the peer is slow) waits until a send gives one back.
// Stops on SIGTERM or SIGINT. C17 and Linux only; compiled by run.py at run time
// (cc -O2 ... -luring, Debian's liburing-dev).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define BUF_SIZE 65536
#define NBUFS 256  // 16 MiB: a power of two (the buffer ring's mask)
#define BGID 1
#define RING_ENTRIES 4096
#define MAX_PORTS 16

enum op { OP_RECV, OP_SEND, OP_CONNECT, OP_ACCEPT };  // the low two bits of user_data

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

struct pair;

// One socket of a proxied connection. Bytes read from its peer wait in `q` (buffer ids, chained
// through next_bid[]) until this socket has sent them.
struct side {
  int fd;
  struct pair* pair;
  struct side* peer;
  int q_head, q_tail;  // -1: nothing to send
  bool sending;        // a send is in flight (at most one: the bytes stay in order)
  bool recv_armed;     // the multishot receive is in flight
  bool read_eof, write_shut;
  struct side* next_starved;
};

struct pair {
  struct side client, backend;
  int refs;  // requests in flight, and a place on the starved list
  bool dead;
};

struct listener {
  int fd;
  struct sockaddr_in backend;
};

static struct io_uring ring;
static struct io_uring_buf_ring* br;
static char* buffers;
static uint32_t buf_len[NBUFS], buf_off[NBUFS];
static int next_bid[NBUFS];
static struct side* starved;  // sides whose receive found no free buffer
static bool returned;         // a buffer went back to the ring in this batch
static bool multishot_accept = true;

static struct io_uring_sqe* sqe_for(void* ptr, enum op op) {
  struct io_uring_sqe* sqe = io_uring_get_sqe(&ring);
  if (sqe == NULL) {  // full: hand the batch over now
    io_uring_submit(&ring);
    sqe = io_uring_get_sqe(&ring);
  }
  if (sqe == NULL) {
    fprintf(stderr, "floor_uring: no submission entry\n");
    exit(1);
  }
  io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)ptr | (uint64_t)op);
  return sqe;
}

static void give_buffer(int bid) {
  io_uring_buf_ring_add(br, buffers + (size_t)bid * BUF_SIZE, BUF_SIZE, (unsigned short)bid,
                        io_uring_buf_ring_mask(NBUFS), 0);
  io_uring_buf_ring_advance(br, 1);
  returned = true;
}

static void arm_recv(struct side* s) {
  struct io_uring_sqe* sqe = sqe_for(s, OP_RECV);
  io_uring_prep_recv_multishot(sqe, s->fd, NULL, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = BGID;
  s->recv_armed = true;
  s->pair->refs++;
}

static void start_send(struct side* to) {
  if (to->sending || to->q_head < 0) return;
  const int bid = to->q_head;
  struct io_uring_sqe* sqe = sqe_for(to, OP_SEND);
  io_uring_prep_send(sqe, to->fd, buffers + (size_t)bid * BUF_SIZE + buf_off[bid],
                     buf_len[bid] - buf_off[bid], MSG_NOSIGNAL);
  to->sending = true;
  to->pair->refs++;
}

static void drop_queue(struct side* s) {  // all but a buffer a send still reads from
  int bid = s->sending ? next_bid[s->q_head] : s->q_head;
  if (s->sending) next_bid[s->q_head] = -1;
  while (bid >= 0) {
    const int next = next_bid[bid];
    give_buffer(bid);
    bid = next;
  }
  if (!s->sending) s->q_head = -1;
  s->q_tail = s->q_head;
}

// Frees the pair once nothing in flight refers to it and it has nothing left to do.
static void maybe_close(struct pair* p) {
  if (p->refs > 0) return;
  const bool done =
      p->client.read_eof && p->backend.read_eof && p->client.q_head < 0 && p->backend.q_head < 0;
  if (!p->dead && !done) return;
  close(p->client.fd);
  close(p->backend.fd);
  free(p);
}

// A socket error: every request in flight on the pair ends once its sockets are shut down.
static void kill_pair(struct pair* p) {
  if (p->dead) return;
  p->dead = true;
  shutdown(p->client.fd, SHUT_RDWR);
  shutdown(p->backend.fd, SHUT_RDWR);
  drop_queue(&p->client);
  drop_queue(&p->backend);
}

static void pass_eof(struct side* to) {  // the peer read its end: once all is sent, pass it on
  if (to->peer->read_eof && to->q_head < 0 && !to->write_shut) {
    shutdown(to->fd, SHUT_WR);
    to->write_shut = true;
  }
}

// Between batches, not inside a handler: a dead pair may be freed here.
static void rearm_starved(void) {
  returned = false;
  while (starved != NULL) {
    struct side* s = starved;
    starved = s->next_starved;
    s->pair->refs--;
    if (s->pair->dead) {
      maybe_close(s->pair);
    } else {
      arm_recv(s);
    }
  }
}

static void on_recv(struct side* s, int res, unsigned flags) {
  struct pair* p = s->pair;
  if (!(flags & IORING_CQE_F_MORE)) {
    s->recv_armed = false;
    p->refs--;
  }
  if (res > 0) {
    const int bid = (int)(flags >> IORING_CQE_BUFFER_SHIFT);
    if (p->dead) {
      give_buffer(bid);
    } else {
      struct side* to = s->peer;
      buf_len[bid] = (uint32_t)res;
      buf_off[bid] = 0;
      next_bid[bid] = -1;
      if (to->q_tail >= 0) {
        next_bid[to->q_tail] = bid;
      } else {
        to->q_head = bid;
      }
      to->q_tail = bid;
      start_send(to);
      if (!s->recv_armed) arm_recv(s);
    }
  } else if (res == 0) {
    s->read_eof = true;
    pass_eof(s->peer);
  } else if (res == -ENOBUFS && !p->dead) {
    s->next_starved = starved;  // until a send gives a buffer back
    starved = s;
    p->refs++;
  } else {
    kill_pair(p);
  }
  maybe_close(p);
}

static void on_send(struct side* to, int res) {
  struct pair* p = to->pair;
  to->sending = false;
  p->refs--;
  const int bid = to->q_head;
  if (res > 0 && !p->dead) buf_off[bid] += (uint32_t)res;
  if (res <= 0 || p->dead || buf_off[bid] == buf_len[bid]) {
    to->q_head = next_bid[bid];
    if (to->q_head < 0) to->q_tail = -1;
    give_buffer(bid);
  }
  if (res <= 0) kill_pair(p);
  if (p->dead) {
    drop_queue(to);
  } else {
    start_send(to);
    pass_eof(to);
  }
  maybe_close(p);
}

static void on_connect(struct side* backend, int res) {
  struct pair* p = backend->pair;
  p->refs--;
  if (res < 0) {
    kill_pair(p);
  } else {
    arm_recv(&p->client);
    arm_recv(&p->backend);
  }
  maybe_close(p);
}

static void arm_accept(struct listener* l) {
  struct io_uring_sqe* sqe = sqe_for(l, OP_ACCEPT);
  if (multishot_accept) {
    io_uring_prep_multishot_accept(sqe, l->fd, NULL, NULL, SOCK_CLOEXEC);
  } else {
    io_uring_prep_accept(sqe, l->fd, NULL, NULL, SOCK_CLOEXEC);
  }
}

static void on_accept(struct listener* l, int res, unsigned flags) {
  if (!(flags & IORING_CQE_F_MORE)) {
    if (res == -EINVAL && multishot_accept) {  // a kernel without multishot accept
      multishot_accept = false;
      fprintf(stderr, "floor_uring: multishot accept refused: one accept per connection\n");
    }
    arm_accept(l);
  }
  if (res < 0) return;  // out of descriptors and the like: the rest wait in the backlog
  const int c = res;
  const int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct pair* p = b < 0 ? NULL : calloc(1, sizeof *p);
  if (p == NULL) {
    if (b >= 0) close(b);
    close(c);
    return;
  }
  const int one = 1;
  setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  p->client = (struct side){.fd = c, .pair = p, .peer = &p->backend, .q_head = -1, .q_tail = -1};
  p->backend = (struct side){.fd = b, .pair = p, .peer = &p->client, .q_head = -1, .q_tail = -1};
  struct io_uring_sqe* sqe = sqe_for(&p->backend, OP_CONNECT);
  io_uring_prep_connect(sqe, b, (struct sockaddr*)&l->backend, sizeof l->backend);
  p->refs++;
}

static void handle(struct io_uring_cqe* cqe) {
  const uint64_t data = io_uring_cqe_get_data64(cqe);
  void* ptr = (void*)(uintptr_t)(data & ~(uint64_t)3);
  switch ((enum op)(data & 3)) {
    case OP_RECV:
      on_recv(ptr, cqe->res, cqe->flags);
      break;
    case OP_SEND:
      on_send(ptr, cqe->res);
      break;
    case OP_CONNECT:
      on_connect(ptr, cqe->res);
      break;
    case OP_ACCEPT:
      on_accept(ptr, cqe->res, cqe->flags);
      break;
  }
}

static int listen_on(int port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (s < 0 || bind(s, (struct sockaddr*)&a, sizeof a) != 0 || listen(s, 4096) != 0) {
    perror("floor_uring: listen");
    exit(1);
  }
  return s;
}

// The ring with the best task-running mode the kernel takes; returns its name.
static const char* setup_ring(void) {
  static const struct {
    unsigned flags;
    const char* name;
  } modes[] = {
      {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, "single-issuer+defer-taskrun"},
      {IORING_SETUP_COOP_TASKRUN, "coop-taskrun"},
      {0, "plain"},
  };
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
    struct io_uring_params params = {.flags = modes[i].flags | IORING_SETUP_CQSIZE,
                                     .cq_entries = 4 * RING_ENTRIES};
    const int r = io_uring_queue_init_params(RING_ENTRIES, &ring, &params);
    if (r == 0) return modes[i].name;
    if (r != -EINVAL) {
      fprintf(stderr, "floor_uring: io_uring_queue_init: %s\n", strerror(-r));
      exit(1);
    }
  }
  fprintf(stderr, "floor_uring: the kernel refuses every io_uring mode\n");
  exit(1);
}

static void setup_buffers(void) {
  const size_t ring_bytes = NBUFS * sizeof(struct io_uring_buf);
  br = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  buffers = mmap(NULL, (size_t)NBUFS * BUF_SIZE, PROT_READ | PROT_WRITE,
                 MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (br == MAP_FAILED || buffers == MAP_FAILED) {
    perror("floor_uring: mmap");
    exit(1);
  }
  struct io_uring_buf_reg reg = {
      .ring_addr = (uint64_t)(uintptr_t)br, .ring_entries = NBUFS, .bgid = BGID};
  const int r = io_uring_register_buf_ring(&ring, &reg, 0);
  if (r != 0) {
    fprintf(stderr, "floor_uring: no provided-buffer ring (%s): needs Linux 5.19 or later\n",
            strerror(-r));
    exit(1);
  }
  io_uring_buf_ring_init(br);
  for (int bid = 0; bid < NBUFS; bid++) {
    io_uring_buf_ring_add(br, buffers + (size_t)bid * BUF_SIZE, BUF_SIZE, (unsigned short)bid,
                          io_uring_buf_ring_mask(NBUFS), bid);
  }
  io_uring_buf_ring_advance(br, NBUFS);
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 1 + MAX_PORTS) {
    fprintf(stderr, "usage: floor_uring LISTEN_PORT:BACKEND_PORT ... (at most %d)\n", MAX_PORTS);
    return 2;
  }
  struct sigaction sa = {.sa_handler = on_signal};  // no SA_RESTART: the wait returns EINTR
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  const char* mode = setup_ring();
  const bool ring_fd = io_uring_register_ring_fd(&ring) == 1;
  setup_buffers();
  static struct listener listeners[MAX_PORTS];
  for (int i = 1; i < argc; i++) {
    int lport = 0, bport = 0;
    if (sscanf(argv[i], "%d:%d", &lport, &bport) != 2 || lport < 1 || lport > 65535 || bport < 1 ||
        bport > 65535) {
      fprintf(stderr, "floor_uring: bad LISTEN_PORT:BACKEND_PORT %s\n", argv[i]);
      return 2;
    }
    struct listener* l = &listeners[i - 1];
    l->fd = listen_on(lport);
    l->backend = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)bport)};
    l->backend.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    arm_accept(l);
  }
  fprintf(stderr,
          "floor_uring: features %s, %s ring fd, multishot accept, multishot recv, "
          "provided-buffer ring (%d x %d KiB), batched submission\n",
          mode, ring_fd ? "registered" : "unregistered", NBUFS, BUF_SIZE / 1024);
  while (!stop_flag) {
    const int r = io_uring_submit_and_wait(&ring, 1);
    if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
      fprintf(stderr, "floor_uring: io_uring_submit_and_wait: %s\n", strerror(-r));
      return 1;
    }
    unsigned head, seen = 0;
    struct io_uring_cqe* cqe;
    io_uring_for_each_cqe(&ring, head, cqe) {
      handle(cqe);
      seen++;
    }
    io_uring_cq_advance(&ring, seen);
    if (returned && starved != NULL) rearm_starved();
  }
  return 0;
}
