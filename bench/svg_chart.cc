#include "svg_chart.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace weibo::bench {
namespace {

constexpr int kColumns = 3;  // panels per row
constexpr int kPanelW = 300, kPanelH = 230;
constexpr int kPlotLeft = 58, kPlotRight = 16, kPlotTop = 44, kPlotBottom = 40;
constexpr int kHeader = 76;  // title and legend, plus kLine a subtitle line
constexpr int kLine = 16;
constexpr size_t kSubtitleChars = 120;  // wrap the subtitle at "; " past this
const char* const kColors[] = {"#3b6fb6", "#e08a2c", "#3f9b55", "#9b59b6", "#7f7f7f"};

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The smallest 1, 2 or 5 times a power of ten that is at least raw.
double NiceStep(double raw) {
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

// The subtitle in lines of about kSubtitleChars, broken after "; ".
std::vector<std::string> Wrap(const std::string& text) {
  std::vector<std::string> lines(1);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find("; ", start);
    std::string part =
        text.substr(start, end == std::string::npos ? std::string::npos : end + 2 - start);
    if (!lines.back().empty() && lines.back().size() + part.size() > kSubtitleChars)
      lines.emplace_back();
    lines.back() += part;
    start = end == std::string::npos ? text.size() : end + 2;
  }
  return lines;
}

std::string Tick(double v) {
  std::ostringstream s;
  if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 0.01)) s.precision(2), s << std::scientific;
  s << v;
  return s.str();
}

void Panel(std::ostringstream& svg, const TableRow& row, const std::vector<std::string>& columns,
           int x0, int y0) {
  int plot_w = kPanelW - kPlotLeft - kPlotRight, plot_h = kPanelH - kPlotTop - kPlotBottom;
  int left = x0 + kPlotLeft, top = y0 + kPlotTop, bottom = top + plot_h;
  double max = 0;
  for (double v : row.values)
    if (!std::isnan(v)) max = std::max(max, v);
  double step = max > 0 ? NiceStep(max / 4) : 0.25;
  double top_value = step * std::ceil((max > 0 ? max : 1) / step);
  svg << "<g>\n<text x=\"" << x0 + kPanelW / 2 << "\" y=\"" << y0 + 22 << "\" class=\"panel\">"
      << Escape(row.metric) << "</text>\n";
  for (double t = 0; t <= top_value + step / 2; t += step) {
    int y = bottom - static_cast<int>(std::lround(t / top_value * plot_h));
    svg << "<line x1=\"" << left << "\" y1=\"" << y << "\" x2=\"" << left + plot_w << "\" y2=\""
        << y << "\" class=\"grid\"/>\n<text x=\"" << left - 6 << "\" y=\"" << y + 4
        << "\" class=\"tick\">" << Tick(t) << "</text>\n";
  }
  svg << "<text transform=\"translate(" << x0 + 14 << "," << (top + bottom) / 2
      << ") rotate(-90)\" class=\"axis\">" << Escape(row.unit) << "</text>\n";
  int slot = plot_w / static_cast<int>(std::max<size_t>(1, columns.size()));
  int bar_w = slot * 3 / 5;
  for (size_t c = 0; c < columns.size(); ++c) {
    int cx = left + slot * static_cast<int>(c) + slot / 2;
    double v = c < row.values.size() ? row.values[c] : std::nan("");
    if (std::isnan(v)) {
      svg << "<text x=\"" << cx << "\" y=\"" << bottom - 6 << "\" class=\"value\">n/a</text>\n";
    } else {
      int h = static_cast<int>(std::lround(v / top_value * plot_h));
      svg << "<rect x=\"" << cx - bar_w / 2 << "\" y=\"" << bottom - h << "\" width=\"" << bar_w
          << "\" height=\"" << h << "\" fill=\"" << kColors[c % std::size(kColors)] << "\"><title>"
          << Escape(columns[c] + ": " + FormatNumber(v, row.decimals) + " " + row.unit)
          << "</title></rect>\n<text x=\"" << cx << "\" y=\"" << bottom - h - 5
          << "\" class=\"value\">" << FormatNumber(v, row.decimals) << "</text>\n";
    }
    svg << "<text x=\"" << cx << "\" y=\"" << bottom + 18 << "\" class=\"label\">"
        << Escape(columns[c]) << "</text>\n";
  }
  svg << "<line x1=\"" << left << "\" y1=\"" << bottom << "\" x2=\"" << left + plot_w << "\" y2=\""
      << bottom << "\" class=\"axisline\"/>\n<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\""
      << left << "\" y2=\"" << bottom << "\" class=\"axisline\"/>\n</g>\n";
}

}  // namespace

std::string SvgBarChart(const Table& table, const std::string& title, const std::string& subtitle) {
  std::vector<std::string> sub = Wrap(subtitle);
  int header = kHeader + kLine * static_cast<int>(sub.size());
  int rows = (static_cast<int>(table.rows.size()) + kColumns - 1) / kColumns;
  int width = kColumns * kPanelW + 20, height = header + rows * kPanelH + 30;
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width
      << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height << "\">\n"
      << "<style>\n"
         "text { font-family: sans-serif; fill: #222; }\n"
         ".title { font-size: 20px; font-weight: bold; }\n"
         ".subtitle { font-size: 13px; fill: #555; }\n"
         ".panel { font-size: 14px; font-weight: bold; text-anchor: middle; }\n"
         ".tick { font-size: 11px; text-anchor: end; fill: #555; }\n"
         ".axis { font-size: 12px; text-anchor: middle; fill: #555; }\n"
         ".label { font-size: 12px; text-anchor: middle; }\n"
         ".value { font-size: 11px; text-anchor: middle; }\n"
         ".legend { font-size: 13px; }\n"
         ".grid { stroke: #ddd; stroke-width: 1; }\n"
         ".axisline { stroke: #444; stroke-width: 1; }\n"
         "</style>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"16\" y=\"30\" class=\"title\">" << Escape(title) << "</text>\n";
  for (size_t i = 0; i < sub.size(); ++i)
    svg << "<text x=\"16\" y=\"" << 52 + kLine * static_cast<int>(i) << "\" class=\"subtitle\">"
        << Escape(sub[i]) << "</text>\n";
  int legend_y = 52 + kLine * static_cast<int>(sub.size());
  for (size_t c = 0; c < table.columns.size(); ++c) {
    int x = 16 + static_cast<int>(c) * 120;
    svg << "<rect x=\"" << x << "\" y=\"" << legend_y - 2 << "\" width=\"14\" height=\"14\" fill=\""
        << kColors[c % std::size(kColors)] << "\"/>\n<text x=\"" << x + 20 << "\" y=\""
        << legend_y + 10 << "\" class=\"legend\">" << Escape(table.columns[c]) << "</text>\n";
  }
  for (size_t i = 0; i < table.rows.size(); ++i) {
    int x0 = 10 + static_cast<int>(i % kColumns) * kPanelW;
    int y0 = header + static_cast<int>(i / kColumns) * kPanelH;
    Panel(svg, table.rows[i], table.columns, x0, y0);
  }
  svg << "<text x=\"16\" y=\"" << height - 10
      << "\" class=\"subtitle\">Every panel: lower is cheaper. Bars: one per feed mode, same "
         "workload, same seed.</text>\n</svg>\n";
  return svg.str();
}

}  // namespace weibo::bench
