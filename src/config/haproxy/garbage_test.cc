// Bad haproxy.cfg never crashes, hangs or throws: mutated versions of the test configs (cut,
// bytes flipped, pieces repeated or inserted) and some known-nasty input. And whatever loads
// converts to YAML that loads too. A deterministic cousin of a fuzz target.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "config/haproxy/convert.h"
#include "config/haproxy/loader.h"
#include "config/report.h"
#include "config/test_util.h"

namespace vigil::config {
namespace {

std::string read(const std::string& name) {
  std::ifstream in(std::string(VIGIL_SOURCE_DIR) + "/src/config/haproxy/testdata/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Loads `text` and checks the result is coherent; returns whether it loaded.
bool load_safely(const std::string& text, const std::string& label) {
  LoadResult r;
  EXPECT_NO_THROW(r = load_haproxy_cfg(text, "fuzz.cfg")) << label;
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  testing::expect_coherent(r, lines, label);
  EXPECT_NO_THROW((void)check_report(r)) << label;
  EXPECT_NO_THROW((void)convert_report(r)) << label;
  if (r.config) {
    const std::string yaml = to_yaml(*r.process, *r.config);
    const LoadResult back = load_yaml(yaml, "converted.yaml");
    EXPECT_TRUE(back.ok()) << label << "\n" << yaml << testing::all(back.diagnostics);
  }
  return r.ok();
}

std::string mutate(std::string text, std::mt19937& rng) {
  static const char* const kPieces[] = {
      "'",
      "\"",
      "\\",
      "#",
      "\\x",
      "\"${X}\"",
      " check",
      " backup",
      " disabled",
      " inter 0",
      " weight 999",
      " port 0",
      "\n",
      "\t",
      "\xC2\xA0",
      ":",
      "\nbind :1\n",
      "\nfrontend ",
      "\nbackend ",
      "\nlisten ",
      "\ndefaults ",
      "no ",
      "option httpchk",
      " ssl",
      "\r\n",
      std::string("\0", 1).c_str(),
      "\xff",
      " from ",
      "default_backend ",
      "\nserver s 10.0.0.9\n",
      "\n.if x\n",
      "\npeers p\n",
      "http-check expect rstatus (",
      "use_backend ",
      " 99999999999999999999",
      "::",
      "[",
      "]",
      ",",
      "default-server inter 1d ",
  };
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
    case 2:
      text.erase(pick(text.size()), pick(60));
      break;
    case 3: {
      const std::string piece = text.substr(pick(text.size()), pick(300));
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

TEST(HaproxyGarbage, MutatedConfigsNeverThrow) {
  std::mt19937 rng(20240612);
  int loaded = 0;
  int total = 0;
  for (const char* name :
       {"openshift-article-readyz.cfg", "octavia-amphora.cfg", "kubeadm-ha.cfg",
        "openshift-upi.cfg", "octavia-seed-tls-hello.cfg", "kubeadm-ha-http-check.cfg"}) {
    const std::string seed = read(name);
    ASSERT_TRUE(load_safely(seed, name));
    for (int i = 0; i < 100; ++i) {
      std::string text = seed;
      for (int rounds = 1 + static_cast<int>(rng() % 3); rounds > 0; --rounds) {
        text = mutate(std::move(text), rng);
      }
      loaded += load_safely(text, std::string(name) + " mutation " + std::to_string(i)) ? 1 : 0;
      ++total;
    }
  }
  // Both paths were exercised.
  EXPECT_GT(loaded, 0);
  EXPECT_LT(loaded, total);
}

TEST(HaproxyGarbage, NastyInput) {
  const std::string nasty[] = {
      std::string(100000, '\''),
      std::string(100000, '"'),
      std::string(100000, '\\'),
      std::string(100000, '#'),
      std::string(100000, '\n'),
      std::string(50000, ' ') + "frontend",
      "frontend " + std::string(100000, 'f') + "\n  bind :1\n  default_backend " +
          std::string(100000, 'b') + "\nbackend " + std::string(100000, 'b') + "\n  server " +
          std::string(10000, 's') + " 10.0.0.1:1 check\n",
      "backend b\n  server s " + std::string(5000, 'a') + ":1\n",
      "backend b\n" +
          [] {
            std::string s;
            for (int i = 0; i < 5000; ++i)
              s += "  server s" + std::to_string(i) + " 10.0.0.1:1 check\n";
            return s;
          }(),
      [] {
        std::string s;
        for (int i = 0; i < 2000; ++i)
          s += "listen l" + std::to_string(i) + "\n  bind :" + std::to_string(i + 1) + "\n";
        return s;
      }(),
      std::string("frontend f\0\n  bind :1\n", 22),
      "\xEF\xBB\xBF\xEF\xBB\xBF",
      "\xC2\xA0\xC2\xA0global",
      "global\n  nbthread 99999999999999999999999\n",
      "defaults\n  timeout connect 9999999999999d\n",
      "backend b\n  server s 10.0.0.1:1 check inter 2147483647 fastinter 2147483647\n",
      "backend b\n  timeout check 2147483647\n  option ssl-hello-chk\n"
      "  server s 10.0.0.1:1 check inter 86400000 rise 10 fall 10\n",
      "listen a\n  bind :1\n  default_backend a\n",
      "listen a\n  bind :1\n  default_backend b\nlisten b\n  bind :2\n  default_backend a\n",
      "frontend a from a\ndefaults a from a\nbackend b from b\n",
      "no\nno no\nno option\noption\ntimeout\nhttp-check\n",
      "backend b\n  option httpchk GET / HTTP/1.1\\r\\n\\r\\n:\\r\\nHost:\\r\\n\n"
      "  server s 10.0.0.1:1 check\n",
      "backend b\n  http-check send hdr\n  http-check expect !\n  http-check expect status\n"
      "  http-check connect port\n  tcp-check connect addr\n",
  };
  for (const std::string& text : nasty) load_safely(text, text.substr(0, 60));
}

}  // namespace
}  // namespace vigil::config
