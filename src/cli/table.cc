#include "cli/table.h"

#include <algorithm>

#include "cli/printable.h"

namespace vigil::cli {
namespace {

size_t display_width(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++n;  // count lead bytes only
  }
  return n;
}

bool is_integer(const std::string& text) {
  if (text.empty()) return false;
  const size_t start = text[0] == '-' ? 1 : 0;
  if (start == text.size()) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(start), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

struct Column {
  size_t width = 0;
  bool right = false;  // numbers, as the openstack CLI aligns them
};

std::string rule(const std::vector<Column>& columns) {
  std::string out = "+";
  for (const Column& c : columns) out += std::string(c.width + 2, '-') + "+";
  return out + "\n";
}

std::string line(const std::vector<std::string>& cells, const std::vector<Column>& columns,
                 bool header) {
  std::string out = "|";
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string& cell = i < cells.size() ? cells[i] : std::string();
    const std::string pad(columns[i].width - display_width(cell), ' ');
    out += " " + (columns[i].right && !header ? pad + cell : cell + pad) + " |";
  }
  return out + "\n";
}

}  // namespace

std::string render_table(const std::vector<std::string>& raw_headers,
                         const std::vector<std::vector<std::string>>& raw_rows) {
  std::vector<std::string> headers;
  for (const std::string& h : raw_headers) headers.push_back(printable(h));
  std::vector<std::vector<std::string>> rows;
  for (const auto& raw : raw_rows) {
    std::vector<std::string>& row = rows.emplace_back();
    for (const std::string& cell : raw) row.push_back(printable(cell));
  }
  std::vector<Column> columns;
  for (const std::string& h : headers) columns.push_back({display_width(h), !rows.empty()});
  for (const auto& row : rows) {
    for (size_t i = 0; i < columns.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : std::string();
      columns[i].width = std::max(columns[i].width, display_width(cell));
      columns[i].right = columns[i].right && is_integer(cell);
    }
  }
  std::string out = rule(columns) + line(headers, columns, true) + rule(columns);
  for (const auto& row : rows) out += line(row, columns, false);
  if (!rows.empty()) out += rule(columns);
  return out;
}

}  // namespace vigil::cli
