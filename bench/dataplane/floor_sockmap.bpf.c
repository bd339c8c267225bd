// The kernel half of floor-sockmap (floor.c built with -DFLOOR_SOCKMAP): an sk_skb verdict
// program that sends every segment a proxied socket receives straight out of its peer socket, so
// that no byte passes through the forwarder process. The forwarder keys each socket by its own
// ports (local << 16 | remote; everything is on 127.0.0.1, so the ports name the socket) and
// stores its peer under that key. Compiled by run.py at run time (clang -target bpf).
// libbpf's headers need the kernel's types first.
// clang-format off
#include <linux/bpf.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
// clang-format on

struct {
  __uint(type, BPF_MAP_TYPE_SOCKHASH);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, __u64);
} peers SEC(".maps");

// Bytes redirected away from each socket (same key): the forwarder holds a leg's end of stream
// until the peer has taken them all.
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 65536);
  __type(key, __u32);
  __type(value, __u64);
} moved SEC(".maps");

SEC("sk_skb")  // attached as BPF_SK_SKB_VERDICT (libbpf 1.1 knows no section name for it)
int redirect_to_peer(struct __sk_buff* skb) {
  // remote_port is in network byte order; the kernel hands it shifted into the upper half on
  // little-endian machines (older kernels: in the lower half).
  __u32 remote = skb->remote_port;
  remote = (remote >> 16) ? bpf_ntohl(remote) : bpf_ntohs((__u16)remote);
  __u32 key = (skb->local_port << 16) | (remote & 0xffff);
  const long verdict = bpf_sk_redirect_hash(skb, &peers, &key, 0);  // 0: out of the peer
  __u64* count = bpf_map_lookup_elem(&moved, &key);
  if (verdict == SK_PASS && count != NULL) __sync_fetch_and_add(count, skb->len);
  return verdict;
}

char LICENSE[] SEC("license") = "GPL";
