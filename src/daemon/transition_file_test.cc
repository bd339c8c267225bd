// The recent transitions' file: what it keeps and reads back, what a damaged one does (a warning
// and an empty ring), and when it is written: at most once per kWriteEvery on a manual clock,
// never while an upgrade's new process owns it.
#include "daemon/transition_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "base/file.h"
#include "testing/manual_timer.h"

namespace vigil::daemon {
namespace {

using namespace std::chrono_literals;

const model::WallTime kT0{std::chrono::seconds(1'800'000'000)};

model::Transition transition(int i) {
  return {.at = kT0 + i * 1s,
          .pool_id = "pool-id",
          .pool = "masters",
          .member = "master-0" + std::to_string(i),
          .message = "pool masters member master-0" + std::to_string(i) + " DOWN: \"quoted\" <b>"};
}

bool same(const model::Transition& a, const model::Transition& b) {
  return a.at == b.at && a.pool_id == b.pool_id && a.pool == b.pool && a.member == b.member &&
         a.message == b.message;
}

class TransitionFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vigil-transitions-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    path_ = transitions_path(dir_ + "/state.json");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  size_t kept() {
    auto text = read_file(path_);
    return text ? decode_transitions(*text, 1000).value().size() : 0;
  }

  std::string dir_;
  std::string path_;
  testing::ManualClock clock_;
  testing::ManualTimerSource timers_{clock_};
  std::deque<model::Transition> ring_;
};

TEST_F(TransitionFileTest, BesideTheStateFileOrNowhere) {
  EXPECT_EQ(transitions_path("/var/lib/vigil/state.json"), "/var/lib/vigil/state.json.transitions");
  EXPECT_EQ(transitions_path(""), "");
  EXPECT_TRUE(load_transitions("", 100).empty());
}

TEST_F(TransitionFileTest, WhatIsWrittenReadsBackTheNewestFirstCapped) {
  for (int i = 0; i < 5; ++i) ring_.push_back(transition(i));
  const std::string text = encode_transitions(ring_);
  const auto all = decode_transitions(text, 100);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_TRUE(same((*all)[i], ring_[i])) << i;
  const auto newest = decode_transitions(text, 2);
  ASSERT_EQ(newest.value().size(), 2u);
  EXPECT_TRUE(same((*newest)[0], ring_[3]));
  EXPECT_TRUE(same((*newest)[1], ring_[4]));
}

TEST_F(TransitionFileTest, ADamagedFileIsRefusedWholeAndLoadsAsNone) {
  const std::string cases[] = {
      "",
      "not json",
      "[]",
      R"({"format": 2, "transitions": []})",
      R"({"format": 1, "transitions": {}})",
      R"({"format": 1, "transitions": [1]})",
      R"({"format": 1, "transitions": [{"at_ns": "x", "pool_id": "", "pool": "", "member": "",
          "message": ""}]})",
      R"({"format": 1, "transitions": [{"at_ns": 5, "pool_id": "", "pool": "", "member": ""}]})",
      R"({"format": 1, "transitions": [{"at_ns": 5, "pool_id": "", "pool": 3, "member": "",
          "message": ""}]})",
  };
  for (const std::string& text : cases) {
    EXPECT_FALSE(decode_transitions(text, 100)) << text;
    ASSERT_TRUE(write_file_atomic(path_, text));
    EXPECT_TRUE(load_transitions(path_, 100).empty()) << text;
  }
  EXPECT_TRUE(load_transitions(dir_ + "/missing", 100).empty()) << "the first start";
  std::filesystem::create_directory(dir_ + "/a-directory");
  EXPECT_TRUE(load_transitions(dir_ + "/a-directory", 100).empty());
}

TEST_F(TransitionFileTest, WritesAtMostOnceASecondAfterAChange) {
  TransitionFile file(
      path_, clock_, timers_, [this]() -> const auto& { return ring_; });
  EXPECT_FALSE(std::filesystem::exists(path_)) << "nothing changed: nothing written";
  ring_.push_back(transition(0));
  file.changed();
  EXPECT_FALSE(std::filesystem::exists(path_)) << "never inside the change";
  timers_.advance(0s);
  EXPECT_EQ(kept(), 1u) << "the first change is written at once";
  for (int i = 1; i < 10; ++i) {
    ring_.push_back(transition(i));
    file.changed();
    timers_.advance(100ms);
  }
  EXPECT_EQ(kept(), 1u) << "a flapping member is not a write per change";
  timers_.advance(100ms);
  EXPECT_EQ(kept(), 10u) << "written a second after the last write";
  ASSERT_EQ(load_transitions(path_, 100).size(), 10u);
  EXPECT_TRUE(same(load_transitions(path_, 100).back(), ring_.back()));
}

TEST_F(TransitionFileTest, FlushWritesNowAndAHeldFileIsLeftToTheNewProcess) {
  TransitionFile file(
      path_, clock_, timers_, [this]() -> const auto& { return ring_; });
  ring_.push_back(transition(0));
  file.changed();
  file.flush();
  EXPECT_EQ(kept(), 1u) << "flushed before any timer";
  file.hold();  // an upgrade started: the new process read the file and writes it now
  ring_.push_back(transition(1));
  file.changed();
  timers_.advance(5s);
  file.flush();
  EXPECT_EQ(kept(), 1u);
  file.release();  // the upgrade failed: this process writes again, what it missed too
  timers_.advance(0s);
  EXPECT_EQ(kept(), 2u);
}

}  // namespace
}  // namespace vigil::daemon
