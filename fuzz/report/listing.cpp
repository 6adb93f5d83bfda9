// Reproducer listings.
#include "fuzz/report/listing.h"

#include <functional>
#include <set>
#include <vector>

#include "codegen/render/render.h"
#include "codegen/runtime/files.h"
#include "core/text.h"
#include "fuzz/report/html.h"

namespace uf::report {

namespace {

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

// One line for the listing: long `data` and `expect` lines of big buffers are cut, with a mark.
std::string shown_line(const std::string& l) {
  constexpr size_t kLineBytes = 300;
  return l.size() <= kLineBytes ? esc(l) : esc(l.substr(0, kLineBytes)) + "<span class=\"cut\"> …</span>";
}

// Lines as <pre>, marked ones in <mark>. Past the listing limits only the marked lines are kept (the
// divergence: its node and its expect/got lines), with a note where lines were left out.
std::string pre(const std::vector<std::string>& lines, const std::string& cls,
                const std::function<bool(const std::string&)>& marked, const std::string& where, size_t max_lines) {
  std::string s = "<pre class=\"" + cls + "\"><code>";
  size_t bytes = 0, omitted = 0, total_omitted = 0;
  auto flush_omitted = [&] {
    if (omitted) s += "<span class=\"cut\">… " + std::to_string(omitted) + " lines left out</span>\n";
    omitted = 0;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const bool mark = marked(l);
    if (!mark && (i >= max_lines || bytes >= kListingBytes)) {
      ++omitted;
      ++total_omitted;
      continue;
    }
    flush_omitted();
    bytes += std::min<size_t>(l.size(), 300) + 1;
    s += mark ? "<mark>" + shown_line(l) + "</mark>\n" : shown_line(l) + "\n";
  }
  flush_omitted();
  if (total_omitted) s += "<span class=\"cut\">(whole listing: " + esc(where) + ")</span>\n";
  return s + "</code></pre>";
}

}  // namespace

std::string reproducer_html(const Bucket& b, bool brief) {
  std::string s = "<section class=\"repro\" id=\"repro-" + esc(b.id) + "\"><h3>" + esc(b.signature) + "</h3>";
  if (b.repro_path.empty()) return s + "<p>No reproducer found on disk for this bucket.</p></section>";
  const std::vector<std::string> lines = uf::lines(read_file(b.repro_path).value_or(""));
  s += "<p class=\"path\">" + esc(b.repro_path) + "</p>";

  // The slots whose `got` line is there: their expect and got lines are the divergence, in numbers.
  std::set<std::string> slots;
  for (const std::string& l : lines)
    if (const std::vector<std::string> w = words(l); w.size() > 2 && w[0] == "got") slots.insert(w[1]);
  const std::string pattern = node_pattern(b.signature);
  s += pre(
      lines, "uop",
      [&](const std::string& l) {
        const std::vector<std::string> w = words(l);
        if (w.size() > 2 && (w[0] == "got" || w[0] == "expect") && slots.count(w[1])) return true;
        return marks(l, pattern);
      },
      b.repro_path, brief ? 0 : kListingLines);
  if (brief) return s + "</section>";

  std::string c;
  try {
    Program p = read_program(b.repro_path);
    verify(p);
    c = render_function(p, "kernel");
  } catch (const UserError& e) { return s + "<p>Not rendered: " + esc(located(b.repro_path, e)) + "</p></section>"; }
  // The whole kernel function, unmarked: the renderer inlines single-use values, so a node has no line
  // of its own to point at; a reduced reproducer's function is a few lines.
  s += "<p class=\"note\">The kernel as uopfuzz's built-in renderer writes it (<code>uopfuzz render</code>); "
       "a plug-in's own C is not re-run here.</p>";
  s += pre(
      uf::lines(c), "c", [](const std::string&) { return false; }, "uopfuzz render " + b.repro_path, kListingLines);
  return s + "</section>";
}

}  // namespace uf::report
