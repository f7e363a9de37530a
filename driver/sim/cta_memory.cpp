// The executor's CTA: ld / st / atom over the state spaces, the global buffers, and
// cp.async's issue and completion (cta.hpp).

#include "driver/sim/alu.hpp"
#include "driver/sim/cta.hpp"

#include <cstring>

namespace ptxgen::sim::exec {

std::int32_t Cta::find_buffer(std::uint64_t addr, std::uint64_t n) const {
  for (std::size_t k = 0; k < mem_.size(); ++k) {
    const auto& b = mem_[k];
    std::uint64_t size = b.bytes != nullptr ? b.bytes->size() : 0;
    if (addr >= b.address && n <= size && addr - b.address <= size - n)
      return static_cast<std::int32_t>(k);
  }
  return -1;
}

std::string Cta::buffer_list() const {
  std::string best;
  for (const auto& b : mem_) {
    std::uint64_t size = b.bytes != nullptr ? b.bytes->size() : 0;
    best += (best.empty() ? "" : ", ") + (b.name.empty() ? std::string("buffer") : b.name) + " [" +
            hex(b.address) + ", " + hex(b.address + size) + ")";
  }
  return best.empty() ? "no global buffers" : "global buffers: " + best;
}

std::uint8_t* Cta::global_bytes(const Thread& t, const ir::Op& op, std::uint64_t addr,
                                std::uint64_t n, std::string_view what) const {
  std::int32_t b = find_buffer(addr, n);
  if (b < 0) {
    Fault f = fault_for(FaultKind::illegal_address, t, op);
    f.message += ": " + std::string(what) + " of " + std::to_string(n) +
                 " bytes at global address " + hex(addr) + " lies outside every buffer (" +
                 buffer_list() + ")";
    f.address = addr;
    throw FaultThrow{std::move(f)};
  }
  return mem_[b].bytes->data() + (addr - mem_[b].address);
}

void Cta::check_shared(const Thread& t, const ir::Op& op, std::uint64_t off, std::uint64_t n,
                       std::string_view what) const {
  if (off > smem_.size() || n > smem_.size() - off)
    fault_at(FaultKind::illegal_address, t, op,
             std::string(what) + " of " + std::to_string(n) + " bytes at shared address " +
                 hex(off) + " lies outside shared memory (" + std::to_string(smem_.size()) +
                 " bytes)");
}

void Cta::check_align(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint64_t n,
                      std::string_view what) const {
  if (n != 0 && addr % n != 0) {
    Fault f = fault_for(FaultKind::misaligned_address, t, op);
    f.message += ": " + std::string(what) + " address " + hex(addr) + " is not aligned to " +
                 std::to_string(n) + " bytes";
    f.address = addr;
    throw FaultThrow{std::move(f)};
  }
}

void Cta::profiled(const Thread& t, const ir::Op& op, AccessKind kind, std::uint64_t addr,
                   std::uint64_t n) {
  if (!prof_)
    return;
  const auto index = static_cast<std::uint32_t>(&op - e_.ops.data());
  prof_->access(index, op.line, e_.texts[op.text], kind, t.tid, t.iterations[slot_[index]], addr,
                static_cast<std::uint32_t>(n));
}

bool Cta::in_shared_window(std::uint64_t addr) const {
  if (addr < shared_window_base)
    return false;
  const std::uint64_t off = addr - shared_window_base;
  if (off < smem_.size())
    return true;
  // the cluster's CTAs (simulator.hpp, cluster_window_stride)
  return off >= cluster_window_stride && off / cluster_window_stride <= cluster_size_ &&
         off % cluster_window_stride < smem_.size();
}

bool Cta::resolve_shared(const ir::Op& op, std::uint64_t& addr) const {
  if (op.space == ir::Space::shared)
    return true;
  if (op.space == ir::Space::generic && in_shared_window(addr)) {
    addr -= shared_window_base;
    return true;
  }
  return false;
}

void Cta::load_store(Thread& t, const ir::Op& op, bool is_ld) {
  std::uint32_t size = op.type.bits / 8u;
  std::uint64_t total = static_cast<std::uint64_t>(size) * op.vec;
  std::uint64_t addr = address(t, op.addr);
  std::uint8_t* bytes = nullptr;
  bool global_store = false; ///< checked once written (the cross-CTA log keeps the bytes)
  const char* what = is_ld ? "load" : "store";
  if (op.space == ir::Space::param) {
    // A symbol's offset is checked by the parser; a register's here.
    if (op.addr.has_reg && (addr > params_.size() || total > params_.size() - addr))
      fault_at(FaultKind::illegal_address, t, op,
               std::string(what) + " of " + std::to_string(total) + " bytes at parameter offset " +
                   hex(addr) + " lies outside the kernel's " + std::to_string(params_.size()) +
                   " parameter bytes");
    if (op.addr.has_reg)
      check_align(t, op, addr, total, what);
    bytes = const_cast<std::uint8_t*>(params_.data()) + addr;
  } else if (op.space == ir::Space::frame) {
    bytes = t.frame + addr; // offset checked by the parser
  } else if (op.space == ir::Space::local ||
             (op.space == ir::Space::generic && addr >= local_window_base &&
              addr - local_window_base < e_.frame_bytes)) {
    if (op.space == ir::Space::generic)
      addr -= local_window_base;
    check_align(t, op, addr, total, what);
    if (addr > e_.frame_bytes || total > e_.frame_bytes - addr)
      fault_at(FaultKind::illegal_address, t, op,
               std::string(what) + " of " + std::to_string(total) + " bytes at local address " +
                   hex(addr) + " lies outside the thread's " + std::to_string(e_.frame_bytes) +
                   " local bytes");
    bytes = t.frame + addr;
  } else {
    check_align(t, op, addr, total, what);
    if (resolve_shared(op, addr)) {
      if (Cta& home = shared_home(t, op, addr); &home != this) {
        remote_load_store(t, op, home, addr, is_ld); // distributed shared memory
        return;
      }
      check_shared(t, op, addr, total, what);
      not_an_mbarrier(t, op, addr, total, what);
      profiled(t, op, is_ld ? AccessKind::shared_load : AccessKind::shared_store, addr, total);
      t.spin_read = is_ld && (op.strong || t.spin_read);
      if (is_ld) {
        on_read(t, op, addr, total);
      } else {
        const Access self = now(t, op);
        std::uint8_t data[32] = {}; // at most .v4 of 64 bits
        for (std::uint32_t k = 0; k < op.vec && (k + 1) * size <= sizeof data; ++k) {
          const std::uint64_t v = raw(t, op.src[k]);
          std::memcpy(data + static_cast<std::size_t>(k) * size, &v, size); // little-endian host
        }
        check_write(t, self, addr, total, false, false, total <= sizeof data ? data : nullptr);
        mark_written(self, addr, total);
      }
      if (!ctrack_.empty())
        dsmem_track(t, op, *this, addr, total, !is_ld);
      bytes = smem_.data() + addr;
    } else {
      t.spin_read = is_ld && (op.strong || t.spin_read);
      bytes = global_bytes(t, op, addr, total, what);
      if (is_ld)
        global_access(t, op, addr, total, GlobalUse::read);
      profiled(t, op, is_ld ? AccessKind::global_load : AccessKind::global_store, addr, total);
      global_store = !is_ld;
    }
  }
  std::uint8_t stored[32] = {}; // a global store's own bytes: at most .v4 of 64 bits
  for (std::uint32_t k = 0; k < op.vec; ++k) {
    std::uint8_t* p = bytes + static_cast<std::size_t>(k) * size;
    if (is_ld) {
      std::uint64_t v = 0;
      std::memcpy(&v, p, size); // little-endian host
      if (op.type.is_signed)
        v = static_cast<std::uint64_t>(sext(v, op.type.bits));
      set(t, op.dst[k], v);
    } else {
      std::uint64_t v = raw(t, op.src[k]);
      std::memcpy(p, &v, size);
      if ((k + 1) * size <= sizeof stored)
        std::memcpy(stored + static_cast<std::size_t>(k) * size, &v, size);
    }
  }
  if (global_store)
    global_access(t, op, addr, total, GlobalUse::write, total <= sizeof stored ? stored : nullptr);
}

void Cta::atomic(Thread& t, const ir::Op& op) {
  const std::uint32_t n = op.type.bits / 8u;
  std::uint64_t addr = address(t, op.addr);
  const char* what = op.code == ir::Code::atom ? "atom" : "red";
  check_align(t, op, addr, n, what);
  const bool shared = resolve_shared(op, addr);
  std::uint8_t* p = nullptr;
  Cta* home = shared ? &shared_home(t, op, addr) : this;
  if (home != this) { // distributed shared memory
    check_home(t, op, *home, addr, n, what);
    remote_use(t, op, *home, addr);
    dsmem_track(t, op, *home, addr, n, true);
    home->mark_remote_written(addr, n, false);
    p = home->smem_.data() + addr;
  } else if (shared) {
    check_shared(t, op, addr, n, what);
    not_an_mbarrier(t, op, addr, n, what);
    on_read(t, op, addr, n);
    const Access self = now(t, op);
    check_write(t, self, addr, n, false, false);
    mark_written(self, addr, n);
    if (!ctrack_.empty())
      dsmem_track(t, op, *this, addr, n, true);
    p = smem_.data() + addr;
  } else {
    p = global_bytes(t, op, addr, n, what);
    global_access(t, op, addr, n, GlobalUse::write); // strong: checked, never logged
  }
  std::uint64_t old = 0;
  std::memcpy(&old, p, n); // little-endian host
  const std::uint64_t v = atomic_result(op.atomic, op.type, old, raw(t, op.src[0]),
                                        op.atomic == ir::Atomic::cas ? raw(t, op.src[1]) : 0);
  std::memcpy(p, &v, n);
  if (op.code == ir::Code::atom)
    set(t, op.dst[0],
        op.type.is_signed ? static_cast<std::uint64_t>(sext(old, op.type.bits)) : old);
  t.spin_read = false;
}

std::uint64_t Cta::atomic_result(ir::Atomic a, ir::Type ty, std::uint64_t old, std::uint64_t b,
                                 std::uint64_t c) {
  const unsigned w = ty.bits;
  old &= mask(w);
  b &= mask(w);
  const bool less = ty.is_signed ? sext(old, w) < sext(b, w) : old < b;
  std::uint64_t v = 0;
  switch (a) {
  case ir::Atomic::add:
    // .f32: to nearest, subnormal inputs and results flushed to zero (PTX ISA, atom); .f64: to
    // nearest
    v = ty.num == ir::Num::integer
            ? old + b
            : alu::float_op(alu::FloatOp::add, ty.num,
                            alu::FloatMode{ir::Round::rn, ty.num == ir::Num::f32, false}, old, b,
                            0);
    break;
  case ir::Atomic::inc:
    v = old >= b ? 0 : old + 1;
    break;
  case ir::Atomic::dec:
    v = old == 0 || old > b ? b : old - 1;
    break;
  case ir::Atomic::cas:
    v = old == b ? c : old;
    break;
  case ir::Atomic::exch:
    v = b;
    break;
  case ir::Atomic::min:
    v = less ? old : b;
    break;
  case ir::Atomic::max:
    v = less ? b : old;
    break;
  case ir::Atomic::and_:
    v = old & b;
    break;
  case ir::Atomic::or_:
    v = old | b;
    break;
  case ir::Atomic::xor_:
    v = old ^ b;
    break;
  }
  return v & mask(w);
}

std::uint64_t Cta::convert_address(const Thread& t, const ir::Op& op) const {
  std::uint64_t v = raw(t, op.src[0]);
  if (op.space == ir::Space::shared)
    v = op.to ? v - shared_window_base : v + shared_window_base;
  if (op.space == ir::Space::local)
    v = op.to ? v - local_window_base : v + local_window_base;
  if (op.space == ir::Space::param)
    v = op.to ? v - param_window_base : v + param_window_base;
  return v;
}

void Cta::issue(Thread& t, const ir::Op& op) {
  std::uint64_t dst = address(t, op.addr);
  std::uint64_t src = address(t, op.addr2);
  Copy c;
  c.dst = dst;
  c.src = src;
  c.size = op.cp_size;
  c.src_bytes = op.cp_size;
  c.group = t.open_group;
  const Access self = now(t, op);
  c.op = self.op;
  c.iteration = self.iteration;
  c.clock = self.clock;
  c.seq = t.seq++;
  if (op.zfill == ir::ZeroFill::src_size) {
    std::uint64_t s = get(t, op.zval, ir::Type{32, false});
    if (s > op.cp_size)
      fault_at(FaultKind::undefined_behavior, t, op,
               "src-size " + std::to_string(s) + " exceeds cp-size " + std::to_string(op.cp_size) +
                   " (undefined in PTX)");
    c.src_bytes = static_cast<std::uint32_t>(s);
  } else if (op.zfill == ir::ZeroFill::ignore_src) {
    bool p = (t.regs[op.zval.reg] != 0) != op.zneg;
    if (p)
      c.src_bytes = 0; // ignore-src true: the source is neither read nor checked
  }
  bool ignored = op.zfill == ir::ZeroFill::ignore_src && c.src_bytes == 0;
  check_align(t, op, dst, op.cp_size, "cp.async destination");
  if (!ignored)
    check_align(t, op, src, op.cp_size, "cp.async source");
  check_shared(t, op, dst, op.cp_size, "cp.async destination");
  not_an_mbarrier(t, op, dst, op.cp_size, "cp.async destination");
  if (c.src_bytes > 0) {
    global_bytes(t, op, src, c.src_bytes, "cp.async source");
    global_access(t, op, src, c.src_bytes, GlobalUse::read);
    c.buffer = find_buffer(src, c.src_bytes);
  }
  check_write(t, self, dst, op.cp_size, true, false);
  profiled(t, op, AccessKind::shared_async, dst, op.cp_size);
  if (c.src_bytes > 0)
    profiled(t, op, AccessKind::global_async, src, c.src_bytes);
  for (std::uint64_t b = dst; b < dst + op.cp_size; ++b)
    track_[b].pending = static_cast<std::int32_t>(t.tid);
  t.copies.push_back(c);
}

void Cta::perform(const Thread& t, const Copy& c) {
  const Access self{static_cast<std::int32_t>(t.tid), c.op, c.iteration, c.clock};
  for (std::uint64_t b = c.dst; b < c.dst + c.size; ++b)
    track_[b].pending = -1;
  check_write(t, self, c.dst, c.size, true, true);
  std::uint8_t* d = smem_.data() + c.dst;
  if (c.tensor) {
    land_tensor(d, *c.tensor);
  } else if (c.data) { // a bulk copy from shared memory (bulk_peer to this CTA itself)
    std::memcpy(d, c.data->data(), c.size);
  } else {
    if (c.src_bytes > 0) {
      const auto& buf = mem_[static_cast<std::size_t>(c.buffer)];
      std::memcpy(d, buf.bytes->data() + (c.src - buf.address), c.src_bytes);
    }
    std::memset(d + c.src_bytes, 0, c.size - c.src_bytes);
  }
  mark_written(self, c.dst, c.size, c.bulk);
}

void Cta::complete(Thread& t, std::uint32_t limit) {
  perform_if(t, [&](const Copy& c) { return !c.bulk && c.group < limit; });
}

} // namespace ptxgen::sim::exec
