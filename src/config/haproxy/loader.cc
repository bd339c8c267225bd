// load_haproxy_cfg: text -> lines of words (haproxy/tokenizer.cc) -> sections, each directive
// dispatched through the keyword tables (haproxy/keywords.h) into a draft -> the model
// (haproxy/build.cc) -> the checks every config gets (validate.cc).
#include "config/haproxy/loader.h"

#include <cctype>
#include <optional>

#include "config/haproxy/draft.h"
#include "config/haproxy/keywords.h"
#include "config/haproxy/values.h"
#include "config/suggest.h"
#include "config/validate.h"

namespace vigil::config {
namespace haproxy {

namespace {

std::string shown(std::string_view text, size_t limit = 80) {
  std::string out;
  for (char c : text.substr(0, limit)) out += std::iscntrl(static_cast<unsigned char>(c)) ? '?' : c;
  return text.size() > limit ? out + "..." : out;
}

std::string join(std::span<const std::string> words) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += ' ';
    out += w.empty() ? "\"\"" : w;
  }
  return out;
}

}  // namespace

std::string Directive::keyword() const {
  const auto words = std::span<const std::string>(source->words).subspan(0, keyword_words);
  return join(negated ? words.subspan(1) : words);
}

std::string Directive::text() const { return shown(join(source->words)); }

std::string ParamUse::text() const {
  std::string out(name);
  for (const std::string& v : values) out += " " + v;
  return shown(out);
}

void ServerParams::overlay(const ServerParams& o) {
  const auto take = [](auto& mine, const auto& theirs) {
    if (theirs) mine = theirs;
  };
  take(check, o.check);
  take(check_ssl, o.check_ssl);
  take(ssl, o.ssl);
  take(backup, o.backup);
  take(disabled, o.disabled);
  take(verify, o.verify);
  take(ca_file, o.ca_file);
  take(check_sni, o.check_sni);
  take(verifyhost, o.verifyhost);
  take(addr, o.addr);
  take(crt, o.crt);
  take(inter, o.inter);
  take(fastinter, o.fastinter);
  take(downinter, o.downinter);
  take(slowstart, o.slowstart);
  take(send_proxy, o.send_proxy);
  take(check_send_proxy, o.check_send_proxy);
  take(rise, o.rise);
  take(fall, o.fall);
  take(weight, o.weight);
  take(port, o.port);
}

void Parser::error(int line, std::string message) {
  out_.push_back(make_error({.file = file_, .line = line}, std::move(message)));
}

void Parser::warning(int line, std::string message) {
  out_.push_back(make_warning({.file = file_, .line = line}, std::move(message)));
}

void Parser::warning_once(int line, const std::string& message) {
  if (warned_.emplace(line, message).second) warning(line, message);
}

std::optional<Duration> Parser::duration(int line, std::string_view what, std::string_view text) {
  auto d = parse_duration(text);
  if (!d) {
    error(line, std::string(what) + ": " + d.error().message);
    return std::nullopt;
  }
  return *d;
}

std::optional<int> Parser::integer(int line, std::string_view what, std::string_view text, int low,
                                   int high) {
  auto n = parse_integer(text, low, high);
  if (!n) {
    error(line, std::string(what) + " " + n.error().message);
    return std::nullopt;
  }
  return static_cast<int>(*n);
}

namespace {

std::string with_base(const std::string& base, std::string_view name) {
  if (base.empty() || name.starts_with('/') || name.starts_with('@')) return std::string(name);
  return base + (base.ends_with('/') ? "" : "/") + std::string(name);
}

}  // namespace

std::string Parser::ca_path(std::string_view name) const {
  return with_base(draft_.global.ca_base, name);
}

std::string Parser::crt_path(std::string_view name) const {
  return with_base(draft_.global.crt_base, name);
}

namespace {

// Reports a directive no table knows, with the closest known one when it looks like a typo.
template <typename Target>
void unknown_directive(Parser& p, const CfgLine& line, std::span<const std::string> words,
                       unsigned kind, std::span<const Keyword<Target>> table) {
  const std::string& head = words[0];
  std::vector<std::string_view> family;
  std::vector<std::string_view> singles;
  for (const Keyword<Target>& k : table) {
    const size_t space = k.name.find(' ');
    if (space == std::string_view::npos) {
      if (!k.name.ends_with('*')) singles.push_back(k.name);
    } else if (k.name.substr(0, space) == head) {
      family.push_back(k.name.substr(space + 1));
    } else {
      singles.push_back(k.name.substr(0, space));
    }
  }
  const std::string where = " in a " + std::string(section_name(kind)) + " section";
  if (!family.empty()) {
    if (words.size() < 2) {
      p.warning(line.number, "ignored: `" + shown(head) + "` without a name" + where);
      return;
    }
    p.warning(line.number, "ignored: unknown directive `" + shown(head + " " + words[1]) + "`" +
                               where + did_you_mean(words[1], family));
    return;
  }
  p.warning(line.number, "ignored: unknown directive `" + shown(head) + "`" + where +
                             did_you_mean(head, singles));
}

template <typename Target>
void dispatch(Parser& p, const CfgLine& line, unsigned kind, std::span<const Keyword<Target>> table,
              Target& target) {
  const std::span<const std::string> all(line.words);
  const bool negated = all[0] == "no" && all.size() > 1;
  const std::span<const std::string> words = all.subspan(negated ? 1 : 0);
  size_t used = 0;
  const Keyword<Target>* k = find_keyword(table, words, used);
  if (k == nullptr) return unknown_directive(p, line, words, kind, table);
  const Directive d{.source = &line, .keyword_words = used + (negated ? 1 : 0), .negated = negated};
  if ((k->sections & kind) == 0) {
    return p.warning(line.number, "ignored: `" + d.keyword() + "` does not apply to a " +
                                      std::string(section_name(kind)) + " section");
  }
  const std::string doc(k->doc);
  if (k->use == Use::kIgnored) {
    p.warning(line.number, "ignored: `" + d.text() + "`: " + doc);
    if (negated) return;
  } else if (negated) {
    return p.warning(line.number,
                     "ignored: `" + d.text() + "`: " +
                         (k->use == Use::kAccepted ? "vigil always does this (" + doc + ")"
                                                   : std::string("vigil cannot turn this off")));
  } else {
    for (size_t i = d.keyword_words; i < line.words.size(); ++i) {
      if (line.env[i]) {
        return p.error(line.number, "`" + d.keyword() + "` uses the environment variable in \"" +
                                        shown(line.words[i]) +
                                        "\", which vigil does not expand: write the value");
      }
    }
  }
  if (k->handle != nullptr) k->handle(p, d, target);
}

class SectionReader {
 public:
  explicit SectionReader(Parser& p) : p_(p) {}

  void read(const std::vector<CfgLine>& lines) {
    for (const CfgLine& line : lines) read_line(line);
    end_skipped();
  }

 private:
  enum class State { kNone, kGlobal, kProxy, kSkipped };

  void read_line(const CfgLine& line) {
    const std::string& head = line.words[0];
    if (head.starts_with('.')) return dot_directive(line);
    for (const SectionKeyword& s : section_keywords()) {
      if (s.name == head) return begin_section(line, s);
    }
    switch (state_) {
      case State::kNone:
        p_.warning(line.number, "ignored: `" + shown(head) +
                                    "` is outside any section (global, defaults, frontend, "
                                    "backend, listen)");
        return;
      case State::kSkipped:
        ++skipped_lines_;
        return;
      case State::kGlobal:
        return dispatch(p_, line, kGlobal, global_keywords(), p_.draft().global);
      case State::kProxy: {
        ProxyDraft& x = current();
        return dispatch(p_, line, x.kind, proxy_keywords(), x);
      }
    }
  }

  // HAProxy 2.4's conditional blocks and messages.
  void dot_directive(const CfgLine& line) {
    const std::string& head = line.words[0];
    if (head == ".if" || head == ".elif" || head == ".else" || head == ".endif") {
      p_.error(line.number, "conditional blocks (" + shown(head) +
                                ") are not supported: vigil reads one configuration; write the "
                                "branch that applies");
    } else {
      p_.warning(line.number, "ignored: `" + shown(head) + "`: HAProxy start-up message");
    }
  }

  void begin_section(const CfgLine& line, const SectionKeyword& s) {
    end_skipped();
    if (s.kind == 0) {
      state_ = State::kSkipped;
      skipped_ = &line;
      skipped_doc_ = s.doc;
      skipped_lines_ = 0;
      return;
    }
    if (s.kind == kGlobal) {
      state_ = State::kGlobal;
      if (line.words.size() > 1) {
        p_.warning(line.number,
                   "ignored: extra words after `global`: `" + shown(line.words[1]) + "`");
      }
      return;
    }
    begin_proxy(line, s.kind);
  }

  void begin_proxy(const CfgLine& line, unsigned kind) {
    const std::vector<std::string>& w = line.words;
    const std::string_view keyword = section_name(kind);
    std::string name;
    size_t i = 1;
    if (i < w.size() && w[i] != "from") name = w[i++];
    if (name.empty() && kind != kDefaults) {
      p_.error(line.number, "`" + std::string(keyword) + "` needs a name");
      state_ = State::kSkipped;
      skipped_ = nullptr;
      return;
    }
    // A proxy uses the last defaults section; a new defaults section starts from HAProxy's own.
    const ProxyDraft* base =
        kind != kDefaults && last_defaults_ ? &defaults_[*last_defaults_] : &builtin_;
    if (i < w.size() && w[i] == "from") {
      if (i + 1 >= w.size()) {
        p_.error(line.number, "`from` needs the name of a defaults section");
      } else if (const ProxyDraft* named = find_defaults(w[i + 1])) {
        base = named;
      } else {
        p_.error(line.number,
                 "defaults section \"" + shown(w[i + 1]) + "\" is not defined (above)");
      }
      i += 2;
    }
    ProxyDraft x = *base;
    x.kind = kind;
    x.name = name;
    x.line = line.number;
    x.binds.clear();
    x.servers.clear();
    x.use_backends.clear();
    x.self_served_line = 0;
    x.http_check.inherited = true;
    x.tcp_check.inherited = true;
    // HAProxy 1.x: `listen <name> <address>` binds on the section line.
    if (i < w.size() && (kind & kFrontendSide) != 0) {
      if (auto targets = parse_bind_targets(w[i])) {
        for (const BindTarget& t : *targets) {
          x.binds.push_back({.line = line.number, .address = t.address, .port = t.port});
        }
      } else {
        p_.error(line.number, "bind: " + targets.error().message);
      }
      ++i;
    }
    if (i < w.size()) {
      p_.warning(line.number, "ignored: extra words after `" + std::string(keyword) + " " +
                                  shown(name) + "`: `" + shown(w[i]) + "`");
    }
    state_ = State::kProxy;
    if (kind == kDefaults) {
      defaults_.push_back(std::move(x));
      last_defaults_ = defaults_.size() - 1;
      in_defaults_ = true;
    } else {
      p_.draft().proxies.push_back(std::move(x));
      in_defaults_ = false;
    }
  }

  const ProxyDraft* find_defaults(std::string_view name) const {
    for (auto it = defaults_.rbegin(); it != defaults_.rend(); ++it) {
      if (!it->name.empty() && it->name == name) return &*it;
    }
    return nullptr;
  }

  ProxyDraft& current() { return in_defaults_ ? defaults_.back() : p_.draft().proxies.back(); }

  void end_skipped() {
    if (state_ != State::kSkipped || skipped_ == nullptr) return;
    std::string what = join(skipped_->words);
    p_.warning(skipped_->number,
               "ignored: the `" + shown(what) + "` section" +
                   (skipped_lines_ > 0 ? " and its " + std::to_string(skipped_lines_) +
                                             (skipped_lines_ == 1 ? " line" : " lines")
                                       : std::string()) +
                   ": " + std::string(skipped_doc_));
    skipped_ = nullptr;
  }

  Parser& p_;
  State state_ = State::kNone;
  std::vector<ProxyDraft> defaults_;
  std::optional<size_t> last_defaults_;
  bool in_defaults_ = false;
  const ProxyDraft builtin_{};
  const CfgLine* skipped_ = nullptr;
  std::string_view skipped_doc_;
  int skipped_lines_ = 0;
};

}  // namespace
}  // namespace haproxy

LoadResult load_haproxy_cfg(std::string_view text, const std::string& file_name) {
  LoadResult result;
  try {
    haproxy::Parser parser(file_name, result.diagnostics);
    const std::vector<haproxy::CfgLine> lines =
        haproxy::tokenize(text, file_name, result.diagnostics);
    if (lines.empty() && result.diagnostics.empty()) {
      result.diagnostics.push_back(make_error({.file = file_name, .line = 0}, "empty config"));
    } else {
      haproxy::SectionReader(parser).read(lines);
      model::Config config = haproxy::build_config(parser);
      model::Process process = haproxy::build_process(parser);
      validate(process, config, result.diagnostics);
      result.process = std::move(process);
      result.config = std::move(config);
    }
  } catch (const std::exception& e) {
    result.diagnostics.push_back(
        make_error({.file = file_name, .line = 0}, std::string("cannot load: ") + e.what()));
  }
  sort_by_line(result.diagnostics);
  if (!result.ok()) {
    result.process.reset();
    result.config.reset();
  }
  return result;
}

}  // namespace vigil::config
