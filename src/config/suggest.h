// "Did you mean" suggestions for misspelt keys, choices and references. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vigil::config {

// Optimal string alignment distance (Levenshtein plus transpositions), ignoring ASCII case.
int edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if it is close enough to be a likely typo.
std::optional<std::string_view> closest(std::string_view word,
                                        const std::vector<std::string_view>& candidates);

// " (did you mean \"x\"?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace vigil::config
