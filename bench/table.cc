#include "table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace weibo::bench {
namespace {

// CSV quoting (RFC 4180): only when a field needs it.
std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string FormatNumber(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

void Table::Add(std::string metric, std::string unit, std::vector<double> values, int decimals) {
  rows.push_back({std::move(metric), std::move(unit), std::move(values), decimals});
}

void Table::Print(std::ostream& out) const {
  size_t label_width = 6;
  for (const auto& r : rows) label_width = std::max(label_width, r.metric.size());
  std::vector<size_t> widths;
  for (size_t c = 0; c < columns.size(); ++c) {
    size_t w = std::max<size_t>(columns[c].size(), 8);
    for (const auto& r : rows)
      if (c < r.values.size()) w = std::max(w, FormatNumber(r.values[c], r.decimals).size());
    widths.push_back(w);
  }
  auto pad_left = [](const std::string& s, size_t w) {
    return std::string(w - std::min(w, s.size()), ' ') + s;
  };
  size_t unit_width = 4;
  for (const auto& r : rows) unit_width = std::max(unit_width, r.unit.size());
  out << "metric" << std::string(label_width - 6, ' ');
  if (show_units) out << "  unit" << std::string(unit_width - 4, ' ');
  for (size_t c = 0; c < columns.size(); ++c) out << "  " << pad_left(columns[c], widths[c]);
  out << "\n";
  for (const auto& r : rows) {
    out << r.metric << std::string(label_width - r.metric.size(), ' ');
    if (show_units) out << "  " << r.unit << std::string(unit_width - r.unit.size(), ' ');
    for (size_t c = 0; c < columns.size(); ++c)
      out << "  "
          << pad_left(c < r.values.size() ? FormatNumber(r.values[c], r.decimals) : "-", widths[c]);
    out << "\n";
  }
}

void Table::WriteCsv(std::ostream& out) const {
  out << "metric,unit";
  for (const auto& c : columns) out << "," << CsvField(c);
  out << "\n";
  for (const auto& r : rows) {
    out << CsvField(r.metric) << "," << CsvField(r.unit);
    for (double v : r.values) {
      out << ",";
      if (!std::isnan(v)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6g", v);
        out << buf;
      }
    }
    out << "\n";
  }
}

}  // namespace weibo::bench
