// `ptxgen show`: the picture as SVG (see picture.hpp). Plain SVG 1.1 text: each iteration
// pattern a panel, its ops' views side by side, each view's touched blocks side by side;
// every cell a <rect class="cell"> with a <title> naming its element, thread and
// iterations; then the banks of the emitted shared accesses from the simulator's
// profile, every bank a <rect class="bank"> (class "bank conflict" when it serves several
// words in one phase).

#include "driver/show/picture.hpp"
#include "driver/support/escape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ptxgen::driver::show {

namespace {

constexpr int margin = 16;
constexpr int cell_w = 14;
constexpr int cell_h = 10;
constexpr int line_h = 15;
constexpr int block_gap = 10; ///< between the blocks of one view
constexpr int view_gap = 28;  ///< between the views of one panel
constexpr int bank_w = 34;
constexpr int lane_line_h = 8; ///< one line of lane numbers in a bank cell
constexpr int lanes_per_line = 3;

/// The width of `s` in class `cls` (a monospace character is about 0.62 em wide).
int text_width(const std::string& cls, const std::string& s) {
  const int px = cls == "heading" ? 14 : cls == "panel-title" ? 13 : cls == "label" ? 7 : 11;
  return static_cast<int>(s.size()) * px * 62 / 100;
}

/// The SVG body being written, and how far right its text reaches.
struct Canvas {
  std::ostringstream out;
  int width = 0;
  template <class T>
  Canvas& operator<<(const T& v) {
    out << v;
    return *this;
  }
};

void text(Canvas& o, int x, int y, const std::string& cls, const std::string& s) {
  o.width = std::max(o.width, x + text_width(cls, s));
  o << "<text class=\"" << cls << "\" x=\"" << x << "\" y=\"" << y << "\">" << xml_escape(s)
    << "</text>\n";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// The multi-index of flat element `e` of `shape`, as "[i, j, k]".
std::string element_text(const std::vector<std::int64_t>& shape, std::int64_t e) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    idx[i] = shape[i] > 0 ? e % shape[i] : 0;
    e = shape[i] > 0 ? e / shape[i] : 0;
  }
  return shape_text(idx);
}

/// What a view's title lines say: the view, its tensor, how it is drawn, what is left out.
std::vector<std::pair<std::string, std::string>> view_lines(const ViewPanel& v) {
  const auto& t = *v.tensor;
  std::vector<std::pair<std::string, std::string>> lines;
  lines.emplace_back("view-title", v.role + ": " + v.text);
  lines.emplace_back(
      "caption", std::string(t.space == tile::Space::shared ? "shared" : "global") + " " + t.name +
                     " " + shape_text(t.shape) + " " + std::string(tile::name(t.dtype)) +
                     (v.blocks > 1 ? ": " + std::to_string(v.blocks) + " blocks of " +
                                         std::to_string(v.rows) + " x " + std::to_string(v.cols)
                                   : std::string()));
  if (v.touched_blocks == 0)
    lines.emplace_back("cap", "no element touched (every chunk predicated off or empty)");
  if (v.touched_blocks > static_cast<std::int64_t>(v.shown_blocks.size()))
    lines.emplace_back("cap", "the first " + std::to_string(v.shown_blocks.size()) + " of " +
                                  std::to_string(v.touched_blocks) + " touched blocks drawn");
  if (v.shown_rows < v.rows || v.shown_cols < v.cols)
    lines.emplace_back("cap", "rows 0.." + std::to_string(v.shown_rows - 1) + " of " +
                                  std::to_string(v.rows) + ", columns 0.." +
                                  std::to_string(v.shown_cols - 1) + " of " +
                                  std::to_string(v.cols) + " drawn (of each block)");
  if (!v.problem.empty())
    lines.emplace_back("cap", "some chunks could not be located: " + v.problem);
  return lines;
}

int view_width(const ViewPanel& v) {
  int w = static_cast<int>(v.shown_blocks.size()) *
              (static_cast<int>(v.shown_cols) * cell_w + block_gap) +
          2 * cell_w;
  for (const auto& [cls, s] : view_lines(v))
    w = std::max(w, text_width(cls, s));
  return w;
}

int view_height(const ViewPanel& v) {
  const int title = static_cast<int>(view_lines(v).size()) * line_h;
  return v.shown_blocks.empty() ? title : title + line_h + static_cast<int>(v.shown_rows) * cell_h;
}

/// "k = 0, 2, 4": the iterations that touch a cell, with the panel's loop variable.
std::string iterations_text(const IterationPanel& panel, const Cell& c) {
  if (c.iterations.empty())
    return "";
  return (panel.var.empty() ? std::string("step") : panel.var) + " = " + values_text(c.iterations);
}

void draw_cell(Canvas& o, const IterationPanel& panel, const ViewPanel& v, const Cell& cell,
               std::int64_t element, int x, int y) {
  o << "<rect class=\"cell\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << cell_w
    << "\" height=\"" << cell_h << "\" fill=\""
    << (cell.tid < 0 ? std::string("#ffffff") : thread_colour(cell.tid)) << "\"><title>"
    << xml_escape(v.tensor->name + element_text(v.tensor->shape, element));
  if (cell.tid < 0) {
    o << ": no thread of CTA 0";
  } else {
    o << ": thread " << cell.tid << " (warp " << cell.tid / sim::warp_lanes << ", lane "
      << cell.tid % sim::warp_lanes << ")";
    if (!cell.iterations.empty())
      o << ", " << xml_escape(iterations_text(panel, cell));
    if (cell.threads > 1)
      o << "; " << cell.threads << " threads touch it";
  }
  o << "</title></rect>\n";
}

/// Labels each run of cells of one thread along a row (and the same iterations) with
/// T<thread> and the iterations, as much as fits.
void label_runs(Canvas& o, const IterationPanel& panel, const ViewPanel& v, std::size_t first,
                int x0, int y) {
  for (std::int64_t c = 0; c < v.shown_cols;) {
    const Cell& cell = v.cells[first + static_cast<std::size_t>(c)];
    std::int64_t end = c + 1;
    while (end < v.shown_cols) {
      const Cell& next = v.cells[first + static_cast<std::size_t>(end)];
      if (next.tid != cell.tid || next.iterations != cell.iterations)
        break;
      ++end;
    }
    if (cell.tid >= 0) {
      const int room = static_cast<int>(end - c) * cell_w - 2;
      std::string label = "T" + std::to_string(cell.tid);
      const std::string its = iterations_text(panel, cell);
      if (panel.values.size() > 1 && !its.empty() && text_width("label", label + " " + its) <= room)
        label += " " + its;
      if (text_width("label", label) <= room)
        text(o, x0 + static_cast<int>(c) * cell_w + 1, y + cell_h - 2, "label", label);
    }
    c = end;
  }
}

/// Draws one view with its top-left at (x, y).
void draw_view(Canvas& o, const IterationPanel& panel, const ViewPanel& v, int x, int y) {
  for (const auto& [cls, s] : view_lines(v)) {
    text(o, x, y + 11, cls, s);
    y += line_h;
  }
  if (v.shown_blocks.empty())
    return;
  const std::int64_t per_block = v.rows * v.cols;
  const std::size_t cells_per_block = static_cast<std::size_t>(v.shown_rows * v.shown_cols);
  for (std::size_t bi = 0; bi < v.shown_blocks.size(); ++bi) {
    const int bx = x + static_cast<int>(bi) * (static_cast<int>(v.shown_cols) * cell_w + block_gap);
    const std::int64_t b = v.shown_blocks[bi];
    text(o, bx, y + 11, "index",
         v.blocks > 1 ? "block " + std::to_string(b) + " " +
                            element_text(std::vector<std::int64_t>(v.tensor->shape.begin(),
                                                                   v.tensor->shape.end() - 2),
                                         b)
                      : std::string("rows x columns"));
    for (std::int64_t r = 0; r < v.shown_rows; ++r) {
      const int ry = y + line_h + static_cast<int>(r) * cell_h;
      const std::size_t first = bi * cells_per_block + static_cast<std::size_t>(r * v.shown_cols);
      for (std::int64_t c = 0; c < v.shown_cols; ++c)
        draw_cell(o, panel, v, v.cells[first + static_cast<std::size_t>(c)],
                  b * per_block + r * v.cols + c, bx + static_cast<int>(c) * cell_w, ry);
      label_runs(o, panel, v, first, bx, ry);
    }
  }
}

/// Draws one iteration pattern; returns the y below it.
int draw_panel(Canvas& o, const IterationPanel& panel, int y) {
  text(o, margin, y + 13, "panel-title", panel.title);
  y += line_h + 4;
  std::string plain;
  for (const auto& op : panel.ops)
    if (op.views.empty())
      plain += (plain.empty() ? "" : "; ") + op.kind;
  if (!plain.empty()) {
    text(o, margin, y + 11, "caption", "ops without views, in order: " + plain);
    y += line_h;
  }
  int x = margin, height = 0;
  for (const auto& op : panel.ops) {
    if (op.views.empty())
      continue;
    text(o, x, y + 11, "op-title", op.label + ": " + op.kind);
    int vx = x, h = 0;
    for (const auto& v : op.views) {
      draw_view(o, panel, v, vx, y + line_h);
      vx += view_width(v) + view_gap;
      h = std::max(h, view_height(v));
    }
    x = std::max(vx, x + text_width("op-title", op.label + ": " + op.kind) + view_gap);
    height = std::max(height, line_h + h);
  }
  o.width = std::max(o.width, x);
  return y + height + line_h;
}

/// One bank row: the row's costliest request, bank by bank; returns the y below it.
int draw_bank_row(Canvas& o, const sim::ProfileRow& row, int y) {
  text(o, margin, y + 11, "caption",
       "line " + std::to_string(row.ptx_line) + " " + std::string(sim::name(row.kind)) + ": " +
           row.instruction);
  y += line_h;
  text(o, margin, y + 11, "caption",
       std::to_string(row.requests) + " requests, " + std::to_string(row.units) +
           " wavefronts (ideal " + std::to_string(row.ideal) + ", " +
           std::to_string(row.units - row.ideal) +
           " from bank conflicts); its costliest request, " + std::to_string(row.worst) + "-way" +
           (row.worst > 1 ? " (a bank conflict)" : "") + ":");
  y += line_h;
  const auto ways = sim::bank_ways(row.worst_lanes);
  std::array<std::vector<std::uint32_t>, sim::shared_banks> lanes;
  for (const auto& a : row.worst_lanes) {
    const std::uint64_t first = a.address / sim::bank_bytes;
    const std::uint64_t last = (a.address + std::max(a.bytes, 1u) - 1) / sim::bank_bytes;
    for (std::uint64_t word = first; word <= last && word < first + sim::shared_banks; ++word)
      if (auto& l = lanes[word % sim::shared_banks]; l.empty() || l.back() != a.lane)
        l.push_back(a.lane);
  }
  std::size_t most = 1;
  for (const auto& l : lanes)
    most = std::max(most, (l.size() + lanes_per_line - 1) / lanes_per_line);
  const int h = static_cast<int>(most) * lane_line_h + 12;
  for (std::uint32_t b = 0; b < sim::shared_banks; ++b) {
    const int x = margin + static_cast<int>(b) * bank_w;
    const char* cls = ways[b] > 1 ? "bank conflict" : ways[b] == 1 ? "bank used" : "bank";
    const char* fill = ways[b] > 1 ? "#f08080" : ways[b] == 1 ? "#c8e6c9" : "#f5f5f5";
    std::string all;
    for (auto l : lanes[b])
      all += (all.empty() ? "" : " ") + std::to_string(l);
    o << "<rect class=\"" << cls << "\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << bank_w
      << "\" height=\"" << h << "\" fill=\"" << fill << "\"><title>bank " << b
      << (all.empty() ? std::string(": untouched") : ": lanes " + all) << "; " << ways[b]
      << (ways[b] == 1 ? " word" : " words") << " in its busiest phase</title></rect>\n";
    text(o, x + 2, y + 9, "index", "b" + std::to_string(b));
    for (std::size_t i = 0; i < lanes[b].size(); i += lanes_per_line) {
      std::string line;
      for (std::size_t j = i; j < std::min(lanes[b].size(), i + lanes_per_line); ++j)
        line += (j > i ? " " : "") + std::to_string(lanes[b][j]);
      text(o, x + 2, y + 9 + static_cast<int>(i / lanes_per_line + 1) * lane_line_h, "label", line);
    }
  }
  return y + h + 6;
}

/// The banks of the emitted shared accesses, from the profile; returns the y below them.
int draw_banks(Canvas& o, const Picture& p, int y) {
  text(o, margin, y + 13, "panel-title", "Shared-memory banks of the emitted instructions");
  y += line_h + 4;
  if (!p.profile) {
    text(o, margin, y + 11, "cap", "no bank figures: " + p.profile_note);
    return y + line_h * 2;
  }
  text(o, margin, y + 11, "caption",
       "from the simulator's profile of the whole launch (ptxgen run --profile; " + p.profile_note +
           "); bank = (byte offset / 4) % 32, the lanes listed per bank;");
  y += line_h;
  text(o, margin, y + 11, "caption",
       "red: the bank serves several words in one phase (a bank conflict). " +
           sim::shared_totals_text(*p.profile));
  y += line_h + 4;
  for (const auto& row : p.profile->rows)
    if (sim::is_shared(row.kind))
      y = draw_bank_row(o, row, y);
  return y + line_h;
}

} // namespace

std::string thread_colour(std::int64_t tid) {
  // Golden-angle hues: neighbouring threads get far-apart colours; lightness cycles
  // through three steps so that threads 360/137.5 apart differ too.
  const double hue = std::fmod(static_cast<double>(tid) * 137.508, 360.0);
  const int light = 62 + static_cast<int>(tid % 3) * 10;
  char buf[48];
  std::snprintf(buf, sizeof buf, "hsl(%.1f,70%%,%d%%)", hue, light);
  return buf;
}

/// Each multicast as a grid: a row per sending rank of CTA 0's cluster, a column per rank
/// whose shared memory its copies fill (a filled square where they do).
int draw_multicasts(Canvas& o, const Picture& p, int y) {
  if (p.multicasts.empty())
    return y;
  text(o, margin, y + 13, "panel-title",
       "multicasts and peer copies in CTA 0's cluster (first iteration of each loop): row = "
       "the rank that issues, column = the rank whose shared memory its copy fills");
  y += line_h + 4;
  for (const MulticastPanel& m : p.multicasts) {
    text(o, margin, y + 11, "op-title", m.label);
    y += line_h;
    for (std::int64_t c = 0; c < m.ranks; ++c)
      text(o, margin + 40 + static_cast<int>(c) * cell_w, y + 9, "index", std::to_string(c));
    y += 12;
    for (std::int64_t s = 0; s < m.ranks; ++s) {
      text(o, margin, y + 9, "index", "rank " + std::to_string(s));
      for (std::int64_t r = 0; r < m.ranks; ++r) {
        const bool fills = ((m.sends[static_cast<std::size_t>(s)] >> r) & 1U) != 0;
        o << "<rect class=\"cell\" x=\"" << margin + 40 + static_cast<int>(r) * cell_w << "\" y=\""
          << y << "\" width=\"" << cell_w << "\" height=\"" << cell_h << "\" fill=\""
          << (fills ? thread_colour(s) : std::string("#ffffff")) << "\"><title>rank " << s
          << (fills ? " fills" : " does not fill") << " rank " << r
          << "'s shared memory</title></rect>\n";
      }
      y += cell_h;
    }
    y += line_h / 2;
  }
  return y + line_h;
}

std::string render_svg(const Picture& p) {
  Canvas body;
  int y = margin;
  text(body, margin, y + 14, "heading",
       "ptxgen show: kernel " + p.kernel + " (" + p.spec + "), CTA 0 of its grid" +
           (p.cluster_ctas > 1
                ? " (rank 0 of a cluster of " + std::to_string(p.cluster_ctas) + " CTAs)"
                : std::string()) +
           ", " + std::to_string(p.threads) + " threads");
  y += line_h + 6;
  text(body, margin, y + 11, "caption",
       "one panel per distinct iteration pattern (iterations alike up to a shift of the "
       "elements touched); each cell coloured by the thread that touches it, labelled "
       "T<thread> and the iterations; hover a cell for its element, warp and lane");
  y += line_h + 8;
  if (!p.walk_note.empty()) {
    text(body, margin, y + 11, "cap", p.walk_note);
    y += line_h;
  }
  for (const auto& panel : p.panels)
    y = draw_panel(body, panel, y);
  y = draw_multicasts(body, p, y);
  y = draw_banks(body, p, y);
  const int width =
      std::max(body.width, margin + static_cast<int>(sim::shared_banks) * bank_w) + margin;
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << width
    << "\" height=\"" << y + margin << "\" viewBox=\"0 0 " << width << ' ' << y + margin
    << "\" font-family=\"monospace\">\n"
    << "<title>" << xml_escape("ptxgen show " + p.spec) << "</title>\n"
    << "<style>\n"
       ".cell{stroke:#999;stroke-width:0.5}\n"
       ".bank{stroke:#999;stroke-width:0.5}\n"
       ".heading{font-size:14px;font-weight:bold}\n"
       ".panel-title{font-size:13px;font-weight:bold}\n"
       ".op-title{font-size:11px;font-weight:bold}\n"
       ".view-title,.caption{font-size:11px}\n"
       ".cap{font-size:11px;fill:#b00000}\n"
       ".index{font-size:9px;fill:#555}\n"
       ".label{font-size:7px}\n"
       "</style>\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << y + margin
    << "\" fill=\"#ffffff\"/>\n"
    << body.out.str() << "</svg>\n";
  return o.str();
}

} // namespace ptxgen::driver::show
