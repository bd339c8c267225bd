// The user half of floor-sockmap: floor.c built with -DFLOOR_SOCKMAP and -lbpf includes this.
// It loads floor_sockmap.bpf.o (the path is the first argument), attaches its verdict program to
// the map of peers, and once a proxied connection's backend leg is established puts both legs in
// the map, each under the other's key: from then on the kernel moves every segment from one leg
// to the other and floor.c's own pumping only sees what arrived before. An end of stream is not
// redirected: floor.c passes it on with shutdown(), but only once the peer socket has taken every
// byte the kernel redirected to it (offload_drained()), which the kernel does not order by itself.
#pragma once
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/sockios.h>  // SIOCOUTQ
#include <sys/ioctl.h>

static int peers_map = -1;
static int moved_map = -1;

static void offload_start(const char* object_path) {
  struct bpf_object* obj = bpf_object__open_file(object_path, NULL);
  if (obj == NULL) {
    fprintf(stderr, "floor-sockmap: cannot open %s: %s\n", object_path, strerror(errno));
    exit(1);
  }
  if (bpf_object__load(obj) != 0) {
    fprintf(stderr, "floor-sockmap: cannot load %s: %s\n", object_path, strerror(errno));
    exit(1);
  }
  struct bpf_program* prog = bpf_object__find_program_by_name(obj, "redirect_to_peer");
  peers_map = bpf_object__find_map_fd_by_name(obj, "peers");
  moved_map = bpf_object__find_map_fd_by_name(obj, "moved");
  if (prog == NULL || peers_map < 0 || moved_map < 0 ||
      bpf_prog_attach(bpf_program__fd(prog), peers_map, BPF_SK_SKB_VERDICT, 0) != 0) {
    fprintf(stderr, "floor-sockmap: cannot attach the verdict program: %s\n", strerror(errno));
    exit(1);
  }
  fprintf(stderr,
          "features: sk_skb verdict program, every segment redirected to the peer's egress\n");
}

// The key a socket's segments are looked up by: its local port << 16 | its remote port.
static bool socket_key(int fd, uint32_t* key) {
  struct sockaddr_in local, remote;
  socklen_t ll = sizeof local, rl = sizeof remote;
  if (getsockname(fd, (struct sockaddr*)&local, &ll) != 0 ||
      getpeername(fd, (struct sockaddr*)&remote, &rl) != 0) {
    return false;
  }
  *key = (uint32_t)ntohs(local.sin_port) << 16 | ntohs(remote.sin_port);
  return true;
}

// Both legs established: each goes in the map under the other's key, which it learns once into
// *client_key and *backend_key (0 when it could not). False if the kernel refused (the pair then
// stays with floor.c's own pumping).
static bool offload_pair(int client, int backend, uint32_t* client_key, uint32_t* backend_key) {
  *client_key = *backend_key = 0;
  if (!socket_key(client, client_key) || !socket_key(backend, backend_key)) return false;
  uint64_t client_fd = (uint64_t)client, backend_fd = (uint64_t)backend, zero = 0;
  return bpf_map_update_elem(moved_map, client_key, &zero, BPF_ANY) == 0 &&
         bpf_map_update_elem(moved_map, backend_key, &zero, BPF_ANY) == 0 &&
         bpf_map_update_elem(peers_map, client_key, &backend_fd, BPF_ANY) == 0 &&
         bpf_map_update_elem(peers_map, backend_key, &client_fd, BPF_ANY) == 0;
}

// Before the pair's sockets close (which takes them out of `peers`): their counts go, as the
// ports of the next connections may name other sockets by the same keys.
static void offload_forget(uint32_t client_key, uint32_t backend_key) {
  bpf_map_delete_elem(moved_map, &client_key);
  bpf_map_delete_elem(moved_map, &backend_key);
}

// Whether socket `fd` has taken every byte meant for it: what this process sent out of it plus
// what the kernel redirected to it from its peer (whose key is `peer_key`). What it has taken is
// what it had acknowledged (read first: it only grows) plus what it still holds (SIOCOUTQ).
static bool offload_drained(int fd, uint64_t sent_here, uint32_t peer_key) {
  uint64_t redirected = 0;
  if (bpf_map_lookup_elem(moved_map, &peer_key, &redirected) != 0) {
    return true;  // not offloaded after all, or gone: nothing to wait for
  }
  struct tcp_info info;
  socklen_t len = sizeof info;
  int queued = 0;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0 ||
      ioctl(fd, SIOCOUTQ, &queued) != 0) {
    return true;
  }
  return info.tcpi_bytes_acked + (uint64_t)queued >= sent_here + redirected;
}
