#include "config/address.h"

#include <gtest/gtest.h>

#include "config/suggest.h"

namespace vigil::config {
namespace {

TEST(Names, Table) {
  struct Case {
    std::string name;
    bool valid;
  };
  const Case cases[] = {
      {.name = "masters", .valid = true},
      {.name = "master-01.example_x", .valid = true},
      {.name = std::string(64, 'a'), .valid = true},
      {.name = std::string(65, 'a'), .valid = false},
      {.name = "", .valid = false},
      {.name = "a/b", .valid = false},
      {.name = "a b", .valid = false},
      {.name = "caf\xC3\xA9", .valid = false},
      {.name = "a\nb", .valid = false},
      {.name = "?x", .valid = false},
  };
  for (const Case& c : cases) EXPECT_EQ(valid_name(c.name), c.valid) << c.name;
}

TEST(ParseBind, Table) {
  struct Case {
    const char* text;
    bool ok;
    const char* address;
    uint16_t port;
  };
  const Case cases[] = {
      {.text = ":6443", .ok = true, .address = "", .port = 6443},
      {.text = "*:6443", .ok = true, .address = "", .port = 6443},
      {.text = "0.0.0.0:1", .ok = true, .address = "0.0.0.0", .port = 1},
      {.text = "[::1]:0", .ok = true, .address = "::1", .port = 0},
      {.text = "[fe80::1%eth0]:1", .ok = false},
      {.text = "6443", .ok = false},
      {.text = ":", .ok = false},
      {.text = ":-1", .ok = false},
      {.text = ":65536", .ok = false},
      {.text = ":0006443", .ok = false},
      {.text = "[::1:6443", .ok = false},
      {.text = "1.2.3:80", .ok = false},
      {.text = "example.com:80", .ok = false},
      {.text = "", .ok = false},
  };
  for (const Case& c : cases) {
    auto bind = parse_bind(c.text);
    ASSERT_EQ(bind.has_value(), c.ok) << c.text;
    if (!c.ok) continue;
    EXPECT_EQ(bind->address, c.address) << c.text;
    EXPECT_EQ(bind->port, c.port) << c.text;
  }
}

TEST(BindsOverlap, Table) {
  struct Case {
    BindAddress a;
    BindAddress b;
    bool overlap;
  };
  const Case cases[] = {
      {.a = {"", 80}, .b = {"10.0.0.1", 80}, .overlap = true},
      {.a = {"10.0.0.1", 80}, .b = {"10.0.0.1", 80}, .overlap = true},
      {.a = {"10.0.0.1", 80}, .b = {"10.0.0.2", 80}, .overlap = false},
      {.a = {"10.0.0.1", 80}, .b = {"10.0.0.1", 81}, .overlap = false},
      {.a = {"", 0}, .b = {"", 0}, .overlap = false},
      {.a = {"0.0.0.0", 80}, .b = {"127.0.0.1", 80}, .overlap = true},
      {.a = {"0.0.0.0", 80}, .b = {"::1", 80}, .overlap = false},
      {.a = {"::", 80}, .b = {"127.0.0.1", 80}, .overlap = true},
      {.a = {"::1", 80}, .b = {"::2", 80}, .overlap = false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(binds_overlap(c.a, c.b), c.overlap) << c.a.address << " " << c.b.address;
    EXPECT_EQ(binds_overlap(c.b, c.a), c.overlap) << c.b.address << " " << c.a.address;
  }
}

TEST(ParseHost, Table) {
  struct Case {
    const char* text;
    const char* stored;  // nullptr: rejected
  };
  const Case cases[] = {
      {.text = "10.0.0.1", .stored = "10.0.0.1"},
      {.text = "::1", .stored = "::1"},
      {.text = "[2001:db8::1]", .stored = "2001:db8::1"},
      {.text = "master-01.example.local", .stored = "master-01.example.local"},
      {.text = "api.", .stored = "api."},
      {.text = "localhost", .stored = "localhost"},
      {.text = "etcd_0", .stored = "etcd_0"},
      {.text = "", .stored = nullptr},
      {.text = "a b", .stored = nullptr},
      {.text = "10.0.0.1:6443", .stored = nullptr},
      {.text = "192.0.2.300", .stored = nullptr},
      {.text = "-bad.example", .stored = nullptr},
      {.text = "a..b", .stored = nullptr},
      {.text = "http://x", .stored = nullptr},
  };
  for (const Case& c : cases) {
    auto host = parse_host(c.text);
    ASSERT_EQ(host.has_value(), c.stored != nullptr) << c.text;
    if (c.stored) {
      EXPECT_EQ(*host, c.stored) << c.text;
    }
  }
}

TEST(Loopback, Table) {
  EXPECT_TRUE(is_loopback("127.0.0.1"));
  EXPECT_TRUE(is_loopback("127.1.2.3"));
  EXPECT_TRUE(is_loopback("::1"));
  EXPECT_FALSE(is_loopback(""));
  EXPECT_FALSE(is_loopback("0.0.0.0"));
  EXPECT_FALSE(is_loopback("::"));
  EXPECT_FALSE(is_loopback("10.0.0.1"));
}

TEST(Suggest, Table) {
  const std::vector<std::string_view> keys = {"interval", "fast_interval", "timeout", "type",
                                              "path"};
  struct Case {
    const char* word;
    const char* want;  // nullptr: no suggestion
  };
  const Case cases[] = {
      {.word = "intervall", .want = "interval"},
      {.word = "itnerval", .want = "interval"},
      {.word = "Interval", .want = "interval"},
      {.word = "fastinterval", .want = "fast_interval"},
      {.word = "tmeout", .want = "timeout"},
      {.word = "typ", .want = "type"},
      {.word = "colour", .want = nullptr},
      {.word = "x", .want = nullptr},
      {.word = "", .want = nullptr},
  };
  for (const Case& c : cases) {
    auto got = closest(c.word, keys);
    ASSERT_EQ(got.has_value(), c.want != nullptr) << c.word;
    if (c.want) {
      EXPECT_EQ(*got, c.want) << c.word;
    }
  }
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3);
  EXPECT_EQ(edit_distance("ab", "ba"), 1);
}

}  // namespace
}  // namespace vigil::config
