// The executor's CTA: the tensor cores (cta.hpp; the arithmetic and layouts: tensor_core.hpp).
//
// mma.sync, stmatrix and movmatrix are warp-collective and synchronous: the last lane to arrive
// performs them for the warp. wgmma.mma_async is warpgroup-collective (128 threads, 4 warps)
// and asynchronous: the simulator computes it when the last thread arrives, and keeps it in
// flight (Cta::wgmmas_) until a wgmma.wait_group retires its group. PTX lets the hardware read
// the shared operands and write the accumulators at any time in that interval, so:
//   - a write into bytes it reads, not ordered after a wait that retired it, is a race
//     (write_before_wgmma_read). Its reads are the warpgroup's, not its last thread's: any
//     one retiring wait orders them (CUTLASS and fast.cu release a stage from one thread per
//     warpgroup after its wgmma.wait_group), so no byte's reader holds them; the record
//     stays after every thread retired it until an ordered write into its operands or a CTA
//     barrier (Wgmma::done);
//   - the registers it accumulates into may not be touched before the wait
//     (wgmma_register_in_flight), except by a wgmma of the same shape into the same registers;
//   - a register it reads (accumulator or A fragment) must be written before a wgmma.fence of
//     the thread (missing_wgmma_fence), and the first wgmma needs a fence;
//   - its shared operands are read through the async proxy (missing_proxy_fence, as bulk
//     copies).
// The simulator runs one thread at a time, so computing at issue gives the same result as any
// time in the interval whenever these rules hold.

#include "driver/sim/cta.hpp"
#include "driver/sim/forms.hpp"
#include "driver/sim/tensor_core.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <vector>

namespace ptxgen::sim::exec {
namespace {

constexpr std::size_t warpgroup_size = 128;

/// Reads a fragment: element i of the registers `list` (per_register(e) each) goes to the
/// matrix cell `cell_of(i)` of `out` (row-major, `cols` wide).
template <class CellOf>
void read_fragment(const std::uint64_t* regs, const std::vector<std::uint32_t>& list, ir::Elem e,
                   CellOf cell_of, std::vector<double>& out, unsigned cols) {
  const unsigned epr = tc::per_register(e);
  for (std::size_t j = 0; j < list.size(); ++j) {
    for (unsigned x = 0; x < epr; ++x) {
      const tc::Cell c = cell_of(static_cast<unsigned>(j * epr + x));
      out[static_cast<std::size_t>(c.row) * cols + c.col] =
          tc::value(e, tc::element_of(e, regs[list[j]], x));
    }
  }
}

/// The register values of a fragment of `d` (row-major bits, `cols` wide): register j holds
/// the elements j * per_register .. of `cell_of`.
template <class CellOf>
std::vector<std::uint64_t> write_fragment(std::size_t count, ir::Elem e, CellOf cell_of,
                                          const std::vector<std::uint64_t>& d, unsigned cols) {
  const unsigned epr = tc::per_register(e), bits = tc::elem_bits(e);
  std::vector<std::uint64_t> out(count, 0);
  for (std::size_t j = 0; j < count; ++j) {
    for (unsigned x = 0; x < epr; ++x) {
      const tc::Cell c = cell_of(static_cast<unsigned>(j * epr + x));
      out[j] |= d[static_cast<std::size_t>(c.row) * cols + c.col] << (x * bits % 64);
    }
  }
  return out;
}

bool is_wgmma_family(ir::Code c) {
  return c == ir::Code::wgmma || c == ir::Code::wgmma_fence || c == ir::Code::wgmma_commit ||
         c == ir::Code::wgmma_wait;
}

/// The registers `op` writes, by the shapes of its form (forms.def).
void written_registers(const ir::Op& op, const ir::Entry& e, std::vector<std::uint32_t>& out) {
  auto dsts = [&](std::size_t n) {
    for (std::size_t k = 0; k < n && k < 4; ++k)
      if (op.dst[k] != ir::no_register) // ldmatrix's sink `_`
        out.push_back(op.dst[k]);
  };
  switch (op.code) {
  case ir::Code::mov_unpack:
    return dsts(op.vec);
  case ir::Code::mov_pack:
  case ir::Code::movmatrix:
    return dsts(1);
  case ir::Code::mma:
  case ir::Code::wmma_load:
  case ir::Code::wmma_mma:
  case ir::Code::wgmma: {
    const ir::MatrixOp& m = e.matrix[static_cast<std::size_t>(op.n)];
    for (std::uint32_t r : m.dregs)
      if (r != ir::no_register) // mma.sync's sink `_`
        out.push_back(r);
    return;
  }
  case ir::Code::wmma_store:
    return;
  default:
    break;
  }
  for (const detail::Form& f : detail::forms()) {
    if (f.code != op.code)
      continue;
    for (detail::Shape s : f.operands) {
      switch (s) {
      case detail::Shape::dst:
      case detail::Shape::dst_wide:
      case detail::Shape::dst_at_least:
      case detail::Shape::dst_pred:
      case detail::Shape::mov_dst:
      case detail::Shape::dst_u32:
      case detail::Shape::pred_pair:
        dsts(1);
        break;
      case detail::Shape::dst_pair:
        if (!op.sink)
          dsts(1);
        break;
      case detail::Shape::matrix_dst:
        dsts(op.vec);
        break;
      case detail::Shape::data:
        if (op.code == ir::Code::ld)
          dsts(op.vec);
        break;
      case detail::Shape::mbar_state:
        if (!op.sink)
          dsts(1);
        break;
      default:
        break;
      }
    }
    if (op.pred_dst >= 0) // the `|p` of a `d|p` or `p|q` destination
      out.push_back(static_cast<std::uint32_t>(op.pred_dst));
    return;
  }
}

/// The registers `op` reads.
void read_registers(const ir::Op& op, const ir::Entry& e, std::vector<std::uint32_t>& out) {
  if (op.guard >= 0)
    out.push_back(static_cast<std::uint32_t>(op.guard));
  for (const ir::Val& v : op.src)
    if (v.reads_reg())
      out.push_back(v.reg);
  for (const ir::Val& v : op.coords)
    if (v.reads_reg())
      out.push_back(v.reg);
  if (op.zval.reads_reg())
    out.push_back(op.zval.reg);
  for (const ir::Addr* a : {&op.addr, &op.addr2, &op.addr3})
    if (a->has_reg)
      out.push_back(a->reg);
  if (op.code != ir::Code::mma && op.code != ir::Code::wgmma && op.code != ir::Code::wmma_mma &&
      op.code != ir::Code::wmma_store)
    return;
  const ir::MatrixOp& m = e.matrix[static_cast<std::size_t>(op.n)];
  for (const auto* list : {&m.aregs, &m.bregs, &m.cregs})
    for (std::uint32_t r : *list)
      if (r != ir::no_register) // an immediate of mma.sync's c
        out.push_back(r);
  if (op.code == ir::Code::wmma_store) // its fragment
    out.insert(out.end(), m.dregs.begin(), m.dregs.end());
  if (op.code == ir::Code::wgmma) {
    out.insert(out.end(), m.dregs.begin(), m.dregs.end());
    out.push_back(m.b_desc_reg);
    if (m.a_desc)
      out.push_back(m.a_desc_reg);
    if (m.scale_is_reg)
      out.push_back(m.scale_reg);
  }
}

bool same_form(const ir::MatrixOp& x, const ir::MatrixOp& y) {
  return x.m == y.m && x.n == y.n && x.k == y.k && x.d == y.d && x.a == y.a && x.b == y.b &&
         x.dregs == y.dregs;
}

} // namespace

Cta::Flow Cta::tensor_op(Thread& t, const ir::Op& op) {
  switch (op.code) {
  case ir::Code::mma:
  case ir::Code::stmatrix:
  case ir::Code::movmatrix:
  case ir::Code::wmma_load:
  case ir::Code::wmma_store:
  case ir::Code::wmma_mma:
  case ir::Code::wgmma: {
    const std::size_t width = op.code == ir::Code::wgmma ? warpgroup_size : warp_size;
    const auto lanes = gather(t, op, width);
    if (!lanes)
      return Flow::stop;
    const auto [first, last] = *lanes;
    if (last - first != width)
      fault_at(FaultKind::undefined_behavior, t, op,
               std::string(op.code == ir::Code::wgmma ? "a warpgroup of 128" : "a warp of 32") +
                   " threads must execute this instruction; the CTA has " +
                   std::to_string(last - first) + " here");
    if (op.code == ir::Code::mma)
      mma_sync(first, last, op);
    else if (op.code == ir::Code::stmatrix)
      store_matrices(first, last, op);
    else if (op.code == ir::Code::movmatrix)
      move_matrix(first, last, op);
    else if (op.code == ir::Code::wmma_load || op.code == ir::Code::wmma_store)
      wmma_move(first, last, op);
    else if (op.code == ir::Code::wmma_mma)
      wmma_mma(first, last, op);
    else
      wgmma_issue(t, first, op);
    for (std::size_t k = first; k < last; ++k)
      threads_[k].state = State::running;
    return Flow::next;
  }
  case ir::Code::wgmma_fence: {
    WgmmaThread& w = wgt_[t.tid];
    w.fenced = true;
    std::fill(w.written.begin(), w.written.end(), RegisterWrite{});
    return Flow::next;
  }
  case ir::Code::wgmma_commit:
    ++wgt_[t.tid].committed; // an empty group is a real one, as cp.async's
    return Flow::next;
  case ir::Code::wgmma_wait:
    wgmma_wait(t, op);
    return Flow::next;
  default:
    unreachable("tensor_op(): not a tensor-core instruction");
  }
}

std::optional<std::pair<std::size_t, std::size_t>> Cta::gather(Thread& t, const ir::Op& op,
                                                               std::size_t width) {
  t.state = State::at_warp;
  t.stop_line = op.line;
  const std::size_t first = t.tid / width * width;
  const std::size_t last = std::min(first + width, threads_.size());
  const char* unit = width == warp_size ? "warp" : "warpgroup";
  for (std::size_t k = first; k < last; ++k) {
    const Thread& u = threads_[k];
    // A warp's lane at another warp instruction can never come here; a warpgroup's thread in
    // another warp may still be on its way (at its own warp's collective).
    if (u.state == State::exited ||
        (width == warp_size && u.state == State::at_warp && u.pc != t.pc))
      fault_at(FaultKind::barrier_divergence, t, op,
               std::string("every thread of the ") + unit +
                   " must execute this .sync.aligned instruction together, but " + other(u.tid) +
                   (u.state == State::exited ? " exited" : " is") + " at PTX line " +
                   std::to_string(u.stop_line));
    if (u.state != State::at_warp || u.pc != t.pc)
      return std::nullopt;
  }
  return std::make_pair(first, last);
}

void Cta::mma_sync(std::size_t first, std::size_t last, const ir::Op& op) {
  const ir::MatrixOp& m = e_.matrix[static_cast<std::size_t>(op.n)];
  const unsigned rows = m.m, cols = m.n, k = m.k;
  std::vector<double> a(static_cast<std::size_t>(rows) * k), b(static_cast<std::size_t>(k) * cols),
      c(static_cast<std::size_t>(rows) * cols);
  for (std::size_t l = 0; l < last - first; ++l) {
    const auto lane = static_cast<unsigned>(l);
    const std::uint64_t* regs = threads_[first + l].regs;
    read_fragment(
        regs, m.aregs, m.a, [&](unsigned i) { return tc::a_cell(rows, m.a, lane, i); }, a, k);
    read_fragment(
        regs, m.bregs, m.b, [&](unsigned i) { return tc::b_cell(m.b, lane, i); }, b, cols);
    if (m.cimm.empty()) {
      read_fragment(
          regs, m.cregs, m.c, [&](unsigned i) { return tc::c_cell(lane, i); }, c, cols);
      continue;
    }
    // c with immediates: the lane's c values, registers and immediates in their places
    std::vector<std::uint64_t> cv(m.cregs.size());
    std::vector<std::uint32_t> at(m.cregs.size());
    for (std::size_t j = 0; j < cv.size(); ++j) {
      cv[j] = m.cregs[j] == ir::no_register ? m.cimm[j] : regs[m.cregs[j]];
      at[j] = static_cast<std::uint32_t>(j);
    }
    read_fragment(
        cv.data(), at, m.c, [&](unsigned i) { return tc::c_cell(lane, i); }, c, cols);
  }
  const std::vector<std::uint64_t> d = tc::multiply(m, rows, cols, a, b, c);
  for (std::size_t l = 0; l < last - first; ++l) {
    const auto lane = static_cast<unsigned>(l);
    const auto vals = write_fragment(
        m.dregs.size(), m.d, [&](unsigned i) { return tc::c_cell(lane, i); }, d, cols);
    for (std::size_t j = 0; j < vals.size(); ++j)
      if (m.dregs[j] != ir::no_register) // the sink `_`
        set(threads_[first + l], m.dregs[j], vals[j]);
  }
}

void Cta::store_matrices(std::size_t first, std::size_t last, const ir::Op& op) {
  std::uint64_t rows[32] = {};
  (void)last; // a full warp (tensor_op)
  for (std::size_t i = 0; i < 8u * op.vec; ++i) {
    Thread& u = threads_[first + i];
    std::uint64_t a = address(u, op.addr);
    if (!resolve_shared(op, a))
      fault_at(FaultKind::illegal_address, u, op,
               "stmatrix row address " + hex(a) + " is not in shared memory");
    check_align(u, op, a, 16, "stmatrix row");
    check_shared(u, op, a, 16, "stmatrix row");
    not_an_mbarrier(u, op, a, 16, "stmatrix");
    rows[i] = a;
    const Access self = now(u, op);
    check_write(u, self, a, 16, false, false);
    mark_written(self, a, 16);
  }
  auto put16 = [&](std::uint64_t at, std::uint64_t v) {
    smem_[at] = static_cast<std::uint8_t>(v & 0xff);
    smem_[at + 1] = static_cast<std::uint8_t>((v >> 8) & 0xff);
  };
  // the inverse of ldmatrix (Cta::load_matrices): lane l holds row l / 4, columns 2 (l % 4)
  // and 2 (l % 4) + 1 of each matrix; with .trans that column pair is a row pair
  for (std::size_t l = 0; l < warp_size; ++l) {
    const Thread& u = threads_[first + l];
    for (std::uint32_t mi = 0; mi < op.vec; ++mi) {
      const std::uint64_t* r = rows + 8 * mi;
      const std::uint64_t v = raw(u, op.src[mi]);
      if (op.trans) {
        put16(r[2 * (l % 4)] + 2 * (l / 4), v & 0xffff);
        put16(r[2 * (l % 4) + 1] + 2 * (l / 4), (v >> 16) & 0xffff);
      } else {
        put16(r[l / 4] + 4 * (l % 4), v & 0xffff);
        put16(r[l / 4] + 4 * (l % 4) + 2, (v >> 16) & 0xffff);
      }
    }
  }
}

void Cta::move_matrix(std::size_t first, std::size_t last, const ir::Op& op) {
  // lane l holds row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1; after the transpose it holds
  // those of the transposed matrix (PTX ISA, movmatrix)
  std::uint64_t mtx[8][8] = {};
  for (std::size_t l = 0; l < last - first; ++l) {
    const std::uint64_t v = raw(threads_[first + l], op.src[0]);
    mtx[l / 4][2 * (l % 4)] = v & 0xffff;
    mtx[l / 4][2 * (l % 4) + 1] = (v >> 16) & 0xffff;
  }
  for (std::size_t l = 0; l < last - first; ++l)
    set(threads_[first + l], op.dst[0],
        mtx[2 * (l % 4)][l / 4] | mtx[2 * (l % 4) + 1][l / 4] << 16);
}

std::vector<double> Cta::wgmma_shared_operand(const Thread& t, const ir::Op& op, std::uint64_t desc,
                                              unsigned rows, ir::Elem e, bool mn_major,
                                              std::vector<std::uint64_t>& chunks) {
  const ir::MatrixOp& m = e_.matrix[static_cast<std::size_t>(op.n)];
  const tc::Descriptor d = tc::decode_descriptor(desc);
  if (d.base_offset != 0)
    fault_at(FaultKind::unsupported, t, op,
             "a matrix descriptor with a base offset (bits 49-51) other than 0 is not simulated");
  const unsigned bits = tc::elem_bits(e), bytes = bits / 8;
  std::vector<double> v(static_cast<std::size_t>(rows) * m.k);
  for (unsigned r = 0; r < rows; ++r) {
    for (unsigned kk = 0; kk < m.k; ++kk) {
      const std::uint64_t at =
          mn_major ? tc::mnmajor_address(d, r, kk, bits) : tc::kmajor_address(d, r, kk, bits);
      check_shared(t, op, at, bytes, "a wgmma operand element");
      std::uint64_t x = 0;
      for (unsigned b = 0; b < bytes; ++b)
        x |= static_cast<std::uint64_t>(smem_[at + b]) << (8 * b);
      v[static_cast<std::size_t>(r) * m.k + kk] = tc::value(e, x);
      chunks.push_back(at & ~std::uint64_t{15});
    }
  }
  return v;
}

void Cta::wgmma_issue(const Thread& t, std::size_t first, const ir::Op& op) {
  const ir::MatrixOp& m = e_.matrix[static_cast<std::size_t>(op.n)];
  const unsigned n = m.n, k = m.k;
  const Thread& lead = threads_[first];
  std::vector<std::uint64_t> chunks;
  std::vector<double> a(64u * k, 0.0);
  if (m.a_desc) {
    a = wgmma_shared_operand(t, op, lead.regs[m.a_desc_reg], 64, m.a, m.trans_a, chunks);
  } else {
    for (std::size_t i = 0; i < warpgroup_size; ++i) {
      const auto w = static_cast<unsigned>(i / warp_size), lane = static_cast<unsigned>(i % 32);
      read_fragment(
          threads_[first + i].regs, m.aregs, m.a,
          [&](unsigned x) {
            const tc::Cell c = tc::a_cell(16, m.a, lane, x);
            return tc::Cell{c.row + 16 * w, c.col};
          },
          a, k);
    }
  }
  const std::vector<double> bt =
      wgmma_shared_operand(t, op, lead.regs[m.b_desc_reg], n, m.b, m.trans_b, chunks);
  std::vector<double> b(static_cast<std::size_t>(k) * n);
  for (unsigned j = 0; j < n; ++j)
    for (unsigned kk = 0; kk < k; ++kk)
      b[static_cast<std::size_t>(kk) * n + j] =
          bt[static_cast<std::size_t>(j) * k + kk] * m.scale_b;
  for (double& x : a)
    x *= m.scale_a;
  const bool scale_d = m.scale_is_reg ? (t.regs[m.scale_reg] != 0) != m.scale_neg : m.scale_value;
  std::vector<double> c(64u * n, 0.0);
  for (std::size_t i = 0; i < warpgroup_size && scale_d; ++i) {
    const auto tid = static_cast<unsigned>(i);
    read_fragment(
        threads_[first + i].regs, m.dregs, m.d,
        [&](unsigned x) { return tc::wgmma_d_cell(tid, x); }, c, n);
  }
  wgmma_checks(t, first, op, chunks);
  const std::vector<std::uint64_t> d = tc::multiply(m, 64, n, a, b, c);
  Wgmma g;
  g.issue = now(t, op);
  g.first = static_cast<std::uint32_t>(first);
  g.threads = static_cast<std::uint32_t>(warpgroup_size);
  g.runs = std::move(chunks);
  g.retired.assign(warpgroup_size, false);
  for (std::size_t i = 0; i < warpgroup_size; ++i) {
    Thread& u = threads_[first + i];
    const auto tid = static_cast<unsigned>(i);
    const auto vals = write_fragment(
        m.dregs.size(), m.d, [&](unsigned x) { return tc::wgmma_d_cell(tid, x); }, d, n);
    for (std::size_t j = 0; j < vals.size(); ++j) {
      set(u, m.dregs[j], vals[j]);
      ++wgt_[u.tid].busy[m.dregs[j]];
    }
    g.group.push_back(wgt_[u.tid].committed);
  }
  prune_wgmmas();
  wgmmas_.push_back(std::move(g));
}

void Cta::wgmma_checks(const Thread& t, std::size_t first, const ir::Op& op,
                       std::vector<std::uint64_t>& chunks) {
  (void)first;
  std::sort(chunks.begin(), chunks.end());
  chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
  std::vector<std::uint64_t> runs;
  for (std::uint64_t c : chunks) {
    if (!runs.empty() && runs.back() == c)
      runs.back() = c + 16;
    else
      runs.insert(runs.end(), {c, c + 16});
  }
  const Access self = now(t, op);
  for (std::size_t i = 0; i + 1 < runs.size(); i += 2) {
    not_an_mbarrier(t, op, runs[i], runs[i + 1] - runs[i], "a wgmma operand");
    on_read(t, op, runs[i], runs[i + 1] - runs[i], /*record=*/false);
    check_proxy(t, self, runs[i], runs[i + 1] - runs[i]);
  }
  chunks = std::move(runs);
}

void Cta::wgmma_wait(const Thread& t, const ir::Op& op) {
  WgmmaThread& w = wgt_[t.tid];
  const auto n = static_cast<std::uint32_t>(op.n);
  const std::uint32_t limit = w.committed > n ? w.committed - n : 0;
  for (std::size_t i = 0; i < wgmmas_.size();) {
    Wgmma& g = wgmmas_[i];
    const std::size_t k = t.tid - std::size_t{g.first};
    if (t.tid < g.first || k >= g.threads || g.retired[k] || g.group[k] >= limit) {
      ++i;
      continue;
    }
    g.retired[k] = true;
    const ir::MatrixOp& m = e_.matrix[static_cast<std::size_t>(e_.ops[g.issue.op].n)];
    for (std::uint32_t r : m.dregs)
      --w.busy[r];
    // its reads have completed when this wait returns: a later write must be ordered after
    // one of its retiring waits (the same thread, a barrier since, or an mbarrier phase)
    g.waits.push_back(Access{static_cast<std::int32_t>(t.tid),
                             static_cast<std::uint32_t>(&op - e_.ops.data()), 0, mb_.clock(t.tid)});
    g.wait_phases.push_back(phase_);
    ++i;
  }
  prune_wgmmas();
}

void Cta::prune_wgmmas() {
  std::erase_if(wgmmas_, [&](const Wgmma& g) {
    return g.done() && (g.dead || std::none_of(g.wait_phases.begin(), g.wait_phases.end(),
                                               [&](std::uint32_t p) { return p == phase_; }));
  });
}

void Cta::wgmma_registers(const Thread& t, const ir::Op& op) {
  const auto index = static_cast<std::uint32_t>(&op - e_.ops.data());
  const std::vector<std::uint32_t>& fp = footprint_[index];
  WgmmaThread& w = wgt_[t.tid];
  const std::int32_t slot = slot_[index];
  const Access self{static_cast<std::int32_t>(t.tid), index, slot >= 0 ? t.iterations[slot] : 0,
                    mb_.clock(t.tid)};
  const ir::MatrixOp* m =
      op.code == ir::Code::wgmma ? &e_.matrix[static_cast<std::size_t>(op.n)] : nullptr;
  // the in-flight wgmma that accumulates into `r` for this thread
  auto holder = [&](std::uint32_t r) -> const Wgmma* {
    for (const Wgmma& g : wgmmas_) {
      const std::size_t k = t.tid - std::size_t{g.first};
      if (t.tid < g.first || k >= g.threads || g.retired[k])
        continue;
      const ir::MatrixOp& gm = e_.matrix[static_cast<std::size_t>(e_.ops[g.issue.op].n)];
      if (std::find(gm.dregs.begin(), gm.dregs.end(), r) != gm.dregs.end())
        return &g;
    }
    return nullptr;
  };
  if (!wgmmas_.empty()) {
    // A wgmma of the same form into the same registers is ordered after the ones in flight
    // that accumulate into them (others in flight, into other registers, do not matter: the
    // k-blocks of several accumulator tiles interleave so): then only its other registers (A
    // fragments, descriptors, scale-d) must be free.
    bool chained = m != nullptr;
    for (const Wgmma& g : wgmmas_) {
      const std::size_t k = t.tid - std::size_t{g.first};
      if (!chained || t.tid < g.first || k >= g.threads || g.retired[k])
        continue;
      const ir::MatrixOp& gm = e_.matrix[static_cast<std::size_t>(e_.ops[g.issue.op].n)];
      const bool shares = std::any_of(m->dregs.begin(), m->dregs.end(), [&](std::uint32_t r) {
        return std::find(gm.dregs.begin(), gm.dregs.end(), r) != gm.dregs.end();
      });
      chained = !shares || same_form(*m, gm);
    }
    std::vector<std::uint32_t> others;
    if (chained) {
      others = m->aregs;
      others.push_back(m->b_desc_reg);
      if (m->a_desc)
        others.push_back(m->a_desc_reg);
      if (m->scale_is_reg)
        others.push_back(m->scale_reg);
    }
    for (std::uint32_t r : chained ? others : fp) {
      if (w.busy[r] == 0)
        continue;
      if (const Wgmma* g = holder(r)) {
        register_race(RaceKind::wgmma_register_in_flight, t, self, r, g->issue);
        break;
      }
    }
  }
  if (m == nullptr) {
    for (std::size_t k = writes_at_[index]; k < fp.size(); ++k)
      if (const std::int32_t s = wg_slot_[fp[k]]; s >= 0)
        w.written[static_cast<std::size_t>(s)] = RegisterWrite{index, self.iteration};
    return;
  }
  // a wgmma reads its A fragments and accumulators: written since the last wgmma.fence?
  for (const auto* list : {&m->aregs, &m->dregs}) {
    for (std::uint32_t r : *list) {
      const RegisterWrite& rw = w.written[static_cast<std::size_t>(wg_slot_[r])];
      if (rw.op != ~0u)
        return register_race(RaceKind::missing_wgmma_fence, t, self, r,
                             Access{self.tid, rw.op, rw.iteration, 0});
    }
  }
  if (!w.fenced)
    register_race(RaceKind::missing_wgmma_fence, t, self, m->dregs.front(), self);
}

void Cta::wgmma_overwrite(const Thread& t, const Access& self, std::uint64_t off,
                          std::uint64_t n) const {
  for (const Wgmma& g : wgmmas_) {
    if (g.dead)
      continue;
    // the first byte of the write that the wgmma reads, if any (its ordering is asked then)
    std::uint64_t hit = off + n;
    for (std::size_t i = 0; i + 1 < g.runs.size() && hit == off + n; i += 2) {
      const std::uint64_t b = std::max(off, g.runs[i]);
      if (b < std::min(off + n, g.runs[i + 1]))
        hit = b;
    }
    if (hit == off + n)
      continue;
    bool after_wait = false;
    for (std::size_t w = 0; w < g.waits.size() && !after_wait; ++w) {
      const Access& x = g.waits[w];
      after_wait = x.tid == self.tid || g.wait_phases[w] != phase_ ||
                   mb_.ordered(static_cast<std::uint32_t>(x.tid), x.clock,
                               static_cast<std::uint32_t>(self.tid));
    }
    if (!after_wait)
      return race(RaceKind::write_before_wgmma_read, t, self, hit, g.issue);
    // an ordered write into a retired wgmma's operands: later writes there are ordered after
    // it, or race with it
    g.dead = g.done();
  }
}

void Cta::register_race(RaceKind k, const Thread& t, const Access& self, std::uint32_t reg,
                        const Access& earlier) const {
  const ir::Op& op = e_.ops[self.op];
  const std::uint32_t other_line = e_.ops[earlier.op].line;
  if (race_known(k, op.line, other_line))
    return;
  Fault f = fault_for(FaultKind::race, t, op);
  Race r;
  r.kind = k;
  r.symbol = e_.reg_names[reg];
  r.access = race_access(self);
  r.other = race_access(earlier);
  const std::string where = "PTX line " + std::to_string(other_line) + " (iteration " +
                            std::to_string(earlier.iteration) + ")";
  f.message += ": " + std::string(name(k)) + ": register `" + r.symbol + "` ";
  if (k == RaceKind::wgmma_register_in_flight)
    f.message += "is an accumulator of the wgmma.mma_async at " + where +
                 ", which no wgmma.wait_group of this thread has retired; the wgmma may write it "
                 "at any time until then";
  else if (earlier.op == self.op)
    f.message += "is read by this wgmma.mma_async, and the thread has executed no wgmma.fence "
                 "before it (the first wgmma needs one)";
  else
    f.message += "is read by this wgmma.mma_async and was written at " + where +
                 " with no wgmma.fence since; the wgmma may read it before that write";
  f.race = std::move(r);
  raise_race(std::move(f));
}

void Cta::wgmma_setup() {
  if (std::none_of(e_.ops.begin(), e_.ops.end(),
                   [](const ir::Op& op) { return is_wgmma_family(op.code); }))
    return;
  const std::size_t regs = e_.reg_mask.size();
  wg_slot_.assign(regs, -1);
  std::int32_t slots = 0;
  for (const ir::Op& op : e_.ops) {
    if (op.code != ir::Code::wgmma)
      continue;
    const ir::MatrixOp& m = e_.matrix[static_cast<std::size_t>(op.n)];
    for (const auto* list : {&m.aregs, &m.dregs})
      for (std::uint32_t r : *list)
        if (wg_slot_[r] < 0)
          wg_slot_[r] = slots++;
  }
  wgt_.resize(threads_.size());
  for (WgmmaThread& w : wgt_) {
    w.busy.assign(regs, 0);
    w.written.assign(static_cast<std::size_t>(slots), RegisterWrite{});
  }
  footprint_.resize(e_.ops.size());
  writes_at_.resize(e_.ops.size());
  for (std::size_t i = 0; i < e_.ops.size(); ++i) {
    read_registers(e_.ops[i], e_, footprint_[i]);
    writes_at_[i] = static_cast<std::uint32_t>(footprint_[i].size());
    written_registers(e_.ops[i], e_, footprint_[i]);
  }
}

} // namespace ptxgen::sim::exec
