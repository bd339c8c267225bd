#include "admin/octavia/json_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <charconv>
#include <optional>

#include "admin/octavia/filter_keys.h"
#include "base/ascii.h"

namespace vigil::admin {
namespace {

namespace json = boost::json;

struct SortKey {
  std::string key;
  bool descending = false;
};

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  for (size_t start = 0;;) {
    const size_t end = text.find(sep, start);
    out.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

std::unexpected<PageError> invalid(std::string_view what, std::string_view value,
                                   bool framework = false) {
  return std::unexpected(PageError{
      fmt::format("Supplied {} '{}' is not valid.", what, value.substr(0, 100)), framework});
}

// Octavia's `limit`: none means its `[api_settings] pagination_max_limit`, and a larger one is
// cut to it; `infinite` means no limit, as Octavia's parser has it. Below 1, and a repeated
// `limit`, Octavia 11 takes for no limit and then fails building its links (a 500): here a 400
// that says why.
std::expected<std::optional<size_t>, PageError> parse_limit(const Target& t) {
  const auto text = t.param("limit");
  if (!text) return t.page_max_limit;
  if (*text == "infinite") return std::nullopt;
  if (std::ranges::count(t.query, std::string_view("limit"), &Target::Query::value_type::first) >
      1) {
    return std::unexpected(PageError{"Supplied pagination limit is not valid: give one limit"});
  }
  long long n = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, n);
  if (text->empty() || ec != std::errc() || ptr != end) {
    return invalid("pagination limit", *text, true);
  }
  if (n < 1) {
    return std::unexpected(PageError{
        fmt::format("Supplied pagination limit '{}' is not valid: a limit is 1 or more, or "
                    "'infinite'",
                    n)});
  }
  return std::min(static_cast<size_t>(n), t.page_max_limit);
}

// Octavia names a bad direction as it compared it, lowercased.
std::expected<bool, PageError> parse_descending(std::string_view dir) {
  const std::string lower = lowercase(dir);
  if (lower == "asc") return false;
  if (lower == "desc") return true;
  return invalid("sort direction", lower, true);
}

// As Octavia's _parse_sort_keys: an empty `sort` or `sort_key` is none; `sort_dir` pads with
// `asc`, and each direction paired with a key must be one, an empty one too.
std::expected<std::vector<SortKey>, PageError> parse_sort(const Target& t) {
  std::vector<SortKey> keys;
  const auto sort = t.param("sort");
  const auto sort_key = t.param("sort_key");
  if (sort && !sort->empty()) {
    for (const std::string& part : split(*sort, ',')) {
      const std::vector<std::string> comps = split(part, ':');
      // Octavia names such a key by its parts, as Python prints a list: ['a', 'b', 'c'].
      if (comps.size() > 2) {
        return invalid("sort key", fmt::format("['{}']", fmt::join(comps, "', '")), true);
      }
      SortKey k{.key = comps[0]};
      if (comps.size() == 2) {
        auto desc = parse_descending(comps[1]);
        if (!desc) return std::unexpected(desc.error());
        k.descending = *desc;
      }
      keys.push_back(std::move(k));
    }
  } else if (sort_key && !sort_key->empty()) {
    const std::vector<std::string> names = split(*sort_key, ',');
    const std::string sort_dir = t.param("sort_dir").value_or("");
    const std::vector<std::string> dirs =
        sort_dir.empty() ? std::vector<std::string>() : split(sort_dir, ',');
    for (size_t i = 0; i < names.size(); ++i) {
      SortKey k{.key = names[i]};
      if (i < dirs.size()) {
        auto desc = parse_descending(dirs[i]);
        if (!desc) return std::unexpected(desc.error());
        k.descending = *desc;
      }
      keys.push_back(std::move(k));
    }
  }
  return keys;
}

// SQL's order as Octavia's database gives it for one column: nothing first, then the values.
int compare(const json::value* a, const json::value* b) {
  const bool a_none = a == nullptr || a->is_null();
  const bool b_none = b == nullptr || b->is_null();
  if (a_none || b_none) return static_cast<int>(b_none) - static_cast<int>(a_none);
  if (a->is_string() && b->is_string()) {
    const int c = a->as_string().compare(b->as_string());
    return (c > 0) - (c < 0);
  }
  if (a->is_number() && b->is_number()) {
    const double x = a->to_number<double>();
    const double y = b->to_number<double>();
    return (x > y) - (x < y);
  }
  if (a->is_bool() && b->is_bool()) return static_cast<int>(a->get_bool()) - b->get_bool();
  return static_cast<int>(a->kind()) - static_cast<int>(b->kind());
}

std::string id_of(const json::object& o) {
  const json::value* id = o.if_contains("id");
  return id != nullptr && id->is_string() ? std::string(id->as_string()) : std::string();
}

// A query value in a link, percent-encoded but for the unreserved characters, and ':' and ','
// that a sort holds (`sort=name:desc,id`).
std::string encoded(std::string_view value) {
  static constexpr auto kKept = boost::urls::unreserved_chars + ':' + ',';
  return boost::urls::encode(value, kKept);
}

// Octavia's links (PaginationHelper._make_links): the request's URL, then `limit`, `sort` and
// `sort_key` as given, and the first or last object's id. With `limit=infinite` a `previous` link
// carries no limit (Octavia 11 fails there, as with a limit below 1).
json::array links(const std::vector<json::object*>& items, std::optional<size_t> limit,
                  const Target& t) {
  json::array out;
  if (items.empty()) return out;
  std::string url = t.link_base;
  for (const std::string& s : t.segments) url += "/" + encoded(s);
  std::vector<std::string> attrs;
  if (limit) attrs.push_back(fmt::format("limit={}", *limit));
  // Octavia's `if self.params.get('sort')`: an empty one is left out.
  for (const char* name : {"sort", "sort_key"}) {
    const auto value = t.param(name);
    if (value && !value->empty()) attrs.push_back(fmt::format("{}={}", name, encoded(*value)));
  }
  const auto href = [&](std::vector<std::string> more) {
    std::vector<std::string> all = attrs;
    all.insert(all.end(), more.begin(), more.end());
    return url + "?" + fmt::format("{}", fmt::join(all, "&"));
  };
  if (t.param("marker")) {
    out.push_back(json::object{
        {"rel", "previous"},
        {"href", href({"marker=" + encoded(id_of(*items.front())), "page_reverse=True"})}});
  }
  // As Octavia: a full page may be the last one, and still links to a (then empty) next.
  if (limit && items.size() >= *limit) {
    out.push_back(
        json::object{{"rel", "next"}, {"href", href({"marker=" + encoded(id_of(*items.back()))})}});
  }
  return out;
}

}  // namespace

std::vector<std::string> requested_fields(const Target& t) {
  std::vector<std::string> fields;
  for (const auto& [name, value] : t.query) {
    if (name != "fields") continue;
    for (std::string& f : split(value, ',')) fields.push_back(std::move(f));
  }
  return fields;
}

json::object only_fields(const json::object& o, const std::vector<std::string>& fields) {
  json::object out;
  for (const auto& [key, value] : o) {
    if (std::ranges::find(fields, std::string_view(key)) != fields.end()) out[key] = value;
  }
  return out;
}

bool is_page_parameter(std::string_view name) {
  return name == "limit" || name == "marker" || name == "sort" || name == "sort_key" ||
         name == "sort_dir" || name == "fields" || name == "page_reverse";
}

std::expected<json::object, PageError> page(std::string_view key, std::vector<json::object> objects,
                                            const std::vector<bool>& matches, const Target& t) {
  auto limit = parse_limit(t);
  if (!limit) return std::unexpected(limit.error());
  auto keys = parse_sort(t);
  if (!keys) return std::unexpected(keys.error());
  for (SortKey& k : *keys) {
    const auto column = filter_key(key, k.key);
    if (!column) return invalid("sort key", k.key);
    k.key = column->field;
  }
  // Octavia's tie-break, and its order without a sort: created_at, then id, ascending.
  for (std::string_view tie : {"created_at", "id"}) {
    const bool given = std::ranges::any_of(*keys, [&](const SortKey& k) { return k.key == tie; });
    if (!given && filter_key(key, tie)) keys->push_back(SortKey{.key = std::string(tie)});
  }

  std::vector<size_t> order(objects.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::ranges::stable_sort(order, [&](size_t a, size_t b) {
    for (const SortKey& k : *keys) {
      const int c = compare(objects[a].if_contains(k.key), objects[b].if_contains(k.key));
      if (c != 0) return k.descending ? c > 0 : c < 0;
    }
    return false;
  });

  // The marker's place in that order; a page starts after it, or with page_reverse (Octavia's
  // way) is the first objects before it, still in that order.
  size_t from = 0;
  size_t to = order.size();
  if (const auto marker = t.param("marker")) {
    const auto at =
        std::ranges::find_if(order, [&](size_t i) { return id_of(objects[i]) == *marker; });
    if (at == order.end()) return invalid("pagination marker", *marker);
    const auto position = static_cast<size_t>(at - order.begin());
    if (t.param("page_reverse") == "True") {
      to = position;
    } else {
      from = position + 1;
    }
  }
  std::vector<json::object*> items;
  for (size_t i = from; i < to && (!*limit || items.size() < **limit); ++i) {
    if (matches[order[i]]) items.push_back(&objects[order[i]]);
  }
  // From the whole objects, before `fields` leaves out their ids.
  json::array page_links = links(items, *limit, t);

  const std::vector<std::string> fields = requested_fields(t);
  json::array list;
  list.reserve(items.size());
  for (json::object* o : items) {
    list.push_back(fields.empty() ? json::value(std::move(*o))
                                  : json::value(only_fields(*o, fields)));
  }
  return json::object{{key, std::move(list)}, {std::string(key) + "_links", std::move(page_links)}};
}

}  // namespace vigil::admin
