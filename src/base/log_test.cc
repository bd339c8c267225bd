#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <string>

#include "base/log_event.h"

namespace vigil::log {
namespace {

using namespace std::chrono_literals;

TEST(Log, AJournalLineStartsWithItsPriority) {
  const auto now = std::chrono::system_clock::time_point{};
  EXPECT_EQ(format_line(Level::kWarn, "member down", true, now), "<4>member down\n");
  EXPECT_EQ(format_line(Level::kError, "x", true, now), "<3>x\n");
  EXPECT_EQ(format_line(Level::kInfo, "x", true, now), "<6>x\n");
  EXPECT_EQ(format_line(Level::kDebug, "x", true, now), "<7>x\n");
}

TEST(Log, ATerminalLineHasTheTimeAndTheLevel) {
  const auto at = std::chrono::system_clock::time_point{} + 86400s + 1234ms;
  EXPECT_EQ(format_line(Level::kWarn, "member down", false, at),
            "1970-01-02T00:00:01.234Z warn member down\n");
}

TEST(Log, AJsonLineIsOneObjectWithTheEventsFields) {
  const auto at = std::chrono::system_clock::time_point{} + 86400s + 1234ms;
  const boost::json::object fields{{"pool", "masters"}, {"member", "m\"1"}, {"replays", 2}};
  const std::string line = format_json_line(Level::kWarn, "member_transition",
                                            "pool masters ... DOWN", &fields, false, at);
  ASSERT_TRUE(line.ends_with("}\n")) << line;
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line, whatever the message holds";
  const boost::json::value v = boost::json::parse(line);
  EXPECT_EQ(v.at("time"), "1970-01-02T00:00:01.234Z");
  EXPECT_EQ(v.at("level"), "warn");
  EXPECT_EQ(v.at("event"), "member_transition");
  EXPECT_EQ(v.at("message"), "pool masters ... DOWN");
  EXPECT_EQ(v.at("member"), "m\"1");
  EXPECT_EQ(v.at("replays"), 2);
}

TEST(Log, AJsonLineForTheJournalKeepsItsPriority) {
  const std::string line = format_json_line(Level::kError, "log", "boom\nagain", nullptr, true,
                                            std::chrono::system_clock::time_point{});
  ASSERT_TRUE(line.starts_with("<3>{")) << line;
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "a newline in the message stays escaped";
  const boost::json::value v = boost::json::parse(line.substr(3));
  EXPECT_EQ(v.at("event"), "log");
  EXPECT_EQ(v.at("message"), "boom\nagain");
}

TEST(Log, JournalStreamMustNameTheDescriptorsFile) {
  char path[] = "/tmp/vigil-log-test-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  const std::string same = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  const std::string other = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
  EXPECT_TRUE(is_journal_stream(same.c_str(), fd));
  EXPECT_FALSE(is_journal_stream(other.c_str(), fd));  // stderr redirected elsewhere since
  EXPECT_FALSE(is_journal_stream(nullptr, fd));
  EXPECT_FALSE(is_journal_stream("garbage", fd));
  ::close(fd);
  ::unlink(path);
}

}  // namespace
}  // namespace vigil::log
