// The status page's confirmation step before closing a member's sessions: the Kill sessions
// button posts to /page/sessions, which answers with this form; only its own button, posted
// with confirm=yes, closes them. A form rather than a script's confirm(): the page runs none.
// Pure; any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vigil::admin {

struct KillConfirm {
  std::string_view csrf;     // the session's, for the form
  std::string_view pool_id;  // what the form posts back
  std::string_view member_id;
  std::string_view pool;  // names, for people
  std::string_view member;
  uint64_t sessions = 0;  // established now, as the page counts them
};

std::string kill_confirm_page(const KillConfirm& k);

}  // namespace vigil::admin
