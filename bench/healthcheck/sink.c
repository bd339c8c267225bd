// The health checks' target for bench/healthcheck/run.py (tcp-scale): listens on one port of
// every member address 127.0.X.Y (X = 1 + i / 250, Y = 1 + i % 250, i = 0 .. MEMBERS-1), so that
// no socket listens beyond loopback, accepts every connection and closes it, and notes which
// member each check was for and when (CLOCK_MONOTONIC, the clock of Python's
// time.monotonic_ns()).
//
// A check is noted twice when it can be: when its SYN arrives (a packet socket on lo, with a
// classic BPF filter that passes only incoming SYNs to the port: needs CAP_NET_RAW) and when
// the sink accepts its connection. Both are needed because HAProxy never completes the
// handshake of a TCP check: it turns TCP_QUICKACK off before connect() and resets the
// connection once the SYN-ACK is in, so the final ACK is never sent and nothing is accepted.
//
// The sink never sleeps on the packet socket: it drains it every millisecond and takes each
// SYN's time from the kernel's receive timestamp. A reader asleep on that socket would be woken
// by every SYN, in the softirq of the checker's connect(), and a checker (any of them) would pay
// a wake-up and often a context switch per check that no real member costs it.
//
//   sink MEMBERS RECORDS_FILE PORT_FILE MAX_SECONDS [FIRST PORT]
//
// With FIRST and PORT the sink listens for members FIRST .. FIRST+MEMBERS-1 only, on PORT (0: one
// it picks), so that several sinks share the members where one process may not hold a listener
// for each (bench/scale: 30,000 members under a hard descriptor limit of 20,000); each notes the
// SYNs of its own members only, and every record names the member's absolute index.
// RECORDS_FILE gets 16-byte records (uint64 ns, uint32 member, uint32 kind: 0 accept, 1 SYN;
// host byte order), flushed at least every 100 ms. PORT_FILE gets "PORT SYN" (SYN 1 when SYNs
// are captured, 0 when the packet socket could not be opened) once every listener is up. The
// sink stops on SIGTERM or SIGINT, or after MAX_SECONDS, and prints its counters on stderr.
// Compiled by run.py at run time (cc -O2); C17 and Linux only.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

struct record {
  uint64_t ns;
  uint32_t member;
  uint32_t kind;  // 0: accepted, 1: SYN seen
};

// A packet socket on lo that receives the IPv4 header and TCP header of every incoming SYN (not
// SYN-ACK) to `port`; -1 when it cannot be had (no CAP_NET_RAW).
static int open_syn_socket(int port) {
  // Protocol 0: no packet at all until bind() names lo (and the filter is in place).
  int ps = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (ps < 0) return -1;
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 11, 0),  // each packet once, incoming
      BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),                        // IP protocol
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 9),
      BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),  // fragment offset
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 7, 0),
      BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),  // X = IP header length
      BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),   // TCP destination port
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)port, 0, 4),
      BPF_STMT(BPF_LD | BPF_B | BPF_IND, 13),           // TCP flags
      BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x12),        // SYN and ACK
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x02, 0, 1),  // SYN without ACK
      BPF_STMT(BPF_RET | BPF_K, 64),
      BPF_STMT(BPF_RET | BPF_K, 0),
  };
  struct sock_fprog prog = {.len = sizeof code / sizeof code[0], .filter = code};
  int one = 1, rcvbuf = 8 << 20;
  struct sockaddr_ll ll;
  memset(&ll, 0, sizeof ll);
  ll.sll_family = AF_PACKET;
  ll.sll_protocol = htons(ETH_P_IP);
  ll.sll_ifindex = (int)if_nametoindex("lo");
  if (ll.sll_ifindex == 0 ||
      setsockopt(ps, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) != 0 ||
      bind(ps, (struct sockaddr*)&ll, sizeof ll) != 0) {
    close(ps);
    return -1;
  }
  setsockopt(ps, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);  // cheaper when it works
  if (setsockopt(ps, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) != 0) {
    close(ps);
    return -1;
  }
  if (setsockopt(ps, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof rcvbuf) != 0) {
    setsockopt(ps, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  }
  // Packets that arrived before the filter was attached may be queued: drop them.
  char junk[128];
  while (recv(ps, junk, sizeof junk, MSG_DONTWAIT) >= 0) {
  }
  return ps;
}

// CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns: turns the kernel's receive timestamps into the
// clock of the records.
static int64_t realtime_offset_ns(void) {
  struct timespec rt;
  clock_gettime(CLOCK_REALTIME, &rt);
  const uint64_t mono = now_ns();
  return (int64_t)((uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec) - (int64_t)mono;
}

// Reads every SYN queued on the packet socket and writes its record; returns how many.
static unsigned long drain_syns(int ps, long first, long n, FILE* out, unsigned long* strays) {
  const int64_t offset = realtime_offset_ns();
  unsigned long syns = 0;
  for (int b = 0; b < 65536; b++) {  // bounded: at most a few hundred queue up per millisecond
    unsigned char pkt[64];
    union {
      struct cmsghdr align;
      char buf[CMSG_SPACE(sizeof(struct timespec))];
    } control;
    struct iovec iov = {.iov_base = pkt, .iov_len = sizeof pkt};
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    const ssize_t len = recvmsg(ps, &msg, MSG_DONTWAIT);
    if (len < 0) break;
    if (len < 20) continue;
    // destination 127.0.X.Y: member (X - 1) * 250 + (Y - 1)
    const unsigned x = pkt[18], y = pkt[19];
    const long i = (long)(x - 1) * 250 + (long)(y - 1);
    if (pkt[16] != 127 || pkt[17] != 0 || x < 1 || y < 1 || y > 250 || i < first ||
        i >= first + n) {
      (*strays)++;
      continue;
    }
    uint64_t ns = now_ns();
    for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        struct timespec ts;
        memcpy(&ts, CMSG_DATA(c), sizeof ts);
        ns = (uint64_t)((int64_t)((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) -
                        offset);
      }
    }
    struct record r = {.ns = ns, .member = (uint32_t)i, .kind = 1};
    fwrite(&r, sizeof r, 1, out);
    syns++;
  }
  return syns;
}

int main(int argc, char** argv) {
  if (argc != 5 && argc != 7) {
    fprintf(stderr, "usage: sink MEMBERS RECORDS_FILE PORT_FILE MAX_SECONDS [FIRST PORT]\n");
    return 2;
  }
  const long n = atol(argv[1]);
  const double max_s = atof(argv[4]);
  const long first = argc == 7 ? atol(argv[5]) : 0;
  const long fixed_port = argc == 7 ? atol(argv[6]) : 0;
  if (n < 1 || first < 0 || first + n > 250L * 254 || max_s <= 0 || fixed_port < 0 ||
      fixed_port > 65535) {
    fprintf(stderr,
            "sink: FIRST + MEMBERS must be 1..63500, MAX_SECONDS positive, PORT 0..65535\n");
    return 2;
  }
  stop_on_signals();

  int* fds = calloc((size_t)n, sizeof(int));
  if (!fds) return 1;
  int port = 0, bound = 0;
  for (int attempt = 0; attempt < (fixed_port ? 1 : 20) && !bound; attempt++) {
    port = (int)fixed_port;
    long i;
    for (i = 0; i < n; i++) {
      int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (s < 0) {
        perror("sink: socket");
        return 1;
      }
      int one = 1;
      setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      struct sockaddr_in a;
      memset(&a, 0, sizeof a);
      a.sin_family = AF_INET;
      a.sin_port = htons((uint16_t)port);
      a.sin_addr.s_addr = htonl(member_addr((uint64_t)(first + i)));
      if (bind(s, (struct sockaddr*)&a, sizeof a) != 0 || listen(s, 256) != 0) {
        close(s);
        break;  // the port is taken on some address: try another one
      }
      if (fixed_port == 0 && i == 0) {
        socklen_t len = sizeof a;
        getsockname(s, (struct sockaddr*)&a, &len);
        port = ntohs(a.sin_port);
      }
      fds[i] = s;
    }
    if (i == n) {
      bound = 1;
    } else {
      for (long j = 0; j < i; j++) close(fds[j]);
    }
  }
  if (!bound) {
    fprintf(stderr, "sink: no port free on all %ld addresses after 20 attempts\n", n);
    return 1;
  }

  int ep = epoll_create1(EPOLL_CLOEXEC);
  for (long i = 0; i < n; i++) {
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) != 0) {
      perror("sink: epoll_ctl");
      return 1;
    }
  }
  const int ps = open_syn_socket(port);
  if (ps < 0) {
    fprintf(stderr, "sink: no packet socket (%s): checks are noted when accepted only\n",
            strerror(errno));
  }
  FILE* out = fopen(argv[2], "wb");
  if (!out) {
    perror("sink: records file");
    return 1;
  }
  setvbuf(out, NULL, _IOFBF, 1 << 20);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp", argv[3]);
  FILE* pf = fopen(tmp, "w");
  if (!pf) {
    perror("sink: port file");
    return 1;
  }
  fprintf(pf, "%d %d\n", port, ps >= 0);
  fclose(pf);
  rename(tmp, argv[3]);

  const uint64_t deadline = now_ns() + (uint64_t)(max_s * 1e9);
  uint64_t last_flush = now_ns();
  unsigned long accepted = 0, errors = 0, syns = 0, strays = 0;
  struct epoll_event evs[1024];
  while (!stop_flag && now_ns() < deadline) {
    int k = epoll_wait(ep, evs, 1024, ps >= 0 ? 1 : 50);  // 1 ms: SYNs are polled
    if (k < 0) {
      if (errno == EINTR) continue;
      perror("sink: epoll_wait");
      break;
    }
    if (ps >= 0) syns += drain_syns(ps, first, n, out, &strays);
    for (int e = 0; e < k; e++) {
      const uint32_t m = evs[e].data.u32;
      for (int b = 0; b < 64; b++) {  // bounded per listener and wake-up
        int c = accept4(fds[m], NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
          if (errno == EAGAIN || errno == EWOULDBLOCK) break;
          if (errno == ECONNABORTED || errno == EINTR) continue;
          errors++;
          break;
        }
        struct record r = {.ns = now_ns(), .member = (uint32_t)(first + m), .kind = 0};
        fwrite(&r, sizeof r, 1, out);
        close(c);
        accepted++;
      }
    }
    const uint64_t t = now_ns();
    if (t - last_flush >= 100000000u) {
      fflush(out);
      last_flush = t;
    }
  }
  fflush(out);
  fclose(out);
  unsigned long drops = 0;
  if (ps >= 0) {
    struct tpacket_stats st;
    socklen_t len = sizeof st;
    if (getsockopt(ps, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) drops = st.tp_drops;
  }
  fprintf(stderr,
          "sink: %ld listeners on port %d, %lu accepted, %lu accept failures; SYN capture %s: "
          "%lu SYNs, %lu to other addresses, %lu lost by the packet socket\n",
          n, port, accepted, errors, ps >= 0 ? "on" : "off", syns, strays, drops);
  return 0;
}
