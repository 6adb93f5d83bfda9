// Reproducer listings.
#include "fuzz/report/listing.h"

#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <vector>

#include "codegen/render/render.h"
#include "core/text.h"
#include "fuzz/report/html.h"

namespace uf::report {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The node-line text the signature's diverging node has: `mismatch MUL i16` -> "= MUL i16",
// `mismatch CAST f64>u32` -> "= CAST u32" (a CAST line names its target); empty for other classes.
std::string node_pattern(const std::string& signature) {
  const std::vector<std::string> w = words(signature);
  if (w.size() < 3 || w[0] != "mismatch") return "";
  const size_t arrow = w[2].find('>');
  return "= " + w[1] + " " + (arrow == std::string::npos ? w[2] : w[2].substr(arrow + 1));
}

bool marks(const std::string& line, const std::string& pattern) {
  const size_t at = pattern.empty() ? std::string::npos : line.find(pattern);
  if (at == std::string::npos) return false;
  const size_t end = at + pattern.size();
  return end == line.size() || line[end] == ' ';  // `= MUL i16` must not match `= MUL i16x4`
}

// Lines as <pre>, each in a span, marked ones in <mark>; cut at the listing limits.
std::string pre(const std::vector<std::string>& lines, const std::string& cls,
                const std::function<bool(const std::string&)>& marked, const std::string& where) {
  std::string s = "<pre class=\"" + cls + "\"><code>";
  size_t bytes = 0, shown = 0;
  for (; shown < lines.size() && shown < kListingLines && bytes < kListingBytes; ++shown) {
    const std::string& l = lines[shown];
    bytes += l.size() + 1;
    s += marked(l) ? "<mark>" + esc(l) + "</mark>\n" : esc(l) + "\n";
  }
  if (shown < lines.size())
    s += "<span class=\"cut\">… " + std::to_string(lines.size() - shown) + " more lines: see " + esc(where) + "</span>\n";
  return s + "</code></pre>";
}

}  // namespace

std::string reproducer_html(const Bucket& b) {
  std::string s = "<section class=\"repro\" id=\"repro-" + esc(b.id) + "\"><h3>" + esc(b.signature) + "</h3>";
  if (b.repro_path.empty()) return s + "<p>No reproducer found on disk for this bucket.</p></section>";
  std::ifstream in(b.repro_path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::vector<std::string> lines = lines_of(text.str());
  s += "<p class=\"path\">" + esc(b.repro_path) + "</p>";

  // The slots whose `got` line is there: their expect and got lines are the divergence, in numbers.
  std::set<std::string> slots;
  for (const std::string& l : lines)
    if (const std::vector<std::string> w = words(l); w.size() > 2 && w[0] == "got") slots.insert(w[1]);
  const std::string pattern = node_pattern(b.signature);
  s += pre(lines, "uop", [&](const std::string& l) {
    const std::vector<std::string> w = words(l);
    if (w.size() > 2 && (w[0] == "got" || w[0] == "expect") && slots.count(w[1])) return true;
    return marks(l, pattern);
  }, b.repro_path);

  std::string c;
  try {
    Program p = read_program(b.repro_path);
    verify(p);
    c = render_function(p, "kernel");
  } catch (const UserError& e) {
    return s + "<p>Not rendered: " + esc(located(b.repro_path, e)) + "</p></section>";
  }
  // The whole kernel function, unmarked: the renderer inlines single-use values, so a node has no line
  // of its own to point at; a reduced reproducer's function is a few lines.
  s += "<p class=\"note\">The kernel as uopfuzz's built-in renderer writes it (<code>uopfuzz render</code>); "
       "a plug-in's own C is not re-run here.</p>";
  s += pre(lines_of(c), "c", [](const std::string&) { return false; }, "uopfuzz render " + b.repro_path);
  return s + "</section>";
}

}  // namespace uf::report
