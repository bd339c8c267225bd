#include "base/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace vigil {
namespace {

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vigil-file-test-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(FileTest, AtomicWriteReplacesAndLeavesNoTemporary) {
  const std::string path = dir_ + "/state.json";
  ASSERT_TRUE(write_file_atomic(path, "one"));
  ASSERT_TRUE(write_file_atomic(path, "two"));
  EXPECT_EQ(*read_file(path), "two");
  int files = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(FileTest, APlantedSymlinkAtTheTemporaryIsNeverFollowed) {
  const std::string path = dir_ + "/state.json";
  const std::string victim = dir_ + "/victim";
  ASSERT_TRUE(write_file_atomic(victim, "precious"));
  ASSERT_TRUE(write_file_atomic(path, "old"));
  const std::string tmp = path + ".tmp.1234.planted";
  std::filesystem::create_symlink(victim, tmp);
  const auto written = write_file_atomic_via(path, tmp, "new");
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message.find("cannot create " + tmp), std::string::npos);
  EXPECT_EQ(*read_file(victim), "precious");
  EXPECT_EQ(*read_file(path), "old");
  EXPECT_TRUE(std::filesystem::is_symlink(tmp));
  // The old name (`.tmp.<pid>`) planted too: the random name misses it, and the write goes on.
  std::filesystem::create_symlink(victim, path + ".tmp." + std::to_string(::getpid()));
  ASSERT_TRUE(write_file_atomic(path, "new"));
  EXPECT_EQ(*read_file(path), "new");
  EXPECT_EQ(*read_file(victim), "precious");
}

size_t open_descriptors() {
  size_t n = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

TEST_F(FileTest, AFailingFsyncLeaksNoDescriptorAndLeavesNoTemporary) {
  const std::string path = dir_ + "/state.json";
  ASSERT_TRUE(write_file_atomic(path, "old"));
  set_fsync_for_tests([](int) {
    errno = EIO;
    return -1;
  });
  const size_t before = open_descriptors();
  for (int i = 0; i < 20; ++i) {
    const auto written = write_file_atomic(path, "new");
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("cannot sync"), std::string::npos);
  }
  set_fsync_for_tests(nullptr);
  EXPECT_EQ(open_descriptors(), before);
  EXPECT_EQ(*read_file(path), "old");
  int files = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir_)) ++files;
  EXPECT_EQ(files, 1);
}

TEST_F(FileTest, StaleTemporariesOfDeadProcessesAreRemoved) {
  const std::string path = dir_ + "/state.json";
  ASSERT_TRUE(write_file_atomic(dir_ + "/victim", "precious"));
  // Above the kernel's pid_max (4194304 at most): no such process can run.
  ASSERT_TRUE(write_file_atomic(dir_ + "/state.json.tmp.999999999.0123456789abcdef", "torn"));
  ASSERT_TRUE(write_file_atomic(dir_ + "/state.json.tmp.999999998", "torn, old name"));
  std::filesystem::create_symlink(dir_ + "/victim", dir_ + "/state.json.tmp.999999997.x");
  const std::string mine = dir_ + "/state.json.tmp." + std::to_string(::getpid()) + ".a";
  ASSERT_TRUE(write_file_atomic(mine, "a running process's"));
  ASSERT_TRUE(write_file_atomic(dir_ + "/other.json.tmp.999999999.b", "another file's"));

  EXPECT_EQ(remove_stale_temporaries(path), 3u);
  std::vector<std::string> left;
  for (auto& e : std::filesystem::directory_iterator(dir_)) left.push_back(e.path().filename());
  std::ranges::sort(left);
  EXPECT_EQ(left, (std::vector<std::string>{"other.json.tmp.999999999.b",
                                            "state.json.tmp." + std::to_string(::getpid()) + ".a",
                                            "victim"}));
  EXPECT_EQ(*read_file(dir_ + "/victim"), "precious");
}

TEST_F(FileTest, ErrorsNameThePath) {
  auto missing = read_file(dir_ + "/nope");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(dir_ + "/nope"), std::string::npos);
  EXPECT_FALSE(write_file_atomic(dir_ + "/no/such/dir/file", "x"));
}

// A FIFO would hang start-up and a device would fill memory: only regular files are read, and
// only up to their cap.
TEST_F(FileTest, OnlyARegularFileWithinItsCapIsRead) {
  const std::string fifo = dir_ + "/state.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = read_file(fifo);  // returns at once: nobody writes it
  ASSERT_FALSE(from_fifo);
  EXPECT_NE(from_fifo.error().message.find("not a regular file"), std::string::npos);
  const std::string zero = dir_ + "/zero";
  std::filesystem::create_symlink("/dev/zero", zero);
  auto from_device = read_file(zero);
  ASSERT_FALSE(from_device);
  EXPECT_NE(from_device.error().message.find("not a regular file"), std::string::npos);
  const std::string big = dir_ + "/big";
  ASSERT_TRUE(write_file_atomic(big, std::string(100, 'x')));
  EXPECT_TRUE(read_file(big, 100));
  auto too_big = read_file(big, 99);
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message.find("100 bytes, more than the 99"), std::string::npos);
  const std::string link = dir_ + "/link";
  std::filesystem::create_symlink(big, link);
  EXPECT_TRUE(read_file(link)) << "a symlink to a regular file is read";
}

TEST_F(FileTest, SecretIsTheTrimmedFirstLine) {
  const std::string path = dir_ + "/token";
  ASSERT_TRUE(write_file_atomic(path, "  s3cret \nsecond line\n"));
  EXPECT_EQ(*read_secret_file(path), "s3cret");
  ASSERT_TRUE(write_file_atomic(path, " \n"));
  EXPECT_FALSE(read_secret_file(path));
}

}  // namespace
}  // namespace vigil
