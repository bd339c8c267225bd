#include "net/unix_socket.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace vigil::net {
namespace {

namespace fs = std::filesystem;

TEST(UnixSocket, DecidesWhatToDoWithWhatIsAtThePath) {
  struct Case {
    const char* description;
    AtPath found;
    bool answers;
    BeforeBind expected;
  };
  const Case cases[] = {
      {.description = "nothing there",
       .found = AtPath::kNothing,
       .answers = false,
       .expected = BeforeBind::kBind},
      {.description = "a dead vigil's socket",
       .found = AtPath::kSocket,
       .answers = false,
       .expected = BeforeBind::kRemoveStale},
      {.description = "a running vigil's socket",
       .found = AtPath::kSocket,
       .answers = true,
       .expected = BeforeBind::kRefuseInUse},
      {.description = "a regular file",
       .found = AtPath::kOther,
       .answers = false,
       .expected = BeforeBind::kRefuseNotSocket},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(before_bind(c.found, c.answers), c.expected) << c.description;
  }
}

TEST(UnixSocket, ChecksPaths) {
  EXPECT_TRUE(check_socket_path("/run/vigil/admin.sock"));
  EXPECT_EQ(check_socket_path("run/admin.sock").error().message, "must be an absolute path");
  EXPECT_FALSE(check_socket_path("/run/vigil/"));
  EXPECT_TRUE(check_socket_path("/" + std::string(kMaxSocketPath - 1, 'a')));
  EXPECT_FALSE(check_socket_path("/" + std::string(kMaxSocketPath, 'a')));
}

class UnixListen : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("vigil-unix-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = (dir_ / "admin.sock").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  std::string path_;
};

TEST_F(UnixListen, BindsWithMode0660) {
  auto listener = listen_unix(path_);
  ASSERT_TRUE(listener) << listener.error().message;
  struct stat st {};
  ASSERT_EQ(::lstat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  EXPECT_FALSE(listener->group.empty());
}

TEST_F(UnixListen, RefusesAndKeepsAFileThatIsNoSocket) {
  std::ofstream(path_) << "precious\n";
  auto listener = listen_unix(path_);
  ASSERT_FALSE(listener);
  EXPECT_NE(listener.error().message.find("not a socket"), std::string::npos)
      << listener.error().message;
  std::ifstream in(path_);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "precious");
}

TEST_F(UnixListen, ReplacesAStaleSocketButNotALiveOne) {
  {
    auto first = listen_unix(path_);
    ASSERT_TRUE(first);
    auto second = listen_unix(path_);
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().message.find("another process listens"), std::string::npos)
        << second.error().message;
  }  // closed: the file stays behind, as after a crash
  ASSERT_TRUE(fs::exists(path_));
  auto again = listen_unix(path_);
  EXPECT_TRUE(again) << again.error().message;
}

TEST_F(UnixListen, NamesThePeerFromTheKernel) {
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  Fd a(pair[0]), b(pair[1]);
  auto user = peer_user(a.get());
  ASSERT_TRUE(user) << user.error().message;
  EXPECT_FALSE(user->empty());
}

TEST_F(UnixListen, RemovesOnlyASocket) {
  std::ofstream(path_) << "precious\n";
  remove_socket(path_);
  EXPECT_TRUE(fs::exists(path_));
  fs::remove(path_);
  {
    auto listener = listen_unix(path_);
    ASSERT_TRUE(listener);
  }
  remove_socket(path_);
  EXPECT_FALSE(fs::exists(path_));
}

}  // namespace
}  // namespace vigil::net
