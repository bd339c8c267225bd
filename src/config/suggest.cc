#include "config/suggest.h"

#include <algorithm>

#include "base/ascii.h"

namespace vigil::config {
namespace {
constexpr size_t kMaxWord = 64;
}  // namespace

int edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  const size_t m = b.size();
  // Rows i-2, i-1 and i of the (n+1) x (m+1) table.
  std::vector<int> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      const int cost = to_lower(a[i - 1]) == to_lower(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && to_lower(a[i - 1]) == to_lower(b[j - 2]) &&
          to_lower(a[i - 2]) == to_lower(b[j - 1])) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::optional<std::string_view> closest(std::string_view word,
                                        const std::vector<std::string_view>& candidates) {
  if (word.size() > 2 * kMaxWord) return std::nullopt;  // not a typo; and keeps the cost bounded
  // Longer words tolerate more typos; a one-letter change to a short word is a different word.
  const int limit = word.size() <= 3 ? 1 : word.size() <= 6 ? 2 : 3;
  std::optional<std::string_view> best;
  int best_distance = limit + 1;
  for (std::string_view c : candidates) {
    const int d = edit_distance(word, c);
    if (d < best_distance && d < static_cast<int>(c.size())) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  if (auto c = closest(word, candidates)) return " (did you mean \"" + std::string(*c) + "\"?)";
  return "";
}

}  // namespace vigil::config
