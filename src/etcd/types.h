// The values of the etcd client's API (etcd/client.h): what a caller asks for and what etcd
// answers, as plain structs. Thread-safe as values.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace vigil::etcd {

struct Options {
  std::vector<std::string> endpoints;  // "http://127.0.0.1:2379", "https://10.0.0.5:2379"
  // PEM files. ca: verify the server (its name or IP address checked); cert+key: a client
  // certificate. Empty: none (an https endpoint is then verified against the system's CAs).
  std::string ca, cert, key;
  std::chrono::milliseconds request_timeout{2000};  // a whole request, connect included
  bool operator==(const Options&) const = default;
};

struct KeyValue {
  std::string key, value;
  int64_t create_revision = 0, mod_revision = 0, version = 0;
  bool operator==(const KeyValue&) const = default;
};

struct RangeResult {
  int64_t revision = 0;  // the store's, from the header
  std::vector<KeyValue> kvs;
  bool operator==(const RangeResult&) const = default;
};

// Passes when the key's mod_revision equals this; 0: the key must not exist.
struct Compare {
  std::string key;
  int64_t mod_revision = 0;
};

// kDeletePrefix deletes every key under `key` in one op: etcd refuses a transaction of more than
// 128 ops (--max-txn-ops), and a load balancer's members can be more.
struct Op {
  enum class Kind { kPut, kDelete, kDeletePrefix } kind;
  std::string key;
  std::string value;
};

struct TxnResult {
  bool succeeded = false;
  int64_t revision = 0;  // the header's (the txn's own when it wrote)
  bool operator==(const TxnResult&) const = default;
};

struct Event {
  enum class Kind { kPut, kDelete } kind;
  KeyValue kv;  // a delete's kv has key and mod_revision
  bool operator==(const Event&) const = default;
};

struct WatchBatch {
  int64_t revision = 0;
  std::vector<Event> events;
  bool operator==(const WatchBatch&) const = default;
};

// Why a watch ended: the stream broke or could not start (error), or etcd compacted past
// start_revision (compact_revision > 0: the caller must read everything again from a range).
struct WatchEnd {
  std::string error;
  int64_t compact_revision = 0;
  bool operator==(const WatchEnd&) const = default;
};

}  // namespace vigil::etcd
