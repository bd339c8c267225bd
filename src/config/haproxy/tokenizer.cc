#include "config/haproxy/tokenizer.h"

#include <fmt/format.h>

#include <cctype>

#include "base/utf8.h"

namespace vigil::config::haproxy {
namespace {

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The length of a Unicode space at the start of `text` (UTF-8), or 0: no-break space U+00A0, the
// spaces U+2000-U+200A, narrow no-break space U+202F, ideographic space U+3000 and zero-width
// no-break space U+FEFF. Web pages turn indentation into these, and configs are copied from them.
size_t unicode_blank(std::string_view text) {
  const auto at = [&](size_t i) {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
  };
  if (at(0) == 0xC2 && at(1) == 0xA0) return 2;
  if (at(0) == 0xE2 && at(1) == 0x80 && ((at(2) >= 0x80 && at(2) <= 0x8A) || at(2) == 0xAF)) {
    return 3;
  }
  if (at(0) == 0xE3 && at(1) == 0x80 && at(2) == 0x80) return 3;
  if (at(0) == 0xEF && at(1) == 0xBB && at(2) == 0xBF) return 3;
  return 0;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits one line; returns an error message, or "" when the line is fine. `unicode` is set when
// an unquoted Unicode space separated words.
std::string split(std::string_view row, CfgLine& line, bool& unicode) {
  std::string word;
  bool in_word = false;  // a word has started (it may still be empty: "")
  bool env = false;
  char quote = 0;  // the open quote, if any
  const auto finish = [&] {
    if (in_word) {
      line.words.push_back(std::move(word));
      line.env.push_back(env);
    }
    word.clear();
    in_word = false;
    env = false;
  };
  for (size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (c == '\0') return "NUL byte in the line";
    if (quote == '\'') {
      if (c == '\'') {
        quote = 0;
      } else {
        word += c;
      }
      continue;
    }
    if (c == '\\') {
      in_word = true;
      const char next = i + 1 < row.size() ? row[i + 1] : '\0';
      switch (next) {
        case ' ':
        case '\\':
        case '#':
        case '\'':
        case '"':
          word += next;
          ++i;
          break;
        case 'r':
          word += '\r';
          ++i;
          break;
        case 'n':
          word += '\n';
          ++i;
          break;
        case 't':
          word += '\t';
          ++i;
          break;
        case 'x': {
          const int high = i + 2 < row.size() ? hex_value(row[i + 2]) : -1;
          const int low = i + 3 < row.size() ? hex_value(row[i + 3]) : -1;
          if (high < 0 || low < 0)
            return "invalid \\x escape: write two hexadecimal digits, like \\x20";
          word += static_cast<char>(high * 16 + low);
          i += 3;
          break;
        }
        default:
          word += '\\';  // kept as written
      }
      continue;
    }
    if (quote == '"') {
      if (c == '"') {
        quote = 0;
        continue;
      }
      if (c == '$' && i + 1 < row.size() &&
          (row[i + 1] == '{' || row[i + 1] == '_' ||
           std::isalpha(static_cast<unsigned char>(row[i + 1])))) {
        env = true;
      }
      word += c;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (c == '#') {
      break;
    } else if (blank(c)) {
      finish();
    } else if (const size_t n = unicode_blank(row.substr(i)); n > 0) {
      finish();
      unicode = true;
      i += n - 1;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) {
    return std::string("unmatched ") + (quote == '"' ? "double" : "single") + " quote";
  }
  finish();
  // vigil's config is UTF-8, so a word that is not (Latin-1, or a \x escape of a high byte)
  // could not be carried into it. Comments are gone by now: they may hold any bytes.
  for (const std::string& w : line.words) {
    if (const size_t at = utf8_invalid_at(w); at < w.size()) {
      return fmt::format(
          "a word that is not UTF-8 text (byte 0x{:02X}); vigil's config is UTF-8: write the "
          "character in UTF-8, or percent-encode it in a path",
          static_cast<unsigned char>(w[at]));
    }
  }
  return "";
}

}  // namespace

std::vector<CfgLine> tokenize(std::string_view text, const std::string& file,
                              std::vector<Diagnostic>& out) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<CfgLine> lines;
  int number = 0;
  bool warned_unicode = false;
  while (!text.empty()) {
    ++number;
    const size_t eol = text.find('\n');
    const std::string_view row = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    CfgLine line{.number = number};
    bool unicode = false;
    if (const std::string problem = split(row, line, unicode); !problem.empty()) {
      out.push_back(make_error({.file = file, .line = number}, problem));
      continue;
    }
    if (unicode && !warned_unicode) {
      warned_unicode = true;
      out.push_back(make_warning(
          {.file = file, .line = number},
          "Unicode spaces (such as no-break spaces copied from a web page) are read as spaces "
          "from here on; HAProxy would refuse them"));
    }
    if (!line.words.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace vigil::config::haproxy
