#include "admin/login_page.h"

#include "admin/page_style.h"
#include "admin/status_page.h"

namespace vigil::admin {

std::string login_page(std::string_view message) {
  std::string out = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vigil: sign in</title>
<style>)";
  out += kPageStyle;
  out += R"(</style></head><body>
<header><span class="brand">vigil</span></header>
<main><div class="login">
<h1>Sign in</h1>
<p class="muted small">The token of <code>admin.token_file</code>, or the read-only one of
<code>admin.read_token_file</code>. It is kept in this browser as a session cookie only
(<code>HttpOnly</code>, <code>SameSite=Strict</code>), never in the address.</p>
)";
  if (!message.empty()) out += "<p class=\"error\" id=\"error\">" + html_escape(message) + "</p>\n";
  out += R"(<form method="post" action="/login">
<label for="token">Token</label>
<input type="password" id="token" name="token" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
</div></main></body></html>
)";
  return out;
}

}  // namespace vigil::admin
