// PLACEHOLDER until wt-etcd merges: the types of etcd::Client (taken from that branch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vigil::etcd {

struct KeyValue {
  std::string key, value;
  int64_t create_revision = 0, mod_revision = 0, version = 0;
};
struct RangeResult {
  int64_t revision = 0;
  std::vector<KeyValue> kvs;
};
struct Compare {
  std::string key;
  int64_t mod_revision = 0;
};
struct Op {
  enum class Kind { kPut, kDelete } kind;
  std::string key;
  std::string value;
};
struct TxnResult {
  bool succeeded = false;
  int64_t revision = 0;
};
struct Event {
  enum class Kind { kPut, kDelete } kind;
  KeyValue kv;
};
struct WatchBatch {
  int64_t revision = 0;
  std::vector<Event> events;
};
struct WatchEnd {
  std::string error;
  int64_t compact_revision = 0;
};

}  // namespace vigil::etcd
