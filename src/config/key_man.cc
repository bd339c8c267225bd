// vigil.yaml(5), written from the key tables the loader parses with (key_reference()), so that the
// man page cannot drift from the grammar any more than docs/configuration.md can.
#include <string>

#include "config/keys.h"

namespace vigil::config {
namespace {

// Text safe in roff: a backslash is written \e, and a line may not start with a control
// character ('.' or '\'').
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

constexpr std::string_view kHead = R"(.SH NAME
vigil.yaml \- configuration of the vigil load balancer
.SH SYNOPSIS
.B /etc/vigil/vigil.yaml
.SH DESCRIPTION
.B vigil serve \-c
.I FILE
runs the load balancer one YAML file describes: its admin API, its listeners, and the pools of
members they send connections to, each pool with a health monitor that decides which members get
traffic.
.B vigil check \-c
.I FILE
validates a file without starting anything, and prints every problem as
.IR file : line .
Unknown keys are errors. A
.B SIGHUP
(or
.BR "systemctl reload vigil" )
re\-reads the file without dropping established sessions; a file with errors is refused and the
running configuration stays.
.PP
Durations are strings of one or more
.I <number><unit>
parts, the unit one of ns, us, ms, s, m, h:
.BR 500ms ,
.BR 5s ,
.BR 1m30s .
A bare number is an error.
)";

constexpr std::string_view kTail = R"(.SH EXAMPLE
.EX
admin:
  listen: 127.0.0.1:8404
  token_file: /etc/vigil/token
listeners:
  \- {name: api, bind: ":6443", pool: masters}
pools:
  \- name: masters
    health_monitor: {type: HTTPS, path: /readyz}
    members:
      \- {name: master\-01, address: 192.0.2.11, port: 6443}
      \- {name: master\-02, address: 192.0.2.12, port: 6443}
      \- {name: master\-03, address: 192.0.2.13, port: 6443}
.EE
.SH FILES
.TP
.I /etc/vigil/vigil.yaml
the configuration the systemd unit runs
.TP
.I /etc/vigil/vigil.yaml.example
an example to start from
.TP
.I /etc/vigil/token
the read-write admin token (mode 0600)
.TP
.I /etc/vigil/read-token
the read-only admin token: metrics, status, the status page (mode 0600)
.TP
.I /var/lib/vigil/state.json
objects created through the admin API
.SH SEE ALSO
.BR vigil (1)
)";

}  // namespace

std::string key_reference_man(std::string_view version) {
  std::string out = ".TH VIGIL.YAML 5 \"\" \"vigil " + roff(version) + "\" \"File Formats\"\n";
  out += kHead;
  out += ".SH KEYS\n";
  for (const SectionDoc& section : key_reference()) {
    out += ".SS " + roff(section.title) + "\n";
    for (const KeyDoc& k : section.keys) {
      out += ".TP\n.BR " + roff(k.name) + " \" (" + roff(k.type);
      if (k.required) {
        out += ", required";
      } else if (!k.default_value.empty()) {
        out += ", default " + roff(k.default_value);
      }
      out += ")\"\n";
      if (!k.applies_to.empty()) out += "(" + roff(k.applies_to) + " only) ";
      out += roff(k.meaning) + "\n";
    }
  }
  out += kTail;
  return out;
}

}  // namespace vigil::config
