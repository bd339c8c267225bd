// haproxy.cfg's line syntax: each line is a list of words, split the way HAProxy's parse_line()
// splits them. Internal to config/ (the haproxy.cfg importer). Pure function.
//
// - Words are separated by unquoted blanks (space, tab, CR, VT, FF). A line is never continued.
//   Unlike HAProxy, vigil also reads unquoted Unicode spaces (no-break spaces and the like, which
//   web pages put in configs copied from them) as blanks, with one warning per file.
// - An unquoted, unescaped `#` starts a comment, also in the middle of a word.
// - 'single quotes' keep everything as written; "double quotes" group words but still process
//   backslash escapes. Quotes may start and stop inside a word: a"b c"d is one word, `ab cd`.
//   "" is an empty word.
// - Outside single quotes: `\ `, `\\`, `\#`, `\'`, `\"` stand for the character, `\r`, `\n`, `\t`
//   for CR, LF and tab, `\xHH` for a byte. Any other backslash stays as written (regexes in ACLs).
// - HAProxy expands "$VAR" and "${VAR}" inside double quotes from its environment. vigil does not
//   (a config means the same wherever it is read); such words are flagged so that the importer
//   can say so when it would use their value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"

namespace vigil::config::haproxy {

struct CfgLine {
  int number = 0;                  // 1-based
  std::vector<std::string> words;  // never empty
  std::vector<bool> env;           // env[i]: words[i] names an environment variable
};

// Lines that hold at least one word, in file order. An unmatched quote, a bad \x escape, a NUL
// byte or a word that is not UTF-8 is an error at its line, and that line is left out. A UTF-8
// byte order mark is skipped.
std::vector<CfgLine> tokenize(std::string_view text, const std::string& file,
                              std::vector<Diagnostic>& out);

}  // namespace vigil::config::haproxy
