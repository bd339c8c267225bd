#include "base/file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

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

TEST_F(FileTest, ErrorsNameThePath) {
  auto missing = read_file(dir_ + "/nope");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find(dir_ + "/nope"), std::string::npos);
  EXPECT_FALSE(write_file_atomic(dir_ + "/no/such/dir/file", "x"));
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
