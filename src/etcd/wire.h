// The etcd v3 JSON gateway's wire format, as pure functions: the request bodies the client sends
// (JSON text) and the response bodies and watch messages it reads, parsed into the structs of
// etcd/types.h. Keys and values travel base64-encoded and int64 fields as JSON strings (the
// gateway's protobuf JSON mapping). No I/O; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "etcd/types.h"

namespace vigil::etcd {

std::string base64_encode(std::string_view bytes);
Result<std::string> base64_decode(std::string_view text);

// The end of the key range holding every key under `prefix`: the prefix with its last byte
// incremented (bytes of 0xff dropped first); "\0" (every key) for an empty prefix or one of
// 0xff bytes only, etcd's convention.
std::string prefix_range_end(std::string_view prefix);

std::string range_request(std::string_view prefix);
std::string txn_request(const std::vector<Compare>& compares, const std::vector<Op>& success);
std::string watch_request(std::string_view prefix, int64_t start_revision);

Result<RangeResult> parse_range(std::string_view body);
Result<TxnResult> parse_txn(std::string_view body);
// The message of an error answer ({"error": ..., "message": ..., "code": ...}), or the body
// itself, shortened, when it is not one.
std::string error_message(std::string_view body);

// One message of the watch stream ({"result": {...}} or {"error": {...}}).
struct WatchMessage {
  enum class Kind {
    kCreated,  // the ack of the create request
    kEvents,   // a batch (events may be empty: a progress notification)
    kEnd,      // canceled by etcd, or compacted past the start revision
  } kind = Kind::kEvents;
  WatchBatch batch;
  // The batch continues in the next message: etcd splits a large one (a watch catching up over
  // many revisions) into messages of about its request size limit when asked to (`fragment`).
  bool fragment = false;
  WatchEnd end;  // for kEnd: compact_revision > 0, or error says why
};
Result<WatchMessage> parse_watch_message(std::string_view text);

// Splits the watch stream's body into its messages (JSON objects, one a line as the gateway
// writes them), across reads. Bounded: a message longer than `limit` is an error, so a server
// that never ends a line cannot grow it.
class LineSplitter {
 public:
  explicit LineSplitter(size_t limit) : limit_(limit) {}
  // Appends `bytes` and moves each complete, non-blank line to `lines`; false when the line
  // being collected went over the limit (the stream is broken; stop reading it).
  bool feed(std::string_view bytes, std::vector<std::string>& lines);

 private:
  size_t limit_;
  std::string partial_;
};

}  // namespace vigil::etcd
