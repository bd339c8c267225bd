// The object store: the state file (round trip, corrupt files, atomic writes), the conversion
// into model::Config and the views built from the store.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "admin/octavia/local_network.h"
#include "admin/octavia/object_store.h"
#include "admin/octavia/ops.h"
#include "admin/octavia/store_json.h"
#include "admin/octavia/views.h"
#include "base/file.h"

namespace vigil::admin {
namespace {

namespace fs = std::filesystem;

// A load balancer with a listener, a pool (HTTPS monitor) and two members, one disabled.
ApiState sample_state() {
  ApiState s;
  int ids = 0;
  const OpContext c{.now = "2024-05-01T12:00:00",
                    .new_id = [&] { return fmt::format("00000000-0000-4000-8000-{:012}", ++ids); },
                    .is_local_address = is_local_address};
  const std::string lb = *create_loadbalancer(s, R"({"loadbalancer": {"name": "k8s",
      "description": "masters", "project_id": "p1", "tags": ["a", "b"],
      "topology": "ACTIVE_STANDBY"}})",
                                              c);
  const std::string l = *create_listener(s,
                                         fmt::format(R"({{"listener": {{"loadbalancer_id":
      "{}", "protocol": "TCP", "protocol_port": 16443, "timeout_client_data": 600000,
      "timeout_member_connect": 2000, "connection_limit": 100}}}})",
                                                     lb),
                                         c);
  const std::string p = *create_pool(s,
                                     fmt::format(R"({{"pool": {{"listener_id": "{}",
      "protocol": "TCP", "lb_algorithm": "LEAST_CONNECTIONS", "name": ""}}}})",
                                                 l),
                                     c);
  EXPECT_TRUE(create_member(s, p, R"({"member": {"address": "127.0.0.1", "protocol_port": 7001,
      "name": "m1", "monitor_port": 7101}})",
                            c));
  EXPECT_TRUE(create_member(s, p, R"({"member": {"address": "127.0.0.1", "protocol_port": 7002,
      "name": "m1", "admin_state_up": false, "weight": 0, "backup": true}})",
                            c));
  EXPECT_TRUE(
      create_healthmonitor(s,
                           fmt::format(R"({{"healthmonitor": {{"pool_id": "{}", "type": "HTTPS",
      "delay": 5, "timeout": 2, "max_retries": 2, "max_retries_down": 4, "url_path": "/readyz",
      "expected_codes": "200-204", "http_version": 1.1, "domain_name": "api.k8s"}}}})",
                                       p),
                           c));
  return s;
}

class StoreFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("vigil-store-{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::chmod(dir_.c_str(), 0700);
    fs::remove_all(dir_);
  }
  std::string path(std::string_view name = "state.json") { return (dir_ / name).string(); }
  void write(const std::string& text) { std::ofstream(path()) << text; }

  fs::path dir_;
};

TEST_F(StoreFileTest, RoundTripKeepsEveryField) {
  const ApiState s = sample_state();
  const std::string text = state_to_json(s);
  auto back = state_from_json(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(state_to_json(*back), text);
  // Put together from each load balancer's text, it is what Boost.JSON writes for the whole.
  EXPECT_EQ(text, boost::json::serialize(boost::json::parse(text)) + "\n");
  const ApiHealthMonitor& hm = *back->loadbalancers[0].pools[0].healthmonitor;
  EXPECT_EQ(hm.domain_name, "api.k8s");
  EXPECT_EQ(hm.http_version, 1.1);
  EXPECT_EQ(back->loadbalancers[0].listeners[0].timeout_client_data, 600000);
  EXPECT_EQ(back->loadbalancers[0].tags, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(back->loadbalancers[0].topology, "ACTIVE_STANDBY");
}

// Operators' overrides of members (file members too) survive a restart, keyed by member id.
TEST_F(StoreFileTest, MemberOverridesRoundTripThroughTheStateFile) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE(store->commit(sample_state()));
  const model::AdminOverride drain{.state = model::AdminState::kDrain,
                                   .set_at = model::WallTime(std::chrono::seconds(1714564800)),
                                   .by = "CLI"};
  const model::AdminOverride weight{.weight = 0, .by = "Octavia API"};
  ASSERT_TRUE(store->set_override("file-member-1", drain));
  ASSERT_TRUE(store->set_override("file-member-2", weight));
  ASSERT_TRUE(store->set_override("file-member-2", std::nullopt)) << "ready removes it";
  ASSERT_TRUE(store->set_override("never-set", std::nullopt)) << "nothing to remove";
  ASSERT_TRUE(store->commit(sample_state())) << "an Octavia write";
  EXPECT_EQ(store->state().member_overrides.size(), 1u) << "leaves the overrides alone";

  auto again = ObjectStore::load(path());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->state().member_overrides.size(), 1u);
  ASSERT_TRUE(again->state().member_overrides.contains("file-member-1"));
  EXPECT_EQ(again->state().member_overrides.at("file-member-1"), drain);
  EXPECT_EQ(again->state().loadbalancers.size(), 1u) << "the objects stay";
  // A state file written before overrides existed has none.
  EXPECT_TRUE(state_from_json(state_to_json(sample_state()))->member_overrides.empty());
  EXPECT_EQ(state_to_json(sample_state()).find("member_overrides"), std::string::npos);
}

TEST_F(StoreFileTest, ABadOverrideInTheStateFileNamesTheMember) {
  write(R"({"version": 1, "loadbalancers": [],
            "member_overrides": {"m-1": {"state": "off", "weight": null, "by": "CLI"}}})");
  auto store = ObjectStore::load(path());
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("member_overrides.m-1: state must be ready, drain or maint"),
            std::string::npos)
      << store.error().message;
}

TEST_F(StoreFileTest, CommitWritesTheFileAndLoadReadsIt) {
  auto empty = ObjectStore::load(path());  // missing: the first start
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(empty->state().loadbalancers.empty());
  ASSERT_TRUE(empty->commit(sample_state()));
  auto again = ObjectStore::load(path());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(state_to_json(again->state()), state_to_json(sample_state()));
  // Only the file and its journal are left behind: the temporary file was renamed over it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
  EXPECT_TRUE(fs::exists(path("state.json.journal")));
}

// What a store saves (the state file and its journal) loads back as the state it had, after
// creates, changes in place, deletes, overrides and a failed write.
TEST_F(StoreFileTest, EveryWriteIsSavedThoughOnlyWhatChangedIsWritten) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store) << store.error().message;
  const auto saved = [&] {
    auto loaded = ObjectStore::load(path());
    return loaded && state_to_json(loaded->state()) == state_to_json(store->state());
  };
  int ids = 100;
  const OpContext c{.now = "2024-05-02T12:00:00",
                    .new_id = [&] { return fmt::format("00000000-0000-4000-8000-{:012}", ++ids); },
                    .is_local_address = is_local_address};
  ApiState next = sample_state();
  ASSERT_TRUE(store->commit(next));
  ASSERT_TRUE(saved());
  const std::string state_file = *read_file(path());
  for (const char* name : {"second", "third"}) {
    ASSERT_TRUE(
        create_loadbalancer(next, fmt::format(R"({{"loadbalancer": {{"name": "{}"}}}})", name), c));
    ASSERT_TRUE(store->commit(next));
    ASSERT_TRUE(saved()) << name;
  }
  next.loadbalancers.edit(0).pools[0].members[0].weight = 7;  // in place, in the first
  ASSERT_TRUE(store->commit(next));
  ASSERT_TRUE(saved());
  EXPECT_NE(read_file(path("state.json.journal"))->find("\"weight\":7"), std::string::npos);
  next.loadbalancers.erase(1);
  ASSERT_TRUE(store->commit(next));
  ASSERT_TRUE(saved());
  ASSERT_TRUE(store->set_override("m-1", model::AdminOverride{.weight = 0, .by = "CLI"}));
  ASSERT_TRUE(saved());
  EXPECT_EQ(*read_file(path()), state_file) << "the journal took every write since";

  next.loadbalancers.edit(1).name = "renamed";
  set_fsync_for_tests([](int) {
    errno = EIO;
    return -1;
  });
  ASSERT_FALSE(store->commit(next));
  set_fsync_for_tests(nullptr);
  EXPECT_NE(store->state().loadbalancers[1].name, "renamed");
  ASSERT_TRUE(saved()) << "the failed write's line was cut off";
  next.loadbalancers.edit(0).name = "after the failure";
  ASSERT_TRUE(store->commit(next));
  ASSERT_TRUE(saved());
  auto again = ObjectStore::load(path());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->state().loadbalancers[1].name, "renamed");
  EXPECT_EQ(again->state().loadbalancers[0].name, "after the failure");
}

// A write that changes members only journals those members: a line's size does not grow with the
// pool (at 1,000 members the whole load balancer was about 300 KB a write), and what loads back is
// the state the writes left, in the same order, also once the state file is written whole.
TEST_F(StoreFileTest, AMemberWriteJournalsTheMemberNotItsLoadBalancer) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store) << store.error().message;
  int ids = 100;
  const OpContext c{.now = "2024-05-02T12:00:00",
                    .new_id = [&] { return fmt::format("00000000-0000-4000-8000-{:012}", ++ids); },
                    .is_local_address = is_local_address};
  ApiState next = sample_state();
  const std::string pool = next.loadbalancers[0].pools[0].id;
  const auto add = [&](int i) {
    return create_member(next, pool,
                         fmt::format(R"({{"member": {{"address": "10.1.{}.{}", "protocol_port":
                         6443}}}})",
                                     i / 250, i % 250 + 1),
                         c);
  };
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(add(i));
  ASSERT_TRUE(store->commit(next));
  const auto journal_size = [&] { return read_file(path("state.json.journal"))->size(); };
  const auto saved = [&] {
    auto loaded = ObjectStore::load(path());
    return loaded && state_to_json(loaded->state()) == state_to_json(store->state());
  };
  size_t before = journal_size();
  auto made = add(300);
  ASSERT_TRUE(made);
  ASSERT_TRUE(store->commit(next));
  EXPECT_LT(journal_size() - before, 1000u) << "one member's line, not 300 members'";
  EXPECT_NE(read_file(path("state.json.journal"))->find("\"members\":[{"), std::string::npos);
  ASSERT_TRUE(saved());

  before = journal_size();
  ASSERT_TRUE(update_member(next, next.loadbalancers[0].pools[0].members[5].id,
                            R"({"member": {"weight": 9}})", c));
  ASSERT_TRUE(store->commit(next));
  EXPECT_LT(journal_size() - before, 1000u);
  ASSERT_TRUE(saved());
  before = journal_size();
  ASSERT_TRUE(delete_member(next, next.loadbalancers[0].pools[0].members[0].id));
  ASSERT_TRUE(store->commit(next));
  EXPECT_LT(journal_size() - before, 1000u);
  ASSERT_TRUE(saved());

  // A change beside the members is the whole load balancer again.
  next.loadbalancers.edit(0).pools[0].name = "renamed";
  ASSERT_TRUE(add(301));
  ASSERT_TRUE(store->commit(next));
  EXPECT_GT(journal_size() - before, 10000u);
  ASSERT_TRUE(saved());

  // Written whole (as at a stop), the state file holds what the journal held.
  ASSERT_TRUE(add(302));
  ASSERT_TRUE(store->commit(next));
  auto folded = store->fold();
  ASSERT_TRUE(folded && *folded);
  ASSERT_TRUE(saved());
  auto alone = state_from_json(*read_file(path()), nullptr);
  ASSERT_TRUE(alone) << alone.error().message;
  EXPECT_EQ(state_to_json(*alone), state_to_json(store->state()));
}

// A journal line whose members name a load balancer or pool that is not there is refused whole,
// with what is wrong: the state is left as it was.
TEST(StateJournalRecord, MembersOfWhatIsNotThereAreRefused) {
  ApiState state = sample_state();
  const std::string before = state_to_json(state);
  const std::string lb = state.loadbalancers[0].id;
  for (const std::string& record :
       {fmt::format(R"({{"members":[{{"loadbalancer_id":"{}","pool_id":"nope","put":[],)"
                    R"("delete":[]}}]}})",
                    lb),
        std::string(
            R"({"members":[{"loadbalancer_id":"nope","pool_id":"p","put":[],"delete":[]}]})"),
        std::string(R"({"members":[{"loadbalancer_id":"x"}]})"),
        std::string(R"({"members":{}})")}) {
    auto applied = apply_record(record, state);
    EXPECT_FALSE(applied) << record;
    EXPECT_EQ(state_to_json(state), before) << record;
  }
}

// Once the journal is as large as the state file (1 MiB at least), the state file is written
// whole, with a new journal id, and the journal starts over.
TEST_F(StoreFileTest, AFullJournalIsFoldedIntoANewStateFile) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store) << store.error().message;
  int ids = 0;
  const OpContext c{.now = "2024-05-02T12:00:00",
                    .new_id = [&] { return fmt::format("00000000-0000-4000-8000-{:012}", ++ids); },
                    .is_local_address = is_local_address};
  ApiState next = store->state();
  ASSERT_TRUE(create_loadbalancer(next, R"({"loadbalancer": {"name": "first"}})", c));
  ASSERT_TRUE(store->commit(next));
  const std::string first = *read_file(path());
  const std::string description(200, 'd');
  int writes = 0;
  while (*read_file(path()) == first && writes < 20'000) {
    next.loadbalancers.edit(0).description = fmt::format("{}{}", writes, description);
    ASSERT_TRUE(store->commit(next));
    ++writes;
  }
  ASSERT_NE(*read_file(path()), first) << "never folded";
  const size_t line = lb_to_json(next.loadbalancers[0]).size() + 12;  // {"put":[...]}\n
  EXPECT_GE(static_cast<size_t>(writes) * line, size_t{1} << 20) << "1 MiB of journal first";
  EXPECT_LT(read_file(path("state.json.journal"))->size(), 1000u) << "started over";
  auto again = ObjectStore::load(path());
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(state_to_json(again->state()), state_to_json(store->state()));
}

// Folding writes the state file whole when the journal holds writes, so that the state file alone
// (what a vigil from before the journal reads) has every object; with nothing in the journal it
// writes nothing.
TEST_F(StoreFileTest, FoldingLeavesEveryObjectInTheStateFileAlone) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE(store->commit(sample_state()));  // the first write: the whole file
  const auto folded = store->fold();
  ASSERT_TRUE(folded) << folded.error().message;
  EXPECT_FALSE(*folded) << "nothing in the journal yet";
  ApiState next = store->state();
  next.loadbalancers.edit(0).name = "journaled";
  ASSERT_TRUE(store->commit(next));
  ASSERT_TRUE(store->set_override("m-1", model::AdminOverride{.weight = 0, .by = "CLI"}));
  const std::string before = *read_file(path());
  ASSERT_EQ(before.find("journaled"), std::string::npos) << "in the journal only";

  const auto again = store->fold();
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(*again);
  EXPECT_NE(*read_file(path()), before);
  EXPECT_LT(read_file(path("state.json.journal"))->size(), 100u) << "started over";
  // What a vigil from before the journal reads: the state file alone.
  auto alone = state_from_json(*read_file(path()));
  ASSERT_TRUE(alone) << alone.error().message;
  EXPECT_EQ(state_to_json(*alone), state_to_json(store->state()));
  EXPECT_EQ(alone->loadbalancers[0].name, "journaled");
  EXPECT_EQ(alone->member_overrides.count("m-1"), 1u);

  // A store loaded beside a journal that holds writes folds them.
  auto loaded = ObjectStore::load(path());
  ASSERT_TRUE(loaded) << loaded.error().message;
  ApiState later = loaded->state();
  later.loadbalancers.edit(0).name = "later";
  ASSERT_TRUE(loaded->commit(later));
  loaded = ObjectStore::load(path());
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(*loaded->fold());
  EXPECT_EQ(state_from_json(*read_file(path()))->loadbalancers[0].name, "later");
}

// A journal is replayed only beside the state file that names it; beside another (a backup put
// back) or none, its writes refuse the start rather than vanish.
TEST_F(StoreFileTest, AJournalOfAnotherStateFileIsNotReplayed) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store->commit(sample_state()));
  ApiState next = store->state();
  next.loadbalancers.edit(0).name = "journaled";
  ASSERT_TRUE(store->commit(next));
  ASSERT_EQ(ObjectStore::load(path())->state().loadbalancers[0].name, "journaled");
  const std::string current = *read_file(path());

  write(state_to_json(sample_state()));  // a backup that names no journal
  auto restored = ObjectStore::load(path());
  ASSERT_FALSE(restored);
  EXPECT_NE(restored.error().message.find("holds 1 acknowledged writes made on top of another"),
            std::string::npos)
      << restored.error().message;
  ASSERT_TRUE(
      write_file_atomic(path("state.json.journal.saved"), *read_file(path("state.json.journal"))));
  std::ofstream(path("state.json.journal"), std::ios::trunc).flush();  // as the message says
  restored = ObjectStore::load(path());
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ(restored->state().loadbalancers[0].name, "k8s") << "the backup as it was";

  // The pair that goes together, put back, is whole again.
  write(current);
  fs::rename(path("state.json.journal.saved"), path("state.json.journal"));
  ASSERT_EQ(ObjectStore::load(path())->state().loadbalancers[0].name, "journaled");

  // The state file gone while its journal holds writes: starting empty would lose them at the
  // next write, so the load refuses and says what to do.
  fs::remove(path());
  auto orphaned = ObjectStore::load(path());
  ASSERT_FALSE(orphaned);
  EXPECT_NE(orphaned.error().message.find(path() + " is missing, but its journal"),
            std::string::npos)
      << orphaned.error().message;
  EXPECT_NE(orphaned.error().message.find("holds 1 acknowledged writes"), std::string::npos);
  fs::rename(path() + ".journal", path() + ".journal.moved");
  ASSERT_TRUE(ObjectStore::load(path())->state().loadbalancers.empty())
      << "with the journal moved away too, it starts without those objects";
}

// The journal removed while its writes are owed: the start refuses, naming it, rather than
// starting without them; emptied on purpose, it starts with the state file alone.
TEST_F(StoreFileTest, AMissingJournalRefusesTheStart) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store->commit(sample_state()));
  ApiState next = store->state();
  next.loadbalancers.edit(0).name = "journaled";
  ASSERT_TRUE(store->commit(next));
  store = std::unexpected(Error{});  // the process is gone
  fs::remove(path("state.json.journal"));
  auto refused = ObjectStore::load(path());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("names the journal " + path("state.json.journal") +
                                         ", which is missing"),
            std::string::npos)
      << refused.error().message;
  std::ofstream(path("state.json.journal")).flush();
  auto alone = ObjectStore::load(path());
  ASSERT_TRUE(alone) << alone.error().message;
  EXPECT_EQ(alone->state().loadbalancers[0].name, "k8s");
  next = alone->state();
  next.loadbalancers.edit(0).name = "after";
  ASSERT_TRUE(alone->commit(next));
  EXPECT_EQ(ObjectStore::load(path())->state().loadbalancers[0].name, "after");
}

// Removed under the running process, the journal (or the state file) is written anew, whole, at
// the next write: no write is owed to a file that is gone.
TEST_F(StoreFileTest, FilesRemovedWhileRunningAreWrittenAnewAtTheNextWrite) {
  for (const std::string name : {"state.json.journal", "state.json"}) {
    SCOPED_TRACE(name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto store = ObjectStore::load(path());
    ASSERT_TRUE(store->commit(sample_state()));
    fs::remove(path(name));
    ApiState next = store->state();
    next.loadbalancers.edit(0).name = "after the removal";
    ASSERT_TRUE(store->commit(next));
    next.loadbalancers.edit(0).description = "and one more";
    ASSERT_TRUE(store->commit(next));
    auto again = ObjectStore::load(path());
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->state().loadbalancers[0].name, "after the removal");
    EXPECT_EQ(again->state().loadbalancers[0].description, "and one more");
  }
}

// A start of a new journal cut short: a `.next` of the state file on disk is its journal; one of
// a state file never renamed in is removed.
TEST_F(StoreFileTest, ADotNextIsTheJournalOfTheStateFileThatNamesIt) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store->commit(sample_state()));
  ApiState next = store->state();
  next.loadbalancers.edit(0).name = "journaled";
  ASSERT_TRUE(store->commit(next));
  store = std::unexpected(Error{});
  // As if the process died between renaming the state file in and renaming `.next` over it.
  fs::rename(path("state.json.journal"), path("state.json.journal.next"));
  auto resumed = ObjectStore::load(path());
  ASSERT_TRUE(resumed) << resumed.error().message;
  EXPECT_EQ(resumed->state().loadbalancers[0].name, "journaled");
  EXPECT_FALSE(fs::exists(path("state.json.journal.next")));
  EXPECT_TRUE(fs::exists(path("state.json.journal")));
  resumed = std::unexpected(Error{});

  ASSERT_TRUE(write_file_atomic(path("state.json.journal.next"), "{\"journal\":\"other\"}\n"));
  auto loaded = ObjectStore::load(path());
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->state().loadbalancers[0].name, "journaled");
  EXPECT_FALSE(fs::exists(path("state.json.journal.next")));
}

TEST_F(StoreFileTest, ALineCutShortIsLeftOutAndABadOneStopsTheLoad) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store->commit(sample_state()));
  ApiState next = store->state();
  next.loadbalancers.edit(0).name = "kept";
  ASSERT_TRUE(store->commit(next));
  const std::string journal = path("state.json.journal");
  const std::string good = *read_file(journal);
  std::ofstream(journal, std::ios::app) << R"({"put":[{"id":)";  // died mid-write
  auto loaded = ObjectStore::load(path());
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->state().loadbalancers[0].name, "kept");
  EXPECT_EQ(*read_file(journal), good) << "cut off, so that the next line starts clean";
  next = loaded->state();
  next.loadbalancers.edit(0).name = "after";
  ASSERT_TRUE(loaded->commit(next));
  EXPECT_EQ(ObjectStore::load(path())->state().loadbalancers[0].name, "after");

  std::ofstream(journal, std::ios::app) << R"({"delete": "not a list"})"
                                        << "\n";
  auto refused = ObjectStore::load(path());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("state.json.journal: record 3: \"delete\" must be a list"),
            std::string::npos)
      << refused.error().message;
}

TEST_F(StoreFileTest, LoadRemovesTemporariesLeftByADeadProcess) {
  ASSERT_TRUE(ObjectStore::load(path())->commit(sample_state()));
  // pid 999999999 is above any pid_max: a process killed between create and rename.
  ASSERT_TRUE(write_file_atomic(path() + ".tmp.999999999.0123456789abcdef", "{\"torn"));
  ASSERT_TRUE(ObjectStore::load(path()));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2)
      << "the state file and its journal";
}

TEST_F(StoreFileTest, AFailedWriteKeepsTheStateAndTheOldFile) {
  auto store = ObjectStore::load(path());
  ASSERT_TRUE(store->commit(ApiState{}));
  const std::string before = *read_file(path());
  // A disk that fails the sync (base/file.h's seam): fails even for root.
  set_fsync_for_tests([](int) {
    errno = EIO;
    return -1;
  });
  auto failed = store->commit(sample_state());
  set_fsync_for_tests(nullptr);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("cannot save the API objects"), std::string::npos);
  EXPECT_TRUE(store->state().loadbalancers.empty());
  EXPECT_EQ(*read_file(path()), before);
}

TEST_F(StoreFileTest, ACorruptFileIsAnErrorNamingFileAndProblem) {
  struct Case {
    std::string text, message;
  };
  std::string bad_port = state_to_json(sample_state());
  bad_port.replace(bad_port.find("\"protocol_port\":7001"), 20, "\"protocol_port\":70000");
  const std::vector<Case> cases = {
      {"{\"version\": 1, \"loadbal", "not valid JSON"},
      {"[]", "expected a JSON object"},
      {R"({"version": 2, "loadbalancers": []})", "unknown format version 2"},
      {R"({"version": 1})", "\"loadbalancers\" must be a list"},
      {R"({"version": 1, "loadbalancers": [{"name": "x"}]})",
       "loadbalancers[0]: Invalid input for field/attribute id. Value: 'None'. Mandatory"},
      {bad_port,
       "loadbalancers[0].pools[0].members[0]: Invalid input for field/attribute "
       "protocol_port. Value: '70000'. Value should be lower or equal to 65535"},
  };
  for (const Case& c : cases) {
    write(c.text);
    auto r = ObjectStore::load(path());
    ASSERT_FALSE(r) << c.text;
    EXPECT_NE(r.error().message.find(path()), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos) << r.error().message;
  }
  ::chmod(path().c_str(), 0);
  if (::geteuid() != 0) {
    EXPECT_FALSE(ObjectStore::load(path()));
  }
}

TEST_F(StoreFileTest, NoStateFileKeepsObjectsInMemory) {
  ObjectStore store;
  ASSERT_TRUE(store.commit(sample_state()));
  EXPECT_EQ(store.state().loadbalancers.size(), 1u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 0);
}

TEST(StoreConfig, ApiObjectsBecomeConfigsNamedByTheirIds) {
  const ApiState s = sample_state();
  const std::vector<model::Config> configs = ObjectStore::configs_of(s);
  ASSERT_EQ(configs.size(), 1u);
  const model::Config& c = configs[0];
  const ApiLoadBalancer& lb = s.loadbalancers[0];
  EXPECT_EQ(c.origin, model::Origin::kApi);
  EXPECT_EQ(c.id, lb.id);
  ASSERT_EQ(c.listeners.size(), 1u);
  const model::Listener& l = c.listeners[0];
  EXPECT_EQ(l.id, lb.listeners[0].id);
  EXPECT_EQ(l.name, l.id);
  EXPECT_EQ(l.bind_address, "127.0.0.1");
  EXPECT_EQ(l.port, 16443);
  EXPECT_EQ(l.pool, lb.pools[0].id);
  EXPECT_EQ(l.max_connections, 100);
  EXPECT_EQ(l.idle_timeout, std::chrono::minutes(10));
  const model::Pool& p = c.pools.at(0);
  EXPECT_EQ(p.name, p.id);
  EXPECT_EQ(p.algorithm, model::Algorithm::kLeastConnections);
  EXPECT_EQ(p.connect_timeout, std::chrono::seconds(2));
  ASSERT_TRUE(p.health_monitor);
  EXPECT_EQ(p.health_monitor->id, lb.pools[0].healthmonitor->id);
  EXPECT_EQ(p.health_monitor->type, model::MonitorType::kHttps);
  EXPECT_EQ(p.health_monitor->path, "/readyz");
  EXPECT_EQ(p.health_monitor->host, "api.k8s");
  EXPECT_EQ(p.health_monitor->interval, std::chrono::seconds(5));
  EXPECT_EQ(p.health_monitor->timeout, std::chrono::seconds(2));
  EXPECT_EQ(p.health_monitor->healthy_threshold, 2);
  EXPECT_EQ(p.health_monitor->unhealthy_threshold, 4);
  EXPECT_TRUE(p.health_monitor->expected_codes.contains(204));
  ASSERT_EQ(p.members.size(), 2u);
  EXPECT_EQ(p.members[0].name, p.members[0].id);  // both are called "m1" by their users
  EXPECT_EQ(p.members[0].monitor_port, 7101);
  EXPECT_TRUE(p.members[0].enabled);
  EXPECT_FALSE(p.members[1].enabled);
  EXPECT_TRUE(p.members[1].backup);
  EXPECT_EQ(p.members[1].weight, 0);
}

TEST(StoreConfig, PoolProtocolsProxyAndProxyV2SendTheHeader) {
  const std::pair<const char*, model::ProxyProtocol> cases[] = {
      {"TCP", model::ProxyProtocol::kOff},
      {"PROXY", model::ProxyProtocol::kV1},
      {"PROXYV2", model::ProxyProtocol::kV2},
  };
  for (const auto& [protocol, expected] : cases) {
    ApiState s = sample_state();
    const OpContext c{.now = "2024-05-01T12:00:00",
                      .new_id = [] { return std::string("00000000-0000-4000-8000-000000000099"); },
                      .is_local_address = is_local_address};
    auto p = create_pool(s,
                         fmt::format(R"({{"pool": {{"loadbalancer_id": "{}", "protocol": "{}",
      "lb_algorithm": "ROUND_ROBIN"}}}})",
                                     s.loadbalancers[0].id, protocol),
                         c);
    ASSERT_TRUE(p) << protocol;
    const model::Config config = config_of(s.loadbalancers[0]);
    ASSERT_EQ(config.pools.size(), 2u);
    EXPECT_EQ(config.pools[1].proxy_protocol, expected) << protocol;
  }
  ApiState s = sample_state();
  const OpContext c{.now = "2024-05-01T12:00:00",
                    .new_id = [] { return std::string("00000000-0000-4000-8000-000000000099"); },
                    .is_local_address = is_local_address};
  EXPECT_FALSE(create_pool(s,
                           fmt::format(R"({{"pool": {{"loadbalancer_id": "{}", "protocol": "UDP",
      "lb_algorithm": "ROUND_ROBIN"}}}})",
                                       s.loadbalancers[0].id),
                           c));
}

TEST(StoreConfig, DisabledObjectsAreNotRun) {
  ApiState s = sample_state();
  s.loadbalancers.edit(0).listeners[0].admin_state_up = false;
  s.loadbalancers.edit(0).pools[0].healthmonitor->admin_state_up = false;
  s.loadbalancers.edit(0).pools[0].admin_state_up = false;
  const model::Config c = config_of(s.loadbalancers[0]);
  EXPECT_TRUE(c.listeners.empty());
  EXPECT_FALSE(c.pools[0].health_monitor);
  EXPECT_FALSE(c.pools[0].members[0].enabled);
  // The views still show them.
  const model::Config shown = config_of(s.loadbalancers[0], Purpose::kShow);
  EXPECT_EQ(shown.listeners.size(), 1u);
  EXPECT_TRUE(shown.pools[0].health_monitor);
}

TEST(StoreConfig, ActiveStandbyListenersUseFreebind) {
  ApiState s = sample_state();
  s.loadbalancers.edit(0).topology = "SINGLE";
  const model::Config single = config_of(s.loadbalancers[0]);
  EXPECT_EQ(single.vip_address, s.loadbalancers[0].vip_address);
  EXPECT_FALSE(single.listeners[0].freebind);
  s.loadbalancers.edit(0).topology = "ACTIVE_STANDBY";
  EXPECT_TRUE(config_of(s.loadbalancers[0]).listeners[0].freebind);
  // The address stays known without a listener: `vigil health --vips-file` reads it.
  s.loadbalancers.edit(0).listeners.clear();
  EXPECT_EQ(config_of(s.loadbalancers[0]).vip_address, s.loadbalancers[0].vip_address);
}

TEST(ApiViews, BuiltFromTheStoreWithTheDaemonsLiveState) {
  auto store = ObjectStore::load("");
  ASSERT_TRUE(store->commit(sample_state()));
  const ApiLoadBalancer& lb = store->state().loadbalancers[0];
  model::LoadBalancerView file{.id = "file-lb", .name = "vigil", .source_file = "/etc/v.yaml"};
  // Before the daemon runs the API's load balancer: statuses as before a first check.
  std::vector<model::LoadBalancerView> views = merged_views({file}, &*store);
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[0].id, "file-lb");
  const model::LoadBalancerView& v = views[1];
  EXPECT_EQ(v.name, "k8s");
  EXPECT_EQ(v.vip_address, lb.vip_address);  // `vigil health --vips-file` reads it
  EXPECT_EQ(v.pools[0].config.name, "");     // as its user named it
  EXPECT_EQ(v.pools[0].members[0].config.name, "m1");
  EXPECT_EQ(v.pools[0].members[0].operating_status, model::OperatingStatus::kOffline);
  EXPECT_EQ(v.pools[0].members[1].operating_status, model::OperatingStatus::kOffline);
  EXPECT_EQ(v.listeners[0].default_pool_id, lb.pools[0].id);
  EXPECT_EQ(v.pools[0].listener_ids, std::vector<std::string>{lb.listeners[0].id});
  EXPECT_EQ(v.pools[0].health_monitor_id, lb.pools[0].healthmonitor->id);
  // With the daemon's view of the same ids: its statuses and counters.
  model::LoadBalancerView live{.id = lb.id, .name = lb.id};
  model::PoolView pool{.id = lb.pools[0].id, .operating_status = model::OperatingStatus::kDegraded};
  pool.members.push_back({.id = lb.pools[0].members[0].id,
                          .operating_status = model::OperatingStatus::kError,
                          .health = model::Health::kDown,
                          .consecutive_failures = 4});
  live.pools.push_back(pool);
  live.listeners.push_back({.id = lb.listeners[0].id,
                            .bound = "127.0.0.1:16443",
                            .operating_status = model::OperatingStatus::kDegraded,
                            .total_connections = 7});
  views = merged_views({file, live}, &*store);
  ASSERT_EQ(views.size(), 2u);
  const model::LoadBalancerView& w = views[1];
  EXPECT_EQ(w.pools[0].members[0].operating_status, model::OperatingStatus::kError);
  EXPECT_EQ(w.pools[0].members[0].consecutive_failures, 4);
  EXPECT_EQ(w.pools[0].members[0].config.name, "m1");
  EXPECT_EQ(w.pools[0].operating_status, model::OperatingStatus::kDegraded);
  EXPECT_EQ(w.listeners[0].bound, "127.0.0.1:16443");
  EXPECT_EQ(w.listeners[0].total_connections, 7u);
  EXPECT_EQ(w.operating_status, model::OperatingStatus::kDegraded);
}

}  // namespace
}  // namespace vigil::admin
