// Structured log events and the JSON format (`log.format: json`) of base/log.h's lines: with
// JSON, each line is one object (time, level, event, message and an event's fields) after the
// journal's priority prefix when stderr is the journal. Thread-safe, like base/log.h.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/log.h"

namespace boost::json {
class object;
}

namespace vigil::log {

enum class Format { kText, kJson };

void set_format(Format format);
Format format();

// One JSON object and a newline, after the journal's prefix when `journal`:
// {"time":"2026-12-01T08:00:00.123Z","level":"warn","event":"log","message":"..."} and `fields`
// (null: none) after them.
std::string format_json_line(Level level, std::string_view event, std::string_view message,
                             const boost::json::object* fields, bool journal,
                             std::chrono::system_clock::time_point now);
// "2026-12-01T08:00:00.123Z"
std::string utc_millis(std::chrono::system_clock::time_point t);

// A structured event (`event` names its kind: "member_transition", "connection"): the message
// alone in text, the message and `fields` in JSON.
void event(Level level, std::string_view event, std::string_view message,
           const boost::json::object& fields);

}  // namespace vigil::log
