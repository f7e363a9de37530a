// The executor's CTA: the warp-level matrix instructions of nvcuda::wmma, wmma.load, wmma.store
// and wmma.mma (cta.hpp; the fragments' shapes and distribution over the lanes: tensor_core.hpp,
// wmma_cell). Warp-collective and synchronous, as mma.sync: the last lane to arrive performs
// them for the warp. Each lane's part of a load or store is that lane's access: its bytes,
// its race records and its faults are the lane's, as for ld / st.

#include "driver/sim/cta.hpp"
#include "driver/sim/tensor_core.hpp"

#include <cstring>

namespace ptxgen::sim::exec {
namespace {

/// A run of a lane's fragment elements that lie next to each other in memory: the lane's
/// elements [first, first + count), `bit` bits past the matrix's base address.
struct Run {
  std::uint64_t bit = 0;
  unsigned first = 0, count = 0;
};

/// The runs of lane `lane`'s elements of the fragment `m` moves, in memory of layout `col`
/// with `stride` elements between the starts of its lines (rows, or columns when `col`).
std::vector<Run> lane_runs(const ir::MatrixOp& m, bool col, std::uint64_t stride, unsigned lane) {
  const auto [rows, cols] = tc::wmma_dims(m, m.part);
  const unsigned per_lane = tc::wmma_registers(m, m.part, m.d) * tc::per_register(m.d);
  const unsigned ebits = tc::elem_bits(m.d);
  const bool accumulator = m.part == 'c' || m.part == 'd';
  std::vector<Run> runs;
  for (unsigned i = 0; i < per_lane; ++i) {
    const tc::Cell c = tc::wmma_cell(rows, cols, !accumulator && col, per_lane, lane, i);
    const std::uint64_t at =
        (col ? std::uint64_t{c.col} * stride + c.row : std::uint64_t{c.row} * stride + c.col) *
        ebits;
    if (!runs.empty() && runs.back().bit + std::uint64_t{runs.back().count} * ebits == at)
      ++runs.back().count;
    else
      runs.push_back({at, i, 1});
  }
  return runs;
}

/// Element `i` of a fragment held in `regs` (per_register(e) elements a register, the first in
/// the low bits), and its inverse.
std::uint64_t fragment_element(ir::Elem e, const std::vector<std::uint64_t>& regs, unsigned i) {
  const unsigned epr = tc::per_register(e);
  return tc::element_of(e, regs[i / epr], i % epr);
}

void set_fragment_element(ir::Elem e, std::vector<std::uint64_t>& regs, unsigned i,
                          std::uint64_t v) {
  const unsigned epr = tc::per_register(e), bits = tc::elem_bits(e);
  regs[i / epr] |= v << ((i % epr) * bits % 64);
}

/// Element `k` of a run's bytes (little-endian; 4- and 1-bit elements: the first in the low bits
/// of a byte).
std::uint64_t run_element(const std::uint8_t* buf, unsigned ebits, unsigned k) {
  if (ebits < 8)
    return (buf[k * ebits / 8] >> (k * ebits % 8)) & ((1u << ebits) - 1);
  std::uint64_t v = 0;
  std::memcpy(&v, buf + static_cast<std::size_t>(k) * ebits / 8, ebits / 8); // little-endian host
  return v;
}

void put_run_element(std::uint8_t* buf, unsigned ebits, unsigned k, std::uint64_t v) {
  if (ebits < 8) {
    buf[k * ebits / 8] = static_cast<std::uint8_t>(buf[k * ebits / 8] | (v & ((1u << ebits) - 1))
                                                                            << (k * ebits % 8));
    return;
  }
  std::memcpy(buf + static_cast<std::size_t>(k) * ebits / 8, &v, ebits / 8);
}

} // namespace

void Cta::wmma_move(std::size_t first, std::size_t last, const ir::Op& op) {
  const ir::MatrixOp& m = e_.matrix[static_cast<std::size_t>(op.n)];
  const bool load = op.code == ir::Code::wmma_load;
  const char* what = load ? "wmma.load" : "wmma.store";
  const auto [rows, cols] = tc::wmma_dims(m, m.part);
  const unsigned ebits = tc::elem_bits(m.d);
  for (std::size_t l = first; l < last; ++l) {
    Thread& u = threads_[l];
    const std::uint64_t base = address(u, op.addr);
    // The rows of a fragment move in 16-byte pieces (as ldmatrix's): the base is aligned so.
    check_align(u, op, base, 16, what);
    // Without a stride the matrix is packed: its line is a row (.row) or a column (.col).
    const std::uint64_t stride = op.src[0].kind == ir::Val::Kind::none
                                     ? (m.a_col ? rows : cols)
                                     : raw(u, op.src[0]) & 0xffffffffu;
    std::vector<std::uint64_t> regs(m.dregs.size(), 0);
    if (!load)
      for (std::size_t j = 0; j < regs.size(); ++j)
        regs[j] = u.regs[m.dregs[j]];
    for (const Run& r : lane_runs(m, m.a_col, stride, static_cast<unsigned>(l - first))) {
      const std::uint64_t nbits = std::uint64_t{r.count} * ebits;
      if (r.bit % 8 != 0 || nbits % 8 != 0)
        fault_at(FaultKind::misaligned_address, u, op,
                 std::string(what) + " of sub-byte elements with a stride of " +
                     std::to_string(stride) + " puts a line at a bit offset that is no byte's");
      std::uint8_t buf[128] = {}; // a lane's elements: at most 16 x 64 bits
      const auto n = static_cast<std::uint32_t>(nbits / 8);
      if (!load)
        for (unsigned k = 0; k < r.count; ++k)
          put_run_element(buf, ebits, k, fragment_element(m.d, regs, r.first + k));
      wmma_bytes(u, op, base + r.bit / 8, n, load, buf);
      if (load)
        for (unsigned k = 0; k < r.count; ++k)
          set_fragment_element(m.d, regs, r.first + k, run_element(buf, ebits, k));
    }
    if (load)
      for (std::size_t j = 0; j < regs.size(); ++j)
        set(u, m.dregs[j], regs[j]);
  }
}

void Cta::wmma_bytes(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint32_t n,
                     bool is_ld, std::uint8_t* io) {
  const char* what = is_ld ? "wmma.load" : "wmma.store";
  std::uint8_t* bytes = nullptr;
  if (resolve_shared(op, addr)) {
    std::uint64_t off = addr;
    if (&shared_home(t, op, off) != this)
      fault_at(FaultKind::unsupported, t, op,
               std::string(what) + " of another CTA's shared memory is not simulated");
    check_shared(t, op, addr, n, what);
    not_an_mbarrier(t, op, addr, n, what);
    profiled(t, op, is_ld ? AccessKind::shared_load : AccessKind::shared_store, addr, n);
    if (is_ld) {
      on_read(t, op, addr, n);
    } else {
      const Access self = now(t, op);
      check_write(t, self, addr, n, false, false, io);
      mark_written(self, addr, n);
    }
    if (!ctrack_.empty())
      dsmem_track(t, op, *this, addr, n, !is_ld);
    bytes = smem_.data() + addr;
    if (is_ld)
      std::memcpy(io, bytes, n);
    else
      std::memcpy(bytes, io, n);
    return;
  }
  bytes = global_bytes(t, op, addr, n, what);
  profiled(t, op, is_ld ? AccessKind::global_load : AccessKind::global_store, addr, n);
  if (is_ld) {
    global_access(t, op, addr, n, GlobalUse::read);
    std::memcpy(io, bytes, n);
  } else {
    std::memcpy(bytes, io, n);
    global_access(t, op, addr, n, GlobalUse::write, io);
  }
}

void Cta::wmma_mma(std::size_t first, std::size_t last, const ir::Op& op) {
  const ir::MatrixOp& m = e_.matrix[static_cast<std::size_t>(op.n)];
  const unsigned rows = m.m, cols = m.n, k = m.k;
  std::vector<double> a(static_cast<std::size_t>(rows) * k), b(static_cast<std::size_t>(k) * cols),
      c(static_cast<std::size_t>(rows) * cols);
  // Each matrix from its fragments, enumerated as its loads put it (tensor_core.hpp, wmma_cell);
  // a duplicated element (the .f16 A and B) is read from the lanes that hold it, all alike
  // unless the program wrote them apart.
  struct Operand {
    const std::vector<std::uint32_t>* regs;
    ir::Elem e;
    char part;
    bool col;
    std::vector<double>* out;
  };
  const Operand operands[] = {{&m.aregs, m.a, 'a', m.a_col, &a},
                              {&m.bregs, m.b, 'b', m.b_col, &b},
                              {&m.cregs, m.c, 'c', false, &c}};
  for (const Operand& o : operands) {
    const auto [r, cl] = tc::wmma_dims(m, o.part);
    const unsigned per_lane = static_cast<unsigned>(o.regs->size()) * tc::per_register(o.e);
    for (std::size_t l = 0; l < last - first; ++l) {
      const std::uint64_t* regs = threads_[first + l].regs;
      for (unsigned i = 0; i < per_lane; ++i) {
        const tc::Cell cell = tc::wmma_cell(r, cl, o.col, per_lane, static_cast<unsigned>(l), i);
        const unsigned epr = tc::per_register(o.e);
        (*o.out)[static_cast<std::size_t>(cell.row) * cl + cell.col] =
            tc::value(o.e, tc::element_of(o.e, regs[(*o.regs)[i / epr]], i % epr));
      }
    }
  }
  const std::vector<std::uint64_t> d = tc::multiply(m, rows, cols, a, b, c);
  const unsigned per_lane = static_cast<unsigned>(m.dregs.size()) * tc::per_register(m.d);
  for (std::size_t l = 0; l < last - first; ++l) {
    std::vector<std::uint64_t> regs(m.dregs.size(), 0);
    for (unsigned i = 0; i < per_lane; ++i) {
      const tc::Cell cell = tc::wmma_cell(rows, cols, false, per_lane, static_cast<unsigned>(l), i);
      set_fragment_element(m.d, regs, i, d[static_cast<std::size_t>(cell.row) * cols + cell.col]);
    }
    for (std::size_t j = 0; j < regs.size(); ++j)
      set(threads_[first + l], m.dregs[j], regs[j]);
  }
}

} // namespace ptxgen::sim::exec
