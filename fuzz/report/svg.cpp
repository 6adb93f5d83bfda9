// Heat maps and line charts as SVG text.
#include "fuzz/report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "fuzz/report/html.h"

namespace uf::report {

namespace {

// Viridis at ten evenly spaced stops (matplotlib's table), interpolated linearly between them.
std::string viridis(double x) {
  static const int stops[10][3] = {{68, 1, 84},    {72, 40, 120},  {62, 73, 137},  {49, 104, 142}, {38, 130, 142},
                                   {31, 158, 137}, {53, 183, 121}, {110, 206, 88}, {181, 222, 43}, {253, 231, 37}};
  x = std::clamp(x, 0.0, 1.0) * 9;
  const int i = std::min(8, static_cast<int>(x));
  const double f = x - i;
  char buf[16];
  int c[3];
  for (int k = 0; k < 3; ++k) c[k] = static_cast<int>(std::lround(stops[i][k] + f * (stops[i + 1][k] - stops[i][k])));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c[0], c[1], c[2]);
  return buf;
}

const char* const kZeroFill = "#f2f2f2";  // never run: paler than any viridis colour

std::string attr(double v) { return num(v, 1); }

// Round steps (1, 2, 5 × 10^k) giving at most about five ticks from 0 to `max`.
double tick_step(double max) {
  if (max <= 0) return 1;
  const double raw = max / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

}  // namespace

std::string heat_map(const std::string& id, const std::string& title, const std::vector<std::string>& rows,
                     const std::vector<std::string>& columns, const std::vector<HeatCell>& cells) {
  const double cell = 22, left = 110, top = 90, legend = 50;
  // Room for the last rotated column label and for the legend line.
  const double width = std::max(left + cell * static_cast<double>(columns.size()) + 60, left + 460);
  const double height = top + cell * static_cast<double>(rows.size()) + legend;
  std::map<std::string, size_t> row_at, col_at;
  for (size_t i = 0; i < rows.size(); ++i) row_at[rows[i]] = i;
  for (size_t i = 0; i < columns.size(); ++i) col_at[columns[i]] = i;
  uint64_t max = 0;
  for (const HeatCell& c : cells) max = std::max(max, c.count);
  const double log_max = std::log1p(static_cast<double>(max));

  std::string s = "<svg id=\"" + esc(id) + "\" class=\"chart heat\" viewBox=\"0 0 " + attr(width) + " " + attr(height) +
                  "\" style=\"max-width:" + attr(width) + "px\" role=\"img\" aria-labelledby=\"" + esc(id) + "-t\">";
  s += "<title id=\"" + esc(id) + "-t\">" + esc(title) + "</title>";
  for (size_t i = 0; i < columns.size(); ++i) {
    const double x = left + cell * static_cast<double>(i) + cell / 2 + 4, y = top - 6;
    s +=
        "<text class=\"lab\" transform=\"translate(" + attr(x) + "," + attr(y) + ") rotate(-60)\">" + esc(columns[i]) + "</text>";
  }
  for (size_t i = 0; i < rows.size(); ++i)
    s += "<text class=\"lab\" text-anchor=\"end\" x=\"" + attr(left - 6) + "\" y=\"" +
         attr(top + cell * static_cast<double>(i) + cell * 0.7) + "\">" + esc(rows[i]) + "</text>";
  for (const HeatCell& c : cells) {
    const auto r = row_at.find(c.row), k = col_at.find(c.column);
    if (r == row_at.end() || k == col_at.end()) continue;
    const double x = left + cell * static_cast<double>(k->second), y = top + cell * static_cast<double>(r->second);
    const std::string fill =
        c.count == 0 ? kZeroFill : viridis(log_max > 0 ? std::log1p(static_cast<double>(c.count)) / log_max : 1);
    std::string tip = c.row + " " + c.column + ": " + grouped(static_cast<int64_t>(c.count));
    if (!c.note.empty()) tip += " — " + c.note;
    std::string g = "<rect class=\"cell\" data-row=\"" + esc(c.row) + "\" data-col=\"" + esc(c.column) + "\" x=\"" + attr(x) +
                    "\" y=\"" + attr(y) + "\" width=\"" + attr(cell - 1) + "\" height=\"" + attr(cell - 1) + "\" fill=\"" + fill +
                    "\"><title>" + esc(tip) + "</title></rect>";
    if (!c.link.empty()) {
      const std::string cx = attr(x + cell / 2 - 0.5), cy = attr(y + cell / 2 - 0.5);
      g = "<a class=\"fail\" href=\"" + esc(c.link) + "\">" + g + "<circle cx=\"" + cx + "\" cy=\"" + cy +
          "\" r=\"6\" fill=\"none\" stroke=\"#fff\" stroke-width=\"3.5\"/><circle cx=\"" + cx + "\" cy=\"" + cy +
          "\" r=\"6\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"><title>" + esc(tip) + "</title></circle></a>";
    }
    s += g;
  }
  // Legend: the scale from 1 to the maximum (log), the never-run colour, and the failure ring.
  const double ly = top + cell * static_cast<double>(rows.size()) + 18;
  s += "<defs><linearGradient id=\"" + esc(id) + "-g\">";
  for (int i = 0; i <= 8; ++i) s += "<stop offset=\"" + attr(i * 12.5) + "%\" stop-color=\"" + viridis(i / 8.0) + "\"/>";
  s += "</linearGradient></defs>";
  s += "<rect x=\"" + attr(left) + "\" y=\"" + attr(ly) + "\" width=\"14\" height=\"12\" fill=\"" + kZeroFill +
       "\" stroke=\"#999\"/><text class=\"lab\" x=\"" + attr(left + 18) + "\" y=\"" + attr(ly + 10) + "\">0</text>";
  s += "<rect x=\"" + attr(left + 34) + "\" y=\"" + attr(ly) + "\" width=\"120\" height=\"12\" fill=\"url(#" + esc(id) +
       "-g)\"/><text class=\"lab\" x=\"" + attr(left + 158) + "\" y=\"" + attr(ly + 10) + "\">" +
       grouped(static_cast<int64_t>(max)) + " (log scale)</text>";
  s += "<circle cx=\"" + attr(left + 270) + "\" cy=\"" + attr(ly + 6) +
       "\" r=\"6\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/><text class=\"lab\" x=\"" + attr(left + 280) + "\" y=\"" +
       attr(ly + 10) + "\">failure (links to its bucket)</text>";
  return s + "</svg>";
}

std::string line_chart(const std::string& id, const std::string& title, const std::string& x_label, const std::string& y_label,
                       const std::vector<Series>& series) {
  static const char* const colours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442"};
  static const char* const dashes[] = {"", "6 3", "2 2", "8 3 2 3", "1 3", "10 4", "4 4", "3 6"};
  const double w = 640, h = 260, left = 60, right = 20, top = 20, bottom = 45;
  double max_x = 0, max_y = 0;
  for (const Series& se : series)
    for (const auto& [x, y] : se.points) {
      max_x = std::max(max_x, x);
      max_y = std::max(max_y, y);
    }
  const double sx = tick_step(max_x), sy = tick_step(max_y);
  max_x = std::max(sx, std::ceil(max_x / sx) * sx);
  max_y = std::max(sy, std::ceil(max_y / sy) * sy);
  const double pw = w - left - right, ph = h - top - bottom;
  auto X = [&](double x) { return left + pw * x / max_x; };
  auto Y = [&](double y) { return top + ph * (1 - y / max_y); };
  const double legend_h = series.size() > 1 ? 18.0 * static_cast<double>(series.size()) : 0;

  std::string s = "<svg id=\"" + esc(id) + "\" class=\"chart line\" viewBox=\"0 0 " + attr(w) + " " + attr(h + legend_h) +
                  "\" style=\"max-width:" + attr(w) + "px\" role=\"img\" aria-labelledby=\"" + esc(id) + "-t\">";
  s += "<title id=\"" + esc(id) + "-t\">" + esc(title) + "</title>";
  for (double x = 0; x <= max_x + sx / 2; x += sx)
    s += "<line class=\"grid\" x1=\"" + attr(X(x)) + "\" x2=\"" + attr(X(x)) + "\" y1=\"" + attr(top) + "\" y2=\"" +
         attr(top + ph) + "\"/><text class=\"lab\" text-anchor=\"middle\" x=\"" + attr(X(x)) + "\" y=\"" + attr(top + ph + 15) +
         "\">" + num(x, 2) + "</text>";
  for (double y = 0; y <= max_y + sy / 2; y += sy)
    s += "<line class=\"grid\" x1=\"" + attr(left) + "\" x2=\"" + attr(left + pw) + "\" y1=\"" + attr(Y(y)) + "\" y2=\"" +
         attr(Y(y)) + "\"/><text class=\"lab\" text-anchor=\"end\" x=\"" + attr(left - 5) + "\" y=\"" + attr(Y(y) + 4) + "\">" +
         num(y, 2) + "</text>";
  s += "<text class=\"lab\" text-anchor=\"middle\" x=\"" + attr(left + pw / 2) + "\" y=\"" + attr(h - 8) + "\">" + esc(x_label) +
       "</text>";
  s += "<text class=\"lab\" text-anchor=\"middle\" transform=\"translate(14," + attr(top + ph / 2) + ") rotate(-90)\">" +
       esc(y_label) + "</text>";
  for (size_t i = 0; i < series.size(); ++i) {
    const Series& se = series[i];
    const char* colour = colours[i % 8];
    std::string d;
    for (const auto& [x, y] : se.points) d += (d.empty() ? "M" : "L") + attr(X(x)) + " " + attr(Y(y));
    s += "<g class=\"series\"><path d=\"" + d + "\" fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\"";
    if (*dashes[i % 8]) s += std::string(" stroke-dasharray=\"") + dashes[i % 8] + "\"";
    s += "/>";
    for (const auto& [x, y] : se.points)
      s += "<circle cx=\"" + attr(X(x)) + "\" cy=\"" + attr(Y(y)) + "\" r=\"2.5\" fill=\"" + colour + "\"><title>" +
           esc(se.name + ": " + x_label + " " + num(x, 2) + ", " + y_label + " " + num(y, 2)) + "</title></circle>";
    s += "</g>";
    if (series.size() > 1) {
      const double ly = h + 18.0 * static_cast<double>(i) + 4;
      s += "<line x1=\"" + attr(left) + "\" x2=\"" + attr(left + 30) + "\" y1=\"" + attr(ly) + "\" y2=\"" + attr(ly) +
           "\" stroke=\"" + colour + "\" stroke-width=\"2\"" +
           (*dashes[i % 8] ? std::string(" stroke-dasharray=\"") + dashes[i % 8] + "\"" : "") + "/><text class=\"lab\" x=\"" +
           attr(left + 36) + "\" y=\"" + attr(ly + 4) + "\">" + esc(se.name) + "</text>";
    }
  }
  return s + "</svg>";
}

}  // namespace uf::report
