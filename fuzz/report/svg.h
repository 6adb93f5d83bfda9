// The report's charts, drawn as inline SVG: no script or font is fetched, and every number is also
// text (an SVG <title> on hover; the report prints a table below each chart as well).
//
// Colours are for colour-blind readers: the heat map uses viridis (perceptually uniform, readable in
// grey), failures are marked by a ring rather than a hue, and line series differ by dash as well as by
// colour (the Okabe-Ito palette).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace uf::report {

struct HeatCell {
  std::string row, column;
  uint64_t count = 0;
  std::string link;  // "#anchor" of the bucket that failed here, or empty
  std::string note;  // what failed here, for the hover text
};

// One <rect class="cell"> per entry of `cells` (and nothing where a (row, column) pair does not exist),
// coloured by log(count + 1); rows and columns in the given order.
std::string heat_map(const std::string& id, const std::string& title, const std::vector<std::string>& rows,
                     const std::vector<std::string>& columns, const std::vector<HeatCell>& cells);

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};

// Lines with a marker per point (hover: "name: x, y"), axes from zero, a legend when there are several.
std::string line_chart(const std::string& id, const std::string& title, const std::string& x_label, const std::string& y_label,
                       const std::vector<Series>& series);

}  // namespace uf::report
