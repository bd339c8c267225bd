// The status page for browsers through route(): sign-in with a form and a session cookie, sign
// out, the write session's buttons guarded by CSRF token and origin, and what the page shows.
#include <gtest/gtest.h>

#include "admin/cookie.h"
#include "admin/fake_daemon_test.h"
#include "admin/login_sessions.h"
#include "admin/routes.h"
#include "admin/sign_in_throttle.h"
#include "admin/sparkline.h"
#include "admin/status_page.h"

namespace vigil::admin {
namespace {

using namespace std::chrono_literals;

std::string header_of(const Response& r, std::string_view name) {
  for (const auto& [n, v] : r.headers) {
    if (n == name) return v;
  }
  return "";
}

// The value of the first `<input ... name="NAME" value="V">` in a page.
std::string hidden(const std::string& page, std::string_view name) {
  const std::string key = "name=\"" + std::string(name) + "\" value=\"";
  const size_t at = page.find(key);
  if (at == std::string::npos) return "";
  const size_t from = at + key.size();
  return page.substr(from, page.find('"', from) - from);
}

size_t count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class PageTest : public ::testing::Test {
 protected:
  Response call(std::string_view method, std::string_view target, std::string_view cookie,
                std::string_view body = "", std::string_view origin = "",
                std::string_view fetch_site = "") {
    const Request r{.method = method,
                    .target = target,
                    .body = body,
                    .cookie = cookie,
                    .host = "127.0.0.1:8404",
                    .origin = origin,
                    .sec_fetch_site = fetch_site,
                    .source = source_};
    return route(r, RouteContext{.token = "W",
                                 .read_token = "R",
                                 .daemon = daemon_,
                                 .now = now_,
                                 .logins = &logins_,
                                 .throttle = &throttle_});
  }
  // Signs in with `token`; the Cookie header to send from then on.
  std::string sign_in(std::string_view token) {
    const Response r = call("POST", "/login", "", "token=" + std::string(token),
                            "http://127.0.0.1:8404", "same-origin");
    EXPECT_EQ(r.status, 303) << r.body;
    EXPECT_EQ(header_of(r, "Location"), "/");
    const std::string set = header_of(r, "Set-Cookie");
    EXPECT_NE(set.find("HttpOnly; SameSite=Strict; Path=/"), std::string::npos) << set;
    return set.substr(0, set.find(';'));
  }

  model::WallTime now_ = testing::kNow;
  std::string source_ = "192.0.2.7";
  LoginSessions logins_;
  SignInThrottle throttle_;
  testing::FakeDaemon daemon_;
};

TEST_F(PageTest, ABrowserWithoutCredentialsIsSentToTheForm) {
  const Response r = call("GET", "/", "");
  EXPECT_EQ(r.status, 303);
  EXPECT_EQ(header_of(r, "Location"), "/login");
  const Response form = call("GET", "/login", "");
  EXPECT_EQ(form.status, 200);
  EXPECT_NE(form.body.find(R"(<form method="post" action="/login">)"), std::string::npos);
  EXPECT_NE(form.body.find(R"(type="password")"), std::string::npos);
  EXPECT_NE(header_of(form, "Content-Security-Policy").find("default-src 'none'"),
            std::string::npos);
}

TEST_F(PageTest, AWrongTokenShowsTheFormAgainAndNoCookie) {
  const Response r = call("POST", "/login", "", "token=nope");
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(r.body.find("wrong token"), std::string::npos);
  EXPECT_EQ(header_of(r, "Set-Cookie"), "");
  EXPECT_EQ(logins_.size(), 0u);
}

TEST_F(PageTest, WrongTokensFromOneSourceAreThrottledUncheckedAndOthersSignIn) {
  for (int i = 0; i <= SignInThrottle::kFree; ++i) {
    EXPECT_EQ(call("POST", "/login", "", "token=guess").status, 401) << i;
  }
  // Waiting: not even the right token is checked, so a guess tells nothing.
  const Response held = call("POST", "/login", "", "token=W");
  EXPECT_EQ(held.status, 429);
  EXPECT_EQ(header_of(held, "Retry-After"), "1");
  EXPECT_NE(held.body.find("try again in 1 s"), std::string::npos);
  EXPECT_EQ(logins_.size(), 0u);
  source_ = "192.0.2.8";  // another address signs in meanwhile
  sign_in("W");
  source_ = "192.0.2.7";
  now_ += 1s;
  sign_in("W");  // waited: checked, and the right token clears the source
  EXPECT_EQ(throttle_.size(), 0u);
}

TEST_F(PageTest, TheCookieIsARandomIdNotTheToken) {
  const std::string cookie = sign_in("R");
  const std::string id = cookie.substr(cookie.find('=') + 1);
  EXPECT_EQ(id.size(), 64u);
  EXPECT_EQ(id.find('R'), std::string::npos);
  EXPECT_NE(sign_in("R"), cookie) << "each sign-in gets its own id";
}

TEST_F(PageTest, AReadSessionSeesThePageAndReadsButNoButtons) {
  const std::string cookie = sign_in("R");
  const Response page = call("GET", "/", cookie);
  ASSERT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("signed in with the read-only token"), std::string::npos);
  EXPECT_EQ(page.body.find("/page/member"), std::string::npos);
  EXPECT_EQ(page.body.find("<button type=\"submit\" class=\"drain\""), std::string::npos);
  EXPECT_EQ(call("GET", "/v1/status", cookie).status, 200);
  // A cookie never writes through the API: the browser sends it on its own.
  EXPECT_EQ(
      call("PUT", "/v1/pools/masters/members/master-01/admin", cookie, R"({"state": "drain"})")
          .status,
      401);
  const std::string csrf = hidden(page.body, "csrf");
  ASSERT_FALSE(csrf.empty());
  const Response button = call("POST", "/page/member", cookie,
                               "csrf=" + csrf + "&pool=masters&member=master-01&state=drain");
  EXPECT_EQ(button.status, 403);
  EXPECT_TRUE(daemon_.overrides.empty());
}

TEST_F(PageTest, AWriteSessionsButtonsDrainAndReady) {
  const std::string cookie = sign_in("W");
  const Response page = call("GET", "/", cookie);
  ASSERT_EQ(page.status, 200);
  const auto lb = testing::sample_view();
  EXPECT_EQ(count(page.body, "class=\"drain\""), 4u) << "one per member of both pools";
  const std::string csrf = hidden(page.body, "csrf");
  const model::MemberView& m = lb.pools[0].members[0];
  const Response r =
      call("POST", "/page/member", cookie,
           "csrf=" + csrf + "&pool=" + lb.pools[0].id + "&member=" + m.id + "&state=drain&do=drain",
           "http://127.0.0.1:8404", "same-origin");
  EXPECT_EQ(r.status, 303) << r.body;
  EXPECT_EQ(header_of(r, "Location"), "/");
  ASSERT_EQ(daemon_.overrides.size(), 1u);
  EXPECT_EQ(daemon_.overrides[0].first, m.id);
  ASSERT_TRUE(daemon_.overrides[0].second);
  EXPECT_EQ(daemon_.overrides[0].second->state, model::AdminState::kDrain);
  EXPECT_EQ(daemon_.overrides[0].second->by, "status page");
  const Response ready = call("POST", "/page/member", cookie,
                              "csrf=" + csrf + "&pool=masters&member=master-02&state=ready");
  EXPECT_EQ(ready.status, 303) << ready.body;
  ASSERT_EQ(daemon_.overrides.size(), 2u);
  EXPECT_FALSE(daemon_.overrides[1].second) << "ready clears the override";
}

TEST_F(PageTest, AWriteSessionsMaintButtonPutsTheMemberInMaintenance) {
  const std::string cookie = sign_in("W");
  const Response page = call("GET", "/", cookie);
  EXPECT_EQ(count(page.body, "class=\"maint\""), 4u) << "one per member of both pools";
  const std::string csrf = hidden(page.body, "csrf");
  const Response r = call("POST", "/page/member", cookie,
                          "csrf=" + csrf + "&pool=masters&member=master-01&state=maint",
                          "http://127.0.0.1:8404", "same-origin");
  EXPECT_EQ(r.status, 303) << r.body;
  ASSERT_EQ(daemon_.overrides.size(), 1u);
  ASSERT_TRUE(daemon_.overrides[0].second);
  EXPECT_EQ(daemon_.overrides[0].second->state, model::AdminState::kMaint);
  // In maintenance: Drain and Ready, no second Maint.
  const std::string after = call("GET", "/", cookie).body;
  const size_t row = after.find(R"(data-member="master-01")");
  const std::string cells = after.substr(row, after.find("</tr>", row) - row);
  EXPECT_EQ(count(cells, "class=\"maint\""), 0u) << cells;
  EXPECT_EQ(count(cells, "class=\"drain\""), 1u) << cells;
  EXPECT_EQ(count(cells, "class=\"ready\""), 1u) << cells;
}

TEST_F(PageTest, KillSessionsAsksFirstThenKillsOnlyWhenConfirmed) {
  const std::string cookie = sign_in("W");
  const Response page = call("GET", "/", cookie);
  EXPECT_EQ(count(page.body, R"(action="/page/sessions")"), 4u) << "one per member";
  const std::string csrf = hidden(page.body, "csrf");
  const auto lb = testing::sample_view();
  const model::MemberView& m = lb.pools[0].members[0];
  const std::string form = "csrf=" + csrf + "&pool=" + lb.pools[0].id + "&member=" + m.id;
  const Response ask = call("POST", "/page/sessions", cookie, form, "http://127.0.0.1:8404");
  ASSERT_EQ(ask.status, 200) << ask.body;
  EXPECT_FALSE(ask.later) << "nothing closed yet";
  EXPECT_FALSE(daemon_.killed);
  EXPECT_NE(ask.body.find("Close the 4 established sessions of member <b>master-01</b>"),
            std::string::npos)
      << ask.body;
  EXPECT_EQ(hidden(ask.body, "confirm"), "yes");
  EXPECT_EQ(hidden(ask.body, "csrf"), csrf);
  EXPECT_NE(header_of(ask, "Content-Security-Policy").find("default-src 'none'"),
            std::string::npos);
  // Confirmed: the daemon closes them, and the browser goes back to the page.
  const Response done = call("POST", "/page/sessions", cookie,
                             "csrf=" + csrf + "&pool=" + hidden(ask.body, "pool") +
                                 "&member=" + hidden(ask.body, "member") + "&confirm=yes",
                             "http://127.0.0.1:8404");
  ASSERT_TRUE(done.later) << done.status << done.body;
  Response answer;
  done.later([&](Response a) { answer = std::move(a); });
  EXPECT_EQ(answer.status, 303) << answer.body;
  EXPECT_EQ(header_of(answer, "Location"), "/");
  EXPECT_EQ(daemon_.killed, std::vector<std::string>{m.id});
}

TEST_F(PageTest, KillSessionsNeedsTheWriteSessionAndItsCsrfToken) {
  const std::string form = "&pool=masters&member=master-01&confirm=yes";
  const std::string reader = sign_in("R");
  const std::string read_csrf = hidden(call("GET", "/", reader).body, "csrf");
  EXPECT_EQ(call("POST", "/page/sessions", reader, "csrf=" + read_csrf + form).status, 403);
  const std::string cookie = sign_in("W");
  const std::string csrf = hidden(call("GET", "/", cookie).body, "csrf");
  EXPECT_EQ(call("POST", "/page/sessions", cookie, "csrf=wrong" + form).status, 403);
  EXPECT_EQ(
      call("POST", "/page/sessions", cookie, "csrf=" + csrf + form, "http://evil.example").status,
      403);
  EXPECT_EQ(call("POST", "/page/sessions", "", "csrf=" + csrf + form).status, 401);
  EXPECT_EQ(
      call("POST", "/page/sessions", cookie, "csrf=" + csrf + "&pool=masters&member=nobody").status,
      404);
  EXPECT_FALSE(daemon_.killed);
  EXPECT_EQ(call("GET", "/page/sessions", cookie).status, 405);
}

TEST_F(PageTest, ButtonsWithoutTheCsrfTokenOrFromAnotherSiteAreRefused) {
  const std::string cookie = sign_in("W");
  const std::string csrf = hidden(call("GET", "/", cookie).body, "csrf");
  const std::string form = "&pool=masters&member=master-01&state=drain";
  EXPECT_EQ(call("POST", "/page/member", cookie, "csrf=wrong" + form).status, 403);
  EXPECT_EQ(call("POST", "/page/member", cookie, form.substr(1)).status, 403);
  EXPECT_EQ(
      call("POST", "/page/member", cookie, "csrf=" + csrf + form, "http://evil.example").status,
      403);
  EXPECT_EQ(call("POST", "/page/member", cookie, "csrf=" + csrf + form, "", "cross-site").status,
            403);
  // Another session's CSRF token does not fit this one.
  const std::string other = sign_in("W");
  const std::string other_csrf = hidden(call("GET", "/", other).body, "csrf");
  EXPECT_NE(other_csrf, csrf);
  EXPECT_EQ(call("POST", "/page/member", cookie, "csrf=" + other_csrf + form).status, 403);
  EXPECT_EQ(call("POST", "/page/member", "", "csrf=" + csrf + form).status, 401);
  EXPECT_TRUE(daemon_.overrides.empty());
  EXPECT_EQ(call("GET", "/page/member", cookie).status, 405);
}

TEST_F(PageTest, ALoginFromAnotherSiteIsRefused) {
  EXPECT_EQ(call("POST", "/login", "", "token=W", "http://evil.example").status, 403);
  EXPECT_EQ(call("POST", "/login", "", "token=W", "", "cross-site").status, 403);
  EXPECT_EQ(logins_.size(), 0u);
}

TEST_F(PageTest, SignOutEndsTheSession) {
  const std::string cookie = sign_in("R");
  const std::string csrf = hidden(call("GET", "/", cookie).body, "csrf");
  EXPECT_EQ(call("POST", "/logout", cookie, "csrf=wrong").status, 403);
  const Response out = call("POST", "/logout", cookie, "csrf=" + csrf);
  EXPECT_EQ(out.status, 303);
  EXPECT_EQ(header_of(out, "Location"), "/login");
  EXPECT_NE(header_of(out, "Set-Cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(call("GET", "/", cookie).status, 303) << "the old cookie no longer signs in";
  EXPECT_EQ(call("GET", "/v1/status", cookie).status, 401);
}

TEST_F(PageTest, SessionsExpire) {
  const std::string cookie = sign_in("R");
  now_ += LoginSessions::kLifetime - 1s;
  EXPECT_EQ(call("GET", "/", cookie).status, 200);
  now_ += 2s;
  EXPECT_EQ(call("GET", "/", cookie).status, 303);
  EXPECT_EQ(logins_.size(), 0u);
}

TEST(LoginSessions, AreBounded) {
  LoginSessions s;
  const LoginSessions::Login first = s.create(Access::kRead, testing::kNow);
  for (size_t i = 1; i <= LoginSessions::kMax; ++i) {
    s.create(Access::kRead, testing::kNow + std::chrono::seconds(i));
  }
  EXPECT_EQ(s.size(), LoginSessions::kMax);
  EXPECT_EQ(s.find(first.id, testing::kNow), nullptr) << "the oldest made room";
}

TEST(LoginSessions, ReadSignInsNeverPushOutAWriteSession) {
  LoginSessions s;
  const LoginSessions::Login admin = s.create(Access::kWrite, testing::kNow);
  for (size_t i = 1; i <= 2 * LoginSessions::kMax; ++i) {
    s.create(Access::kRead, testing::kNow + std::chrono::seconds(i));
  }
  EXPECT_EQ(s.size(), LoginSessions::kMax + 1);
  ASSERT_NE(s.find(admin.id, testing::kNow), nullptr);
  EXPECT_EQ(s.find(admin.id, testing::kNow)->access, Access::kWrite);
}

TEST(StatusPage, ShowsWeightDurationOverrideSparklinesAndDowntime) {
  model::LoadBalancerView lb = testing::sample_view();
  model::MemberView& m = lb.pools[0].members[1];  // master-02, ERROR
  m.admin_override = model::AdminOverride{
      .state = model::AdminState::kDrain, .weight = 3, .set_at = testing::kNow - 30s, .by = "CLI"};
  model::MemberHistory history;
  history.record_check(testing::kNow - 5min, 4ms, true);
  history.record_check(testing::kNow - 2min, 40ms, false);
  m.history = std::make_shared<const model::MemberHistory>(history);
  m.health_since = testing::kNow - 90s;
  const std::string page = status_page(lb, testing::kNow);
  EXPECT_NE(page.find("drain, weight 3, set 30s ago by CLI"), std::string::npos);
  EXPECT_NE(page.find(R"(<td class="num override" title="file: 1">3</td>)"), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"spark duration\""), std::string::npos);
  EXPECT_NE(page.find("slowest 40 ms"), std::string::npos);
  EXPECT_NE(page.find("<svg class=\"spark state\""), std::string::npos);
  EXPECT_NE(page.find("1m30s down"), std::string::npos) << "the running down period";
  EXPECT_NE(page.find(R"(data-member="master-02" data-status="ERROR")"), std::string::npos);
  EXPECT_EQ(page.find("<form"), std::string::npos) << "no session: no forms";
  EXPECT_EQ(page.find("<script"), std::string::npos);
}

// A drained master rebooting: its status stays DRAINING since the drain, its health has been
// ERROR for 90 s. The page counts the 90 s as downtime and shows their age as "since".
TEST(StatusPage, ADrainedMemberShowsItsHealthsAgeAndDowntime) {
  model::LoadBalancerView lb = testing::sample_view();
  model::MemberView& m = lb.pools[0].members[0];  // master-01
  m.operating_status = model::OperatingStatus::kDraining;
  m.state_since = testing::kNow - 5min;
  m.health_status = model::OperatingStatus::kError;
  m.health_since = testing::kNow - 90s;
  m.admin_override = model::AdminOverride{
      .state = model::AdminState::kDrain, .set_at = testing::kNow - 5min, .by = "CLI"};
  model::MemberHistory history;
  history.record_check(testing::kNow - 10min, 4ms, true);
  m.history = std::make_shared<const model::MemberHistory>(history);
  const std::string page = status_page(lb, testing::kNow);
  const size_t row = page.find(R"(data-member="master-01" data-status="DRAINING")");
  ASSERT_NE(row, std::string::npos);
  const std::string cells = page.substr(row, page.find("</tr>", row) - row);
  EXPECT_NE(cells.find(R"(<td class="num">1m30s</td>)"), std::string::npos) << cells;
  EXPECT_EQ(cells.find(R"(<td class="num">5m0s</td>)"), std::string::npos) << "not the drain's age";
  EXPECT_NE(cells.find("1m30s down"), std::string::npos) << cells;
  EXPECT_NE(cells.find("drain, set 5m0s ago by CLI"), std::string::npos) << cells;
}

TEST(Sparkline, GapsWhereNothingWasCheckedAndColoursPerMinute) {
  model::MemberHistory h;
  h.record_check(testing::kNow - 10min, 2ms, true);
  h.record_check(testing::kNow - 3min, 8ms, false);
  const model::HourView hour =
      model::last_hour(h, model::OperatingStatus::kOnline, testing::kNow - 1h, testing::kNow);
  const std::string line = duration_sparkline(hour);
  EXPECT_EQ(count(line, "<polyline"), 2u) << "two checked minutes apart";
  EXPECT_EQ(count(line, "<circle"), 1u) << "one minute with a failure";
  const std::string state = state_sparkline(hour);
  EXPECT_EQ(count(state, "<rect"), 60u);
  EXPECT_EQ(count(state, "class=\"failing\""), 1u);
  EXPECT_EQ(count(state, "class=\"unknown\""), 49u);
  EXPECT_EQ(downtime_text(0), "0s");
  EXPECT_EQ(downtime_text(500), "<1s");
  EXPECT_EQ(downtime_text(125'000), "2m5s");
}

}  // namespace
}  // namespace vigil::admin
