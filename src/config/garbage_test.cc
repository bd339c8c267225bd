// Bad input never crashes, hangs or throws: mutated versions of a valid file (truncated, bytes
// flipped, pieces cut, repeated or inserted) and some known-nasty YAML. A deterministic cousin of
// the fuzz_yaml.cc target.
#include <gtest/gtest.h>

#include <random>

#include "config/report.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

// Loads `text` and checks the result is coherent; returns whether it loaded.
bool load_safely(const std::string& text, const std::string& label) {
  LoadResult r;
  EXPECT_NO_THROW(r = load_yaml(text, "fuzz.yaml")) << label;
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 2;
  testing::expect_coherent(r, lines, label);
  EXPECT_NO_THROW((void)check_report(r)) << label;
  return r.ok();
}

std::string mutate(std::string text, std::mt19937& rng) {
  static const char* const kPieces[] = {
      ":",  "-",           "[",  "]", "{", "}",      "&a ", "*a",   "!!binary ", "\t", "\n", "'",
      "\"", "%YAML 1.2\n", "? ", "|", ">", "<<: *a", "\\",  "\xff", "#",         "~",  ",",  "  "};
  const auto pick = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  switch (rng() % 5) {
    case 0:
      text.resize(pick(text.size()));
      break;
    case 1:
      for (int i = 0, n = 1 + static_cast<int>(rng() % 8); i < n && !text.empty(); ++i) {
        text[pick(text.size())] = static_cast<char>(rng() % 256);
      }
      break;
    case 2: {
      const size_t at = pick(text.size());
      text.erase(at, pick(40));
      break;
    }
    case 3: {
      const size_t at = pick(text.size());
      const std::string piece = text.substr(at, pick(200));
      text.insert(pick(text.size()), piece);
      break;
    }
    default:
      for (int i = 0, n = 1 + static_cast<int>(rng() % 4); i < n; ++i) {
        text.insert(pick(text.size()), kPieces[pick(std::size(kPieces))]);
      }
  }
  return text;
}

TEST(Garbage, MutatedValidFilesNeverThrow) {
  const std::string seed(testing::kDesignExample.substr(1));
  ASSERT_TRUE(load_safely(seed, "seed"));
  std::mt19937 rng(20240611);
  int loaded = 0;
  for (int i = 0; i < 400; ++i) {
    std::string text = seed;
    for (int rounds = 1 + static_cast<int>(rng() % 3); rounds > 0; --rounds) {
      text = mutate(std::move(text), rng);
    }
    loaded += load_safely(text, "mutation " + std::to_string(i)) ? 1 : 0;
  }
  // Most mutations break the file; some (in comments, say) do not. Both paths were exercised.
  EXPECT_GT(loaded, 0);
  EXPECT_LT(loaded, 400);
}

TEST(Garbage, NastyYaml) {
  const std::string nasty[] = {
      std::string(100000, '['),
      std::string(100000, '{'),
      std::string(20000, '-') + " a",
      "a: &a [*a]\n",
      "pools: &p [{name: x, members: *p}]\n",
      "pools: [&m {name: x, members: [*m, *m]}]\n",
      "lol: &a [x, x, x, x, x, x, x, x, x]\nlol2: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
      "pools: [{name: p, members: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]}]\n",
      "pools: [{name: p, retries: 99999999999999999999999999}]\n",
      "pools: [{name: p, health_monitor: {type: TCP, interval: 99999999999999999999h}}]\n",
      "pools: [{name: p, health_monitor: {type: TCP, interval: 1e400s}}]\n",
      "pools: [{name: p, health_monitor: {type: TCP, interval: nan s}}]\n",
      std::string("pools: [{name: \"a\0b\"}]\n", 23),
      std::string("\0\0\0", 3),
      "*unknown_alias\n",
      // yaml-cpp 0.7, which vigil once used, looped forever on these (jbeder/yaml-cpp#1040).
      ",",
      "# c\n  ,\r  none  admin:\n",
      "a: 1\n---\n,\n",
      "{:",
      "[:",
      "!!binary aGVsbG8=\n",
      "%TAG ! tag:x,2000:\n--- !foo\na: 1\n",
      "? a\n? a\n",
      "pools: [{" + std::string(5000, 'k') + ": 1}]\n",
      "listeners: [{name: a, pool: " + std::string(100000, 'p') +
          ", bind: \":1\"}]\npools: [{name: " + std::string(100000, 'q') + "}]\n",
  };
  for (const std::string& text : nasty) load_safely(text, text.substr(0, 60));
}

}  // namespace
}  // namespace vigil::config
