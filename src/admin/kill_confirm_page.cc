#include "admin/kill_confirm_page.h"

#include <fmt/format.h>

#include "admin/page_style.h"
#include "admin/status_page.h"

namespace vigil::admin {

std::string kill_confirm_page(const KillConfirm& k) {
  std::string out = fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vigil: kill sessions of {}</title>
<style>{}</style></head><body>
<header><span class="brand">vigil</span></header>
<main><div class="login">
<h1>Kill sessions?</h1>
)",
                                html_escape(k.member), kPageStyle);
  out += fmt::format(
      R"(<p id="what">Close the {} established sessions of member <b>{}</b> in pool <b>{}</b>, )"
      R"(as <code>vigil sessions kill --member</code> does. Their clients reconnect through )"
      R"(another member; a member still in rotation takes new connections.</p>
)",
      k.sessions, html_escape(k.member), html_escape(k.pool));
  out += fmt::format(R"(<form method="post" action="/page/sessions" class="act">)"
                     R"(<input type="hidden" name="csrf" value="{}">)"
                     R"(<input type="hidden" name="pool" value="{}">)"
                     R"(<input type="hidden" name="member" value="{}">)"
                     R"(<input type="hidden" name="confirm" value="yes">)"
                     R"(<button type="submit" class="kill" id="confirm">Kill them</button></form>)"
                     R"( <a href="/" id="cancel">Cancel</a>
</div></main></body></html>
)",
                     html_escape(k.csrf), html_escape(k.pool_id), html_escape(k.member_id));
  return out;
}

}  // namespace vigil::admin
