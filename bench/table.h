// Table: metrics down, feed modes across — printed aligned for people, or as CSV.
#ifndef WEIBO_BENCH_TABLE_H_
#define WEIBO_BENCH_TABLE_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace weibo::bench {

struct TableRow {
  std::string metric;          // "posts/s"
  std::string unit;            // "1/s", "ms", "rows", ... (CSV; the text with show_units)
  std::vector<double> values;  // one per column; NaN prints as "-" (empty in CSV)
  int decimals = 1;
};

struct Table {
  std::vector<std::string> columns;  // "push", "pull", "hybrid"
  std::vector<TableRow> rows;
  bool show_units = false;  // Print: a unit column after the metric (the bench's names say it)

  void Add(std::string metric, std::string unit, std::vector<double> values, int decimals);
  void Print(std::ostream& out) const;
  // "metric,unit,push,pull,hybrid" then one line a row, full precision.
  void WriteCsv(std::ostream& out) const;
};

// A number as the table shows it: fixed decimals, "-" for NaN.
std::string FormatNumber(double value, int decimals);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_TABLE_H_
