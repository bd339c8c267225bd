// Names of enum values: a table per enum (value, name) and the look-ups both ways, so that each
// vocabulary (vigil's model, Octavia's API) spells each value in one place. Pure; any thread.
// Everything is constexpr so that other layers' constexpr tables (YAML key docs) can use it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace vigil::model {

template <typename E>
struct Spelling {
  E value;
  std::string_view name;
};

// The name of `value` in `table`; "?" for a value the table lacks (a table missing a value is a
// bug its unit test catches).
template <typename E>
constexpr std::string_view name_in(std::span<const Spelling<E>> table, E value) {
  for (const Spelling<E>& s : table) {
    if (s.value == value) return s.name;
  }
  return "?";
}

// The value spelled exactly `name` (case matters: callers fold case where their grammar does).
template <typename E>
constexpr std::optional<E> value_in(std::span<const Spelling<E>> table, std::string_view name) {
  for (const Spelling<E>& s : table) {
    if (s.name == name) return s.value;
  }
  return std::nullopt;
}

// The names of `table`, for "did you mean" suggestions.
template <typename E>
std::vector<std::string_view> names_of(std::span<const Spelling<E>> table) {
  std::vector<std::string_view> out;
  for (const Spelling<E>& s : table) out.push_back(s.name);
  return out;
}

// Names joined for messages and docs, in a fixed buffer so that it can be a constexpr value:
// ("a", "b", "c") with ", " and " or " reads "a, b or c". Too long a list fails to compile.
class NameList {
 public:
  constexpr void add(std::string_view name, std::string_view sep, std::string_view last_sep,
                     bool last) {
    if (size_ > 0) append(last ? last_sep : sep);
    append(name);
  }
  constexpr std::string_view view() const { return {text_, size_}; }
  constexpr operator std::string_view() const { return view(); }

 private:
  constexpr void append(std::string_view s) {
    for (char c : s) text_[size_++] = c;
  }

  char text_[192]{};
  size_t size_ = 0;
};

// Every name of `table` in order, then `also` when not empty (a grammar's extra word, like the
// YAML's monitor type `none`).
template <typename E>
constexpr NameList join_names(std::span<const Spelling<E>> table, std::string_view sep,
                              std::string_view last_sep, std::string_view also = {}) {
  NameList out;
  const size_t count = table.size() + (also.empty() ? 0 : 1);
  for (size_t i = 0; i < table.size(); ++i) out.add(table[i].name, sep, last_sep, i + 1 == count);
  if (!also.empty()) out.add(also, sep, last_sep, true);
  return out;
}

// The table of an enum of the model: each enum's header specializes this beside its enum.
template <typename E>
constexpr std::span<const Spelling<E>> spellings() = delete;

// The value of an enum of the model spelled exactly `name` (model::parse<MonitorType>("HTTPS")).
template <typename E>
constexpr std::optional<E> parse(std::string_view name) {
  return value_in(spellings<E>(), name);
}

// Every name of an enum of the model, for "use TCP, TLS-HELLO, HTTP or HTTPS" messages.
template <typename E>
constexpr NameList name_list(std::string_view sep, std::string_view last_sep,
                             std::string_view also = {}) {
  return join_names(spellings<E>(), sep, last_sep, also);
}

}  // namespace vigil::model
