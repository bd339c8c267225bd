// A backend's stick table and stick rules: what vigil's session_persistence takes from them.
// Octavia's amphora writes `stick-table type ip size 10k` and `stick on src` for a pool with
// SOURCE_IP persistence; vigil keeps such a pool's clients on their members the same way. Other
// keys (cookies, headers, destinations) and conditional rules need what vigil does not do, and
// stay warnings. The handlers record; haproxy/build.cc decides once the section is whole.
#include <algorithm>
#include <array>

#include "base/ascii.h"
#include "base/duration.h"
#include "config/haproxy/build.h"
#include "config/haproxy/handlers.h"
#include "config/yaml_keys.h"

namespace vigil::config::haproxy {
namespace {

// HAProxy's sizes: a number with an optional k, m or g (powers of 1024).
std::optional<long long> table_size(Parser& p, const Directive& d, std::string_view text) {
  long long unit = 1;
  if (!text.empty()) {
    const std::string suffix = lowercase(text.substr(text.size() - 1));
    const size_t power = std::string_view("kmg").find(suffix);
    if (power != std::string_view::npos) {
      unit = 1LL << (10 * (power + 1));
      text.remove_suffix(1);
    }
  }
  auto n = p.integer(d.line(), "stick-table size", text, 1, 1'000'000'000);
  if (!n) return std::nullopt;
  return *n * unit;
}

// The stick-table words that take a value, and those that stand alone; vigil uses type, size and
// expire, and the others do not change what a client's entry means.
constexpr std::array<std::string_view, 7> kWithValue = {"type",  "len",      "size",  "expire",
                                                        "peers", "write-to", "srvkey"};
constexpr std::array<std::string_view, 2> kAlone = {"nopurge", "recv-only"};

bool contains(std::span<const std::string_view> words, std::string_view w) {
  return std::ranges::find(words, w) != words.end();
}

}  // namespace

void proxy_stick_table(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 2, "a type, like `stick-table type ip size 10k`")) return;
  if (x.kind == kFrontend) {
    return p.warning(d.line(), "ignored: `" + d.text() +
                                   "`: vigil keeps a client in its pool's table, a backend's");
  }
  StickTableDraft t;
  t.text = d.text();
  const auto args = d.args();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string word = lowercase(args[i]);
    if (word == "store") break;  // the counters it keeps, for ACLs: the rest of the line
    if (contains(kAlone, word)) continue;
    if (!contains(kWithValue, word) || i + 1 == args.size()) {
      return p.warning(d.line(), "ignored: `" + d.text() + "`: vigil does not know `" +
                                     shown(args[i]) + "` here");
    }
    const std::string_view value = args[++i];
    if (word == "type") {
      const std::string type = lowercase(value);
      t.source_address = type == "ip" || type == "ipv6";
    } else if (word == "size") {
      t.size = table_size(p, d, value);
      if (!t.size) return;
    } else if (word == "expire") {
      t.expire = p.duration(d.line(), "stick-table expire", value);
      if (!t.expire) return;
    }
  }
  x.stick_table.set(std::move(t), d.line());
}

// `stick on|match|store-request <pattern> [table <name>] [if|unless <condition>]`.
void proxy_stick(Parser& p, const Directive& d, ProxyDraft& x) {
  if (!needs_args(p, d, 2, "a rule and a pattern, like `stick on src`")) return;
  const std::string rule = lowercase(d.arg(0));
  const auto ignored = [&](std::string_view why) {
    p.warning(d.line(), "ignored: `" + d.text() + "`: " + std::string(why));
  };
  if (rule != "on" && rule != "match" && rule != "store-request") {
    return ignored("vigil chooses a member when the connection arrives, before any response");
  }
  if (lowercase(d.arg(1)) != "src") {
    return ignored("vigil keeps a client on its member by the client's address only (`src`)");
  }
  const auto rest = d.args().subspan(2);
  for (const std::string& word : rest) {
    if (lowercase(word) == "if" || lowercase(word) == "unless") {
      return ignored("vigil does not evaluate conditions: it keeps every client or none");
    }
  }
  if (!rest.empty() && !(rest.size() == 2 && lowercase(rest[0]) == "table" && rest[1] == x.name)) {
    return ignored("vigil keeps a pool's clients in the pool's own table");
  }
  if (rule != "store-request") x.stick.match.set(d.text(), d.line());
  if (rule != "match") x.stick.store.set(d.text(), d.line());
}

model::SessionPersistence build_persistence(Parser& p, const ProxyDraft& b) {
  const auto& table = b.stick_table;
  const auto& rules = b.stick;
  const auto unused = [&](int line, const std::string& text, const std::string& why) {
    if (line > 0) p.warning(line, "ignored: `" + text + "`: " + why);
  };
  if (!rules.match || !rules.store) {
    // One half of `stick on`: a match with nothing stored finds no client, a store that nothing
    // matches sends none back.
    const std::string half = "vigil keeps clients with `stick on src` (a match and a store)";
    unused(rules.match.line, rules.match.value, half);
    unused(rules.store.line, rules.store.value, half);
    unused(table.line, table.value.text, "no `stick on src` in " + kind_and_name(b) + " uses it");
    return {};
  }
  const auto both_unused = [&](const std::string& why) {
    unused(rules.match.line, rules.match.value, why);
    if (rules.store.line != rules.match.line) unused(rules.store.line, rules.store.value, why);
    unused(table.line, table.value.text, why);
    return model::SessionPersistence{};
  };
  if (!table) return both_unused(kind_and_name(b) + " has no `stick-table type ip`");
  if (!table.value.source_address) {
    return both_unused("a table of client addresses is `type ip` or `type ipv6`");
  }
  model::SessionPersistence sp{.type = model::Persistence::kSourceIp};
  if (const auto& expire = table.value.expire) {
    sp.timeout = std::clamp(*expire, Duration(std::chrono::seconds(1)), kMaxIdleTimeout);
    if (sp.timeout != *expire) {
      p.warning(table.line, "`expire " + format_duration(*expire) + "` becomes " +
                                format_duration(sp.timeout) +
                                ", the nearest session_persistence timeout vigil takes");
    }
  } else {
    p.warning(table.line, "`" + table.value.text +
                              "` has no `expire`: HAProxy keeps a client until newer ones push "
                              "it out of the table; vigil forgets one unseen for " +
                              format_duration(sp.timeout) +
                              " (session_persistence timeout; give `expire` to choose)");
  }
  // Octavia's amphora writes `size 10k`, 10,240 entries to HAProxy: vigil's 10,000 near enough.
  if (table.value.size && *table.value.size > 10 * 1024) {
    p.warning(table.line, "vigil's table holds " + std::to_string(model::kPersistenceEntries) +
                              " clients per pool: past that, a new client takes the place of one "
                              "of the least recently seen");
  }
  return sp;
}

}  // namespace vigil::config::haproxy
