// What the status page and its login form share: the style sheet and the Content-Security-Policy
// that keeps them free of scripts and of anything fetched from elsewhere. Constants; any thread.
#pragma once

#include <string_view>

namespace vigil::admin {

// Nothing may load: no script, font, image or frame, from anywhere. Inline styles and inline SVG
// are part of the document; forms post back here only; no other site may frame the page.
inline constexpr std::string_view kPageContentSecurityPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'";

inline constexpr std::string_view kPageStyle = R"(
body { font: 14px/1.45 "DejaVu Sans", system-ui, sans-serif; margin: 0; color: #1f2328;
  background: #f6f8fa; }
header { background: #24292f; color: #fff; padding: 10px 24px; display: flex;
  align-items: center; gap: 16px; }
header .brand { font-weight: bold; font-size: 16px; letter-spacing: .5px; }
header .who { margin-left: auto; color: #c9d1d9; }
header form { display: inline; }
form.act { display: inline; margin-right: 4px; }
/* Four buttons do not fit beside the rest at 1,366 pixels: they wrap onto a second line there. */
td.actions { white-space: normal; }
td.actions form.act { display: inline-block; margin: 1px 4px 1px 0; }
td.actions button { white-space: nowrap; }
main { padding: 8px 16px 24px; overflow-x: auto; }
h1 { font-size: 20px; margin: 16px 0 2px; }
h2 { font-size: 16px; margin: 22px 0 4px; }
table { border-collapse: collapse; margin: 6px 0 10px; background: #fff;
  border: 1px solid #d0d7de; }
th, td { border-bottom: 1px solid #d8dee4; padding: 4px 6px; text-align: left;
  vertical-align: middle; }
/* Headers wrap, so that the page fits a 1,366-pixel laptop screen: what is watched during a
   drain (sessions, failed connects, the buttons) must not be off to the right. */
th { background: #f3f4f6; font-weight: 600; font-size: 12px; color: #57606a; }
td { white-space: nowrap; }
td.why, table.transitions td { white-space: normal; }
td.why { min-width: 120px; max-width: 200px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.st { font-weight: bold; font-size: 12px; padding: 1px 7px; border-radius: 10px; color: #fff;
  white-space: nowrap; }
.ONLINE { background: #1a7f37; } .DEGRADED { background: #bc4c00; }
.ERROR { background: #cf222e; } .DRAINING { background: #0969da; }
.OFFLINE, .NO_MONITOR { background: #6e7781; }
.muted { color: #6e7781; }
.small { font-size: 12px; }
.override { color: #0969da; }
.spark { display: block; }
button { font: inherit; font-size: 12px; padding: 2px 10px; border-radius: 6px;
  border: 1px solid #d0d7de; background: #f6f8fa; cursor: pointer; }
button.drain { border-color: #0969da; color: #0969da; }
button.ready { border-color: #1a7f37; color: #1a7f37; }
button.maint { border-color: #6e7781; color: #57606a; }
button.kill { border-color: #cf222e; color: #cf222e; }
header button { background: #32383f; color: #fff; border-color: #57606a; }
.login { max-width: 380px; margin: 80px auto; background: #fff; border: 1px solid #d0d7de;
  border-radius: 8px; padding: 20px 24px; }
.login input[type=password] { width: 100%; box-sizing: border-box; padding: 6px; margin: 6px 0 12px;
  font: inherit; }
.error { color: #cf222e; }
)";

}  // namespace vigil::admin
