#include "peers/wire.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace vigil::peers {
namespace {

enum Type : uint8_t { kHello = 1, kProof, kReset, kAdd, kRemove, kSynced, kBeat };

void put_u16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}
void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}
void put_bytes(std::vector<uint8_t>& out, std::string_view bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

// The frame's header with a length to be filled in by end_frame().
size_t begin_frame(std::vector<uint8_t>& out, Type type) {
  const size_t at = out.size();
  out.resize(at + 4);
  out.push_back(type);
  return at;
}
void end_frame(std::vector<uint8_t>& out, size_t at) {
  const auto length = static_cast<uint32_t>(out.size() - at - 4);
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<uint8_t>(length >> (24 - 8 * i));
}

void put_address(std::vector<uint8_t>& out, const net::SocketAddress& a) {
  put_bytes(out, a.ip_bytes());
  put_u16(out, a.port());
}

// Reads a payload front to back; every read checks the bytes are there.
class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  bool take(size_t n, std::span<const uint8_t>& out) {
    if (bytes_.size() - at_ < n) return false;
    out = bytes_.subspan(at_, n);
    at_ += n;
    return true;
  }
  bool u8(uint8_t& v) {
    std::span<const uint8_t> b;
    if (!take(1, b)) return false;
    v = b[0];
    return true;
  }
  bool u16(uint16_t& v) {
    std::span<const uint8_t> b;
    if (!take(2, b)) return false;
    v = static_cast<uint16_t>(b[0] << 8 | b[1]);
    return true;
  }
  bool u64(uint64_t& v) {
    std::span<const uint8_t> b;
    if (!take(8, b)) return false;
    v = 0;
    for (uint8_t byte : b) v = v << 8 | byte;
    return true;
  }
  bool address(size_t ip_size, net::SocketAddress& out) {
    std::span<const uint8_t> ip;
    uint16_t port = 0;
    if (!take(ip_size, ip) || !u16(port)) return false;
    out = net::SocketAddress::from_ip_bytes(
        std::string_view(reinterpret_cast<const char*>(ip.data()), ip.size()), port);
    return true;
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

Result<Frame> parse_hello(Cursor& c) {
  uint8_t version = 0;
  uint8_t name_size = 0;
  std::span<const uint8_t> name;
  std::span<const uint8_t> nonce;
  if (!c.u8(version) || !c.u8(name_size) || !c.take(name_size, name) ||
      !c.take(kNonceSize, nonce)) {
    return fail("hello: truncated");
  }
  if (version != kVersion) {
    return fail("hello: version " + std::to_string(version) + ", this vigil speaks version " +
                std::to_string(kVersion));
  }
  if (name_size == 0 || name_size > kMaxNameSize) return fail("hello: a name of 1-64 bytes");
  Hello h{.name = std::string(name.begin(), name.end())};
  std::ranges::copy(nonce, h.nonce.begin());
  return h;
}

Result<Frame> parse_add(Cursor& c) {
  uint16_t count = 0;
  if (!c.u16(count) || count > kMaxBatch) return fail("add: a count of at most 4096");
  Add add;
  add.sessions.reserve(count);
  for (uint16_t i = 0; i < count; ++i) {
    SessionEntry e;
    uint8_t family = 0;
    if (!c.u64(e.key) || !c.u8(family)) return fail("add: truncated");
    if (family != 4 && family != 6) return fail("add: family " + std::to_string(family));
    const size_t ip_size = family == 4 ? 4 : 16;
    if (!c.address(ip_size, e.local) || !c.address(ip_size, e.client)) {
      return fail("add: truncated");
    }
    add.sessions.push_back(std::move(e));
  }
  return add;
}

Result<Frame> parse_remove(Cursor& c) {
  uint16_t count = 0;
  if (!c.u16(count) || count > kMaxBatch) return fail("remove: a count of at most 4096");
  Remove remove;
  remove.keys.resize(count);
  for (uint64_t& key : remove.keys) {
    if (!c.u64(key)) return fail("remove: truncated");
  }
  return remove;
}

Result<Frame> parse(uint8_t type, std::span<const uint8_t> payload) {
  Cursor c(payload);
  Result<Frame> frame = fail("frame type " + std::to_string(type) + " is not one of version 1");
  switch (type) {
    case kHello:
      frame = parse_hello(c);
      break;
    case kProof: {
      std::span<const uint8_t> bytes;
      if (!c.take(kProofSize, bytes)) return fail("proof: truncated");
      ProofFrame p;
      std::ranges::copy(bytes, p.proof.begin());
      frame = p;
      break;
    }
    case kReset:
      frame = Reset{};
      break;
    case kAdd:
      frame = parse_add(c);
      break;
    case kRemove:
      frame = parse_remove(c);
      break;
    case kSynced:
      frame = Synced{};
      break;
    case kBeat:
      frame = Beat{};
      break;
    default:
      break;
  }
  if (frame && !c.done())
    return fail("frame type " + std::to_string(type) + ": bytes past its end");
  return frame;
}

struct Appender {
  std::vector<uint8_t>& out;
  void operator()(const Hello& h) const {
    const size_t at = begin_frame(out, kHello);
    out.push_back(kVersion);
    out.push_back(static_cast<uint8_t>(h.name.size()));
    put_bytes(out, h.name);
    out.insert(out.end(), h.nonce.begin(), h.nonce.end());
    end_frame(out, at);
  }
  void operator()(const ProofFrame& p) const {
    const size_t at = begin_frame(out, kProof);
    out.insert(out.end(), p.proof.begin(), p.proof.end());
    end_frame(out, at);
  }
  void operator()(const Reset&) const { end_frame(out, begin_frame(out, kReset)); }
  void operator()(const Synced&) const { end_frame(out, begin_frame(out, kSynced)); }
  void operator()(const Beat&) const { end_frame(out, begin_frame(out, kBeat)); }
  void operator()(const Add& a) const {
    const size_t at = begin_frame(out, kAdd);
    put_u16(out, static_cast<uint16_t>(a.sessions.size()));
    for (const SessionEntry& e : a.sessions) {
      put_u64(out, e.key);
      out.push_back(e.local.family() == AF_INET6 ? 6 : 4);
      put_address(out, e.local);
      put_address(out, e.client);
    }
    end_frame(out, at);
  }
  void operator()(const Remove& r) const {
    const size_t at = begin_frame(out, kRemove);
    put_u16(out, static_cast<uint16_t>(r.keys.size()));
    for (uint64_t key : r.keys) put_u64(out, key);
    end_frame(out, at);
  }
};

}  // namespace

void append(std::vector<uint8_t>& out, const Frame& frame) { std::visit(Appender{out}, frame); }

void append_adds(std::vector<uint8_t>& out, std::span<const SessionEntry> sessions) {
  for (size_t i = 0; i < sessions.size(); i += kMaxBatch) {
    const auto part = sessions.subspan(i, std::min(kMaxBatch, sessions.size() - i));
    append(out, Add{.sessions = {part.begin(), part.end()}});
  }
}

void append_removes(std::vector<uint8_t>& out, std::span<const uint64_t> keys) {
  for (size_t i = 0; i < keys.size(); i += kMaxBatch) {
    const auto part = keys.subspan(i, std::min(kMaxBatch, keys.size() - i));
    append(out, Remove{.keys = {part.begin(), part.end()}});
  }
}

void FrameReader::feed(std::span<const uint8_t> bytes) {
  if (read_ > 0) {  // what was read goes before the buffer grows
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(read_));
    read_ = 0;
  }
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

Result<std::optional<Frame>> FrameReader::next() {
  const size_t left = buffer_.size() - read_;
  if (left < 4) return std::nullopt;
  const uint8_t* p = buffer_.data() + read_;
  const uint32_t length = uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
  if (length == 0 || length > kMaxFrame) {
    return fail("a frame of " + std::to_string(length) + " bytes (1 to 1 MiB)");
  }
  if (left - 4 < length) return std::nullopt;
  read_ += 4 + length;
  auto frame = parse(p[4], std::span(p + 5, length - 1));
  if (!frame) return std::unexpected(frame.error());
  return std::optional<Frame>(std::move(*frame));
}

Proof proof(std::string_view token, char role, const Hello& client, const Hello& server) {
  std::vector<uint8_t> message;
  put_bytes(message, "vigil-peers-1");
  message.push_back(static_cast<uint8_t>(role));
  message.insert(message.end(), client.nonce.begin(), client.nonce.end());
  message.insert(message.end(), server.nonce.begin(), server.nonce.end());
  put_bytes(message, client.name);
  message.push_back(0);
  put_bytes(message, server.name);
  Proof out{};
  unsigned size = 0;
  HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()), message.data(), message.size(),
       out.data(), &size);
  return out;
}

bool same_proof(const Proof& a, const Proof& b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Nonce random_nonce() {
  Nonce n{};
  if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1) {
    // OpenSSL's generator failed: a fixed nonce would let proofs be replayed, so the kernel's.
    (void)getrandom(n.data(), n.size(), 0);
  }
  return n;
}

}  // namespace vigil::peers
