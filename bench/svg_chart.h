// A hand-written SVG bar chart of a Table: one small panel per metric (its own y axis, as
// the metrics have different units), one bar per feed mode in the same colour in every
// panel, a legend, and the value written above each bar. Plain SVG 1.1: any browser shows
// it, any XML parser reads it.
#ifndef WEIBO_BENCH_SVG_CHART_H_
#define WEIBO_BENCH_SVG_CHART_H_

#include <string>

#include "table.h"

namespace weibo::bench {

std::string SvgBarChart(const Table& table, const std::string& title, const std::string& subtitle);

}  // namespace weibo::bench

#endif  // WEIBO_BENCH_SVG_CHART_H_
