// `ptxgen show`: the picture as SVG (see picture.hpp). Plain SVG 1.1 text: every cell a
// <rect class="cell"> with a <title> naming its element, thread and repeat coordinate;
// every bank of a warp-0 access a <rect class="bank"> (class "bank conflict" when it
// serves several words in one phase).

#include "driver/show/picture.hpp"
#include "driver/support/escape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ptxgen::driver::show {

namespace {

constexpr int margin = 16;
constexpr int cell_w = 44;
constexpr int cell_h = 24;
constexpr int line_h = 16;
constexpr int index_w = 40; ///< the row-index column left of a grid
constexpr int bank_w = 30;
constexpr int bank_h = 26;
constexpr int bank_label_w = 260; ///< the access's caption left of its banks

std::string tuple_text(const std::vector<std::int64_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + ")";
}

/// The multi-index of flat element `e` of `shape`, as "[i, j, k]".
std::string element_text(const std::vector<std::int64_t>& shape, std::int64_t e) {
  std::vector<std::int64_t> idx(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    idx[i] = shape[i] > 0 ? e % shape[i] : 0;
    e = shape[i] > 0 ? e / shape[i] : 0;
  }
  std::string s = "[";
  for (std::size_t i = 0; i < idx.size(); ++i)
    s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + "]";
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
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

/// Text of class `cls` at (x, y); a monospace character is about 0.62 em wide.
void text(Canvas& o, int x, int y, const std::string& cls, const std::string& s) {
  const int px = cls == "heading" ? 14 : cls == "op-title" ? 13 : 11;
  o.width = std::max(o.width, x + static_cast<int>(s.size()) * px * 62 / 100);
  o << "<text class=\"" << cls << "\" x=\"" << x << "\" y=\"" << y << "\">" << xml_escape(s)
    << "</text>\n";
}

/// Whether chunk `index`'s drawn cells are one run along a row (then one outline spans it).
bool one_run(const ViewPanel& v, std::int64_t index) {
  const Chunk& c = v.chunks[static_cast<std::size_t>(index)];
  const std::int64_t last = c.first_cell + c.cells - 1;
  if (c.first_cell / v.shown_cols != last / v.shown_cols)
    return false;
  for (std::int64_t i = c.first_cell; i <= last; ++i)
    if (v.cells[static_cast<std::size_t>(i)].chunk != index)
      return false;
  return true;
}

/// Draws the element grid of `v` with its top at y; returns the y below it.
int draw_grid(Canvas& o, const ViewPanel& v, int y) {
  const auto& shape = v.tensor->shape;
  for (std::int64_t c = 0; c < v.shown_cols; ++c)
    text(o, margin + index_w + static_cast<int>(c) * cell_w + 2, y + 11, "index",
         std::to_string(c));
  y += line_h;
  for (std::int64_t r = 0; r < v.shown_rows; ++r) {
    const int ry = y + static_cast<int>(r) * cell_h;
    text(o, margin, ry + 15, "index", std::to_string(r));
    for (std::int64_t c = 0; c < v.shown_cols; ++c) {
      const Cell& cell = v.cells[static_cast<std::size_t>(r * v.shown_cols + c)];
      const int x = margin + index_w + static_cast<int>(c) * cell_w;
      o << "<rect class=\"cell\" x=\"" << x << "\" y=\"" << ry << "\" width=\"" << cell_w
        << "\" height=\"" << cell_h << "\" fill=\""
        << (cell.tid < 0 ? std::string("#ffffff") : thread_colour(cell.tid)) << "\"><title>"
        << xml_escape(v.tensor->name + element_text(shape, r * v.cols + c));
      if (cell.tid < 0) {
        o << ": no thread of CTA 0";
      } else {
        const Chunk& ch = v.chunks[static_cast<std::size_t>(cell.chunk)];
        o << ": thread " << cell.tid << " (warp " << cell.tid / sim::warp_lanes << ", lane "
          << cell.tid % sim::warp_lanes << "), repeat " << tuple_text(ch.repeat);
        if (cell.threads > 1)
          o << "; " << cell.threads << " threads touch it";
      }
      o << "</title></rect>\n";
    }
  }
  for (std::size_t i = 0; i < v.chunks.size(); ++i) {
    const Chunk& ch = v.chunks[i];
    const int x = margin + index_w + static_cast<int>(ch.first_cell % v.shown_cols) * cell_w;
    const int cy = y + static_cast<int>(ch.first_cell / v.shown_cols) * cell_h;
    if (v.cells[static_cast<std::size_t>(ch.first_cell)].chunk != static_cast<std::int64_t>(i))
      continue; // another thread's chunk is drawn over it
    if (one_run(v, static_cast<std::int64_t>(i)))
      o << "<rect class=\"chunk\" x=\"" << x << "\" y=\"" << cy << "\" width=\""
        << static_cast<int>(ch.cells) * cell_w << "\" height=\"" << cell_h << "\"/>\n";
    text(o, x + 2, cy + 10, "label", "T" + std::to_string(ch.tid));
    text(o, x + 2, cy + 20, "label", tuple_text(ch.repeat));
  }
  return y + static_cast<int>(v.shown_rows) * cell_h + line_h / 2;
}

/// Draws warp 0's shared accesses of `v`; returns the y below them.
int draw_banks(Canvas& o, const ViewPanel& v, int y) {
  text(o, margin, y + 12, "caption",
       "warp 0's shared accesses (" + std::to_string(v.access_bytes) + " bytes per lane; " +
           std::to_string(v.bank_accesses) + " in all" +
           (v.bank_accesses > v.banks.size()
                ? ", the first " + std::to_string(v.banks.size()) + " drawn"
                : std::string()) +
           "): bank = (byte offset / 4) % 32; lanes per bank; red: the bank serves several "
           "words in one phase (a bank conflict)");
  y += line_h + 4;
  const int x0 = margin + bank_label_w;
  for (std::uint32_t b = 0; b < sim::shared_banks; ++b)
    text(o, x0 + static_cast<int>(b) * bank_w + 2, y + 11, "index", "b" + std::to_string(b));
  y += line_h;
  for (const BankRow& row : v.banks) {
    text(o, margin, y + 16, "caption",
         "repeat " + tuple_text(row.repeat) + ": " + std::to_string(row.cost.wavefronts) +
             " wavefronts (ideal " + std::to_string(row.cost.ideal()) + ")");
    for (std::uint32_t b = 0; b < sim::shared_banks; ++b) {
      std::string lanes;
      for (const auto& a : row.lanes) {
        const std::uint64_t first = a.address / sim::bank_bytes;
        const std::uint64_t last = (a.address + std::max(a.bytes, 1u) - 1) / sim::bank_bytes;
        for (std::uint64_t word = first; word <= last; ++word)
          if (word % sim::shared_banks == b) {
            lanes += (lanes.empty() ? "" : " ") + std::to_string(a.lane);
            break;
          }
      }
      const std::uint32_t ways = row.ways[b];
      const char* cls = ways > 1 ? "bank conflict" : ways == 1 ? "bank used" : "bank";
      const char* fill = ways > 1 ? "#f08080" : ways == 1 ? "#c8e6c9" : "#f5f5f5";
      const int x = x0 + static_cast<int>(b) * bank_w;
      o << "<rect class=\"" << cls << "\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << bank_w
        << "\" height=\"" << bank_h << "\" fill=\"" << fill << "\"><title>bank " << b
        << (lanes.empty() ? std::string(": untouched") : ": lanes " + lanes) << "; " << ways
        << (ways == 1 ? " word" : " words") << " in its busiest phase</title></rect>\n";
      if (!lanes.empty())
        text(o, x + 2, y + 10, "lanes", lanes.size() > 7 ? lanes.substr(0, 6) + "+" : lanes);
    }
    y += bank_h + 4;
  }
  return y + line_h / 2;
}

int draw_view(Canvas& o, const ViewPanel& v, int y) {
  const auto& t = *v.tensor;
  text(o, margin, y + 12, "view-title",
       v.role + ": " + v.text + "  (" + (t.space == tile::Space::shared ? "shared" : "global") +
           " tensor " + t.name + " " + shape_text(t.shape) + " " +
           std::string(tile::name(t.dtype)) + ", drawn as " + std::to_string(v.rows) + " x " +
           std::to_string(v.cols) + ")");
  y += line_h + 2;
  if (v.shown_rows < v.rows || v.shown_cols < v.cols) {
    text(o, margin, y + 12, "cap",
         "showing rows 0.." + std::to_string(v.shown_rows - 1) + " of " + std::to_string(v.rows) +
             " and columns 0.." + std::to_string(v.shown_cols - 1) + " of " +
             std::to_string(v.cols) + ": at most " + std::to_string(max_rows) + " x " +
             std::to_string(max_cols) + " cells are drawn");
    y += line_h;
  }
  if (!v.problem.empty()) {
    text(o, margin, y + 12, "cap", "some chunks could not be located: " + v.problem);
    y += line_h;
  }
  y = draw_grid(o, v, y);
  if (!v.banks.empty())
    y = draw_banks(o, v, y);
  return y;
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

std::string render_svg(const Picture& p) {
  Canvas body;
  int y = margin;
  text(body, margin, y + 14, "heading",
       "ptxgen show: kernel " + p.kernel + " (" + p.spec + "), CTA 0 of its grid, " +
           std::to_string(p.threads) + " threads");
  y += line_h + 6;
  text(body, margin, y + 12, "caption",
       "each cell is coloured by the thread that copies it and labelled T<thread> and its "
       "repeat coordinate; hover a cell for its element, warp and lane");
  y += line_h + 8;
  std::int64_t widest = 0;
  for (const auto& op : p.ops) {
    text(body, margin, y + 14, "op-title", op.label + ": " + op.kind);
    y += line_h + 6;
    for (const auto& v : op.views) {
      widest = std::max<std::int64_t>(widest, 2 * margin + index_w + v.shown_cols * cell_w);
      y = draw_view(body, v, y);
    }
  }
  widest = std::max<std::int64_t>(widest, 2 * margin + bank_label_w + sim::shared_banks * bank_w);
  widest = std::max<std::int64_t>(widest, body.width + margin);
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" << widest
    << "\" height=\"" << y + margin << "\" viewBox=\"0 0 " << widest << ' ' << y + margin
    << "\" font-family=\"monospace\">\n"
    << "<title>" << xml_escape("ptxgen show " + p.spec) << "</title>\n"
    << "<style>\n"
       ".cell{stroke:#999;stroke-width:0.5}\n"
       ".chunk{fill:none;stroke:#222;stroke-width:1.5}\n"
       ".bank{stroke:#999;stroke-width:0.5}\n"
       ".heading{font-size:14px;font-weight:bold}\n"
       ".op-title{font-size:13px;font-weight:bold}\n"
       ".view-title,.caption{font-size:11px}\n"
       ".cap{font-size:11px;fill:#b00000}\n"
       ".index{font-size:9px;fill:#555}\n"
       ".label{font-size:8px}\n"
       ".lanes{font-size:7px}\n"
       "</style>\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << widest << "\" height=\"" << y + margin
    << "\" fill=\"#ffffff\"/>\n"
    << body.out.str() << "</svg>\n";
  return o.str();
}

} // namespace ptxgen::driver::show
