// The peer sync's wire format (version 1): how one vigil node streams its client sessions to the
// others of a pair or fleet (daemon/peer_sync.h). Pure: bytes in, frames out, and back; any
// thread.
//
// A frame is a 4-byte big-endian length (of what follows, at most kMaxFrame), a type byte and
// the type's payload:
//   hello   version (1), name length, name, 16-byte nonce: each side's first frame
//   proof   32 bytes: HMAC-SHA256 of the shared token over both nonces and names (proof())
//   reset   nothing: the sender's sessions are sent anew from here; forget the old ones
//   add     count (2 bytes), then per session: key (8), family (4 or 6), local address and port,
//           client address and port
//   remove  count (2 bytes), then the keys (8 each)
//   synced  nothing: every session the sender holds has been sent since the last reset
//   beat    nothing: the sender is alive (sent when it has had nothing else to say)
// Only the side that connected sends sessions; the other side sends its hello and proof.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/error.h"
#include "net/address.h"

namespace vigil::peers {

inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kMaxFrame = 1 << 20;  // a sender splits its adds below this
inline constexpr size_t kMaxBatch = 4096;     // sessions per add or remove frame
inline constexpr size_t kNonceSize = 16;
inline constexpr size_t kProofSize = 32;
inline constexpr size_t kMaxNameSize = 64;  // config::kMaxNameLength

using Nonce = std::array<uint8_t, kNonceSize>;
using Proof = std::array<uint8_t, kProofSize>;

// One client session of the sender: `key` is the sender's own (unique while the session lives).
struct SessionEntry {
  uint64_t key = 0;
  net::SocketAddress local;   // the address and port the client connected to
  net::SocketAddress client;  // the client's, as the kernel sees it
  bool operator==(const SessionEntry&) const = default;
};

struct Hello {
  std::string name;
  Nonce nonce{};
  bool operator==(const Hello&) const = default;
};
struct ProofFrame {
  Proof proof{};
  bool operator==(const ProofFrame&) const = default;
};
struct Reset {
  bool operator==(const Reset&) const = default;
};
struct Add {
  std::vector<SessionEntry> sessions;
  bool operator==(const Add&) const = default;
};
struct Remove {
  std::vector<uint64_t> keys;
  bool operator==(const Remove&) const = default;
};
struct Synced {
  bool operator==(const Synced&) const = default;
};
struct Beat {
  bool operator==(const Beat&) const = default;
};
using Frame = std::variant<Hello, ProofFrame, Reset, Add, Remove, Synced, Beat>;

// Appends `frame`'s bytes to `out`. An Add or Remove of more than kMaxBatch entries is the
// caller's mistake: split them first (append_adds(), append_removes()).
void append(std::vector<uint8_t>& out, const Frame& frame);
// The sessions, in frames of at most kMaxBatch.
void append_adds(std::vector<uint8_t>& out, std::span<const SessionEntry> sessions);
void append_removes(std::vector<uint8_t>& out, std::span<const uint64_t> keys);

// Reads frames from a stream's bytes as they come. A frame that breaks the format is an error
// from which the reader does not recover: the connection is to be closed.
class FrameReader {
 public:
  // Takes the bytes received (any split); keeps at most one frame's worth not yet read.
  void feed(std::span<const uint8_t> bytes);
  // The next whole frame; nullopt when more bytes are needed; an error for a frame too long, of
  // an unknown type, or whose payload does not parse (with what was wrong).
  Result<std::optional<Frame>> next();

 private:
  std::vector<uint8_t> buffer_;
  size_t read_ = 0;  // bytes of buffer_ already taken as frames
};

// What each side proves: HMAC-SHA256 under `token` of the role ('C' the side that connected, 'S'
// the other), both nonces and both names, so that a proof cannot be replayed on another
// connection or by the other side.
Proof proof(std::string_view token, char role, const Hello& client, const Hello& server);
// Constant-time comparison.
bool same_proof(const Proof& a, const Proof& b);
// kNonceSize random bytes (OpenSSL's RAND_bytes).
Nonce random_nonce();

}  // namespace vigil::peers
