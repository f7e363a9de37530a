#pragma once
// The lowering's instruction selection: a checked kernel's ops to PTX
// instructions, one op at a time. Internal to emitter/lower.

#include "emitter/lower/abi.hpp"
#include "emitter/lower/linear.hpp"
#include "emitter/lower/loop_form.hpp"
#include "emitter/lower/lower_options.hpp"
#include "emitter/ptx/module.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/contract.hpp"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace ptxgen::lower::impl {

using namespace ptxgen::ptx;
using tile::Expr;
using tile::ExprKind;
using tile::ExprOp;
using tile::ExprPtr;
using tile::Special;

class Lowerer {
public:
  Lowerer(const tile::Kernel& k, const LowerOptions& o)
      : k_(k), o_(o), layout_(tile::shared_layout(k)), lb_(k.launch_bounds()) {}

  Module run();

private:
  /// Where a per-thread address register is reused: the same tensor and the
  /// same linear form (tensor names are unique within a kernel).
  struct AddressKey {
    std::string tensor;
    Linear form;
  };
  struct AddressKeyLess {
    bool operator()(const AddressKey& a, const AddressKey& b) const {
      if (int c = a.tensor.compare(b.tensor))
        return c < 0;
      return compare_registers(a.form, b.form) < 0;
    }
  };
  /// A cache policy's identity: the u64 parameter it is loaded from, or the
  /// exact createpolicy operands, the fraction by its bits (fractions that
  /// differ in any bit get their own register).
  using CreatePolicyKey =
      std::tuple<EvictionPriority, std::optional<EvictionPriority>, std::uint32_t>;
  using PolicyKey = std::variant<std::string, CreatePolicyKey>;

  const tile::Kernel& k_;
  const LowerOptions& o_;
  const tile::SharedLayout layout_;
  Entry* entry_ = nullptr;
  LoopForm form_; ///< what selection produces (see loop_form.hpp)
  /// The registers already holding a value, valid where the next instruction goes.
  struct Caches {
    std::map<ExprPtr, Register, ExprLess> value; ///< u32 values (leaves included)
    std::map<ExprPtr, Register, ExprLess> pred;  ///< predicates
    std::map<std::string, Register> base;        ///< tensor base addresses, by tensor name
    std::optional<Register> dynamic_base;        ///< the `.extern .shared` array's address, once
    std::map<AddressKey, Register, AddressKeyLess> address; ///< per-thread addresses
    std::map<PolicyKey, Register> policy;
    std::map<std::string, Register> tensor_map; ///< map parameters' generic addresses, by tensor
    /// Swizzled addresses: (the unswizzled register's id, the constant added to it) -> register.
    std::map<std::pair<std::uint32_t, std::int64_t>, Register> swizzled;
  };
  Caches cache_;
  tile::LaunchBounds lb_; ///< the launch's bounds and the open loops' variables' ranges

  Register reg(RegClass c) { return entry_->registers.make(c); }

  /// Appends an instruction to the innermost open loop's body (or the kernel's),
  /// tagged with level at_: hoist_invariants() moves it to the end of the
  /// preheader of loops_[at_] when at_ is below the current loop depth (before
  /// that loop and every loop inside it, on every path).
  void emit(InstructionBody b, std::optional<Guard> g = std::nullopt, std::string comment = {});

  /// Emits at `level` while it lives (levels: 0 outside every loop, n in the
  /// body of loops_[n - 1]).
  class AtLevel {
  public:
    AtLevel(Lowerer& l, unsigned level) : l_(l), saved_(l.at_) { l.at_ = level; }
    ~AtLevel() { l_.at_ = saved_; }
    AtLevel(const AtLevel&) = delete;
    AtLevel& operator=(const AtLevel&) = delete;

  private:
    Lowerer& l_;
    unsigned saved_;
  };

  /// Caches a register defined at `level`: valid from here on, and at the end
  /// of every open loop at or inside that level (a hoisted value outlives the loop).
  template <class Map, class Key>
  void remember(Map Caches::*member, unsigned level, const Key& key, Register r) {
    (cache_.*member).insert_or_assign(key, r);
    for (std::size_t f = level; f < loops_.size(); ++f)
      (loops_[f].saved.*member).insert_or_assign(key, r);
  }

  /// The caches at the label that ends a branch over a block, `before` being those at the
  /// branch: what was valid there, and what the block computed only where it was hoisted
  /// out of it (to the preheader of an open loop, so defined before the branch on every
  /// path). A register the block defined in place exists only where the block ran: it is
  /// forgotten. A cache this does not list is forgotten whole (sound, only slower).
  void rejoin(Caches before);

  // --- values ---------------------------------------------------------------

  /// A leaf's register, defined once (warp and lane from tid, which comes first).
  Register leaf(const ExprPtr& e);

  /// tid.x when the block is x-only is tid (bid.x likewise): the same register.
  std::optional<ExprPtr> x_only_alias(const Expr& e) const;

  /// The linear tid (or bid): x + nx * (y + ny * z) from the special registers.
  Register linear_index(const ExprPtr& e, Special x, const tile::Dim3& d);

  static SpecialRegister special_register(Special s);

  /// cluster_id over a grid of clusters that is not x only: %clusterid.x + %nclusterid.x *
  /// (%clusterid.y + %nclusterid.y * %clusterid.z) (select_cluster.cpp); nullopt when it is x
  /// only (then %clusterid.x itself).
  std::optional<Register> linear_cluster_id(const ExprPtr& e);

  /// The launch size a special names (ntid, nbid and their axes), else nullopt.
  std::optional<std::int64_t> launch_size(const Expr& e) const;

  /// The u32 value of e: an immediate when constant, else a register.
  Operand value(const ExprPtr& e);

  /// Emits the instructions for a non-leaf e. Operands first, then the result
  /// register: registers are numbered in order of definition.
  Register compute(const ExprPtr& e);

  /// The divisor of `x / 2^n` or `x % 2^n` computed inside a loop, else nullopt.
  std::optional<std::int64_t> loop_power_of_two_divisor(const Expr& e) const;

  /// min/max compare as u32 when both operands are in 0..2^32-1 over the
  /// launch, else as s32 (the contract proved them in -2^31..2^31-1 where the
  /// value is used; see check_u32). Registers hold values modulo 2^32 either way.
  ScalarType minmax_type(const Expr& e) const;

  /// For min/max whose operands' ranges do not overlap, the operand that is
  /// always the result (max(x, 0) with x >= 0 is x); nullopt otherwise.
  std::optional<std::size_t> dominant_operand(const Expr& e) const;

  /// An immediate as the type reads it: a constant's s32 spelling for s32.
  static Operand typed(const Operand& o, ScalarType t);

  /// How a u32 arithmetic operator is lowered.
  struct Arith {
    BinaryOp op;
    ScalarType type;
    bool commutative; ///< an immediate first operand may swap to second place
  };
  static Arith arith(ExprOp op);

  /// An operand in a register (moves an immediate into one).
  Register operand_reg(const Operand& o);

  /// The unsigned comparison for a comparison operator (operands are proven in 0..2^32-1).
  /// With its operands swapped, the comparison is compare_op(tile::info(op).swapped).
  static CompareOp compare_op(ExprOp op);

  /// e as a guard: a predicate register, possibly negated (so `!c` costs nothing).
  Guard predicate(const ExprPtr& e);

  /// In a loop, `v + c cmp x` (v the innermost loop's variable, x invariant in
  /// that loop, either side) as `v cmp x - c` with x - c hoisted: one
  /// instruction less per iteration. Signed when x - c may be negative (v is
  /// in 0..2^31-1); nullopt when x - c may leave s32, or e is not of that form.
  /// The predicate register is filled in by the caller (Setp::dst).
  std::optional<Setp> offset_compare(const Expr& e, unsigned level);

  /// lo/ls/hi/hs as lt/le/gt/ge (eq and ne unchanged).
  static CompareOp signed_compare(CompareOp c);

  Register materialise(Guard g);

  // --- addresses --------------------------------------------------------------

  Register tensor_base(const tile::Tensor& t);

  /// The thread-dependent part of a view's address as a linear form. With
  /// `group_axes` == 2, the first two axes are bound to (warp, lane). With `pred`, the
  /// address of the one instruction the pred guards (see where_holds()).
  Linear thread_linear(const tile::View& v, std::size_t group_axes,
                       const std::optional<tile::Located<ExprPtr>>& pred = std::nullopt) const;

  /// The largest power of two (up to 16) that divides the register part of
  /// the address for every thread.
  static std::int64_t register_alignment(const tile::Tensor& t, const Linear& l);

  /// A register holding base(t) + the non-constant part of l; the constant
  /// part is left in l.constant for the caller to fold into [reg+imm].
  /// When a coefficient is negative (`127 - tid`), the non-constant part alone
  /// would be negative, so the constant goes into the register instead: the
  /// register then holds the true offset, which the contract proved lies in
  /// 0..size-1, and no address arithmetic relies on wrapping.
  ///
  /// The same holds when an atom itself may be negative or leave 32 bits
  /// (`tid < 1 ? -1 : 0` inside an index): its register holds the value
  /// modulo 2^32, which `mad.wide.u32` would widen to a huge offset.
  ///
  /// `cache_hint`: the address is the shared destination of a `.L2::cache_hint`
  /// cp.async (see cache_hint_shared_address()).
  Register address(const tile::Tensor& t, Linear& l, bool cache_hint = false);

  /// A one-thread CTA with a `.L2::cache_hint` cp.async gets no `.reqntid`: with it,
  /// ptxas knows %tid is 0, every address term is uniform, and a loop's rotating or
  /// induction register plus the shared base becomes the LDGSTS `[R+UR]` form that
  /// ptxas 13.0 miscompiles (see cache_hint_shared_address(); found by `ptxgen fuzz`).
  bool single_thread_cache_hint() const;

  /// The shared destination address of a `.L2::cache_hint` cp.async: the CTA-uniform
  /// part first (base, loop and rotating terms, hoisted as usual), then the per-thread
  /// terms multiplied onto it at the copy, so that the register's last definition is a
  /// mad with a per-thread factor. ptxas 13.0 miscompiles such a copy when it can fold a
  /// uniform addend of the address into the LDGSTS's `[R+UR]` operand (`add(symbol, x)`
  /// from nvcc, `add(per-thread, rotating stage offset)` from a pipeline): the
  /// instruction's uniform registers are then never written and the GPU raises
  /// ILLEGAL_INSTRUCTION (the trap ldgsts_unwritten_uniform, driver/sass/traps.hpp;
  /// found by `ptxgen fuzz`, docs/fuzzing.md). Costs one mad per per-thread term at the
  /// copy instead of one add, and only on cache-hint copies.
  Register cache_hint_shared_address(const tile::Tensor& t, const Linear& l);

  /// A form whose terms may be negative or leave 32 bits is summed in 32 bits (see address()).
  bool needs_wrap32(const Linear& l) const;

  /// address() of a form whose folded constant and wrap32 are decided. Inside
  /// loops, the part that does not depend on the innermost loop the form
  /// depends on is hoisted (computed before that loop), and the loop's
  /// variable and `X % S` terms are induction and rotating registers
  /// advanced once per iteration (strength reduction, see induction()).
  Register address_register(const tile::Tensor& t, const Linear& l);

  /// base + the terms, each multiplied in (or, for wrap32, summed in 32 bits and widened).
  Register plain_address(const tile::Tensor& t, const Linear& l);

  /// No term of l differs between the threads of a CTA (a bulk copy's global address).
  static bool cta_uniform(const Linear& l);

  /// base + atom * coeff for a 64-bit base and a u32 atom: mul.wide.u32, add.s64 (a
  /// CTA-uniform address; see the definition for why not mad.wide.u32).
  Register wide_add(Register base, Register atom, std::int64_t coeff);

  /// base + l.folded + the sum of l's terms for a shared address, in 32 bits (shared
  /// addresses are 32-bit, so this is exact modulo 2^32 as sum32 + add would be). The
  /// symbol's register is the first mad's addend, never an `add` operand: ptxas 13.0
  /// miscompiles a `.L2::cache_hint` cp.async whose shared address is `add(symbol, x)`
  /// into an LDGSTS whose uniform registers are never written (the trap
  /// ldgsts_unwritten_uniform, driver/sass/traps.hpp; found by `ptxgen fuzz`, seed 1013).
  Register shared_sum32(Register base, const Linear& l);

  /// l.folded + the sum of l's terms, in 32 bits (exact modulo 2^32).
  Operand sum32(const Linear& l);

  /// Calls f(coords, constant byte offset) for every coordinate of the axes
  /// from `first` on, in row-major order.
  template <class F>
  static void for_each_coord(const tile::View& v, std::size_t first, std::size_t end, F&& f) {
    std::vector<std::int64_t> c(v.axes.size(), 0);
    for (;;) {
      std::int64_t off = 0;
      for (std::size_t i = first; i < end; ++i)
        off += c[i] * v.axes[i].stride_bytes;
      f(c, off);
      std::size_t i = end;
      while (i > first) {
        --i;
        if (++c[i] < v.axes[i].size)
          break;
        c[i] = 0;
        if (i == first)
          return;
      }
      if (end == first)
        return;
    }
  }

  // --- ops ----------------------------------------------------------------------

  void lower(const tile::ApplyOp& a);

  using Coords = std::map<std::string, std::int64_t, std::less<>>;

  /// src_size or ignore_src for one repeat (its axes substituted, so constant-folded).
  /// An ignore_src that names axes and folds to a constant needs no operand when
  /// false and is src_size 0 when true (both zero the whole chunk).
  std::variant<std::monostate, SrcSize, IgnoreSrc> zero_fill_operand(const tile::ApplyOp& a,
                                                                     const Coords& c);

  /// A condition for one repeat: its axes substituted and, when that changed
  /// it, constant `&&` / `||` operands folded (tile::fold_truth).
  ExprPtr truth_for(const ExprPtr& e, const Coords& c) const;

  /// pred for one repeat: no guard when constant true; `skip` when it names axes
  /// and folds to false (the copy is not emitted: a false guard does nothing).
  struct RepeatGuard {
    bool skip = false;
    std::optional<Guard> guard;
  };
  RepeatGuard pred_guard(const tile::ApplyOp& a, const Coords& c);

  std::variant<Register, Immediate> cache_policy(const tile::CachePolicy& p);

  void lower(const tile::CommitGroupOp&) { emit(CpAsyncCommitGroup{}); }
  void lower(const tile::WaitGroupOp& w) { emit(CpAsyncWaitGroup{w.n}); }
  void lower(const tile::WaitAllOp&) { emit(CpAsyncWaitAll{}); }
  void lower(const tile::CtaSyncOp&) { emit(BarSync{0}); }
  void lower(const tile::ClusterSyncOp& c) {
    emit(BarrierClusterArrive{c.relaxed});
    emit(BarrierClusterWait{});
  }

  // ---------------------------------------------------------------- mbarriers

  /// The barrier's 32-bit shared address: a base register and the constant folded in.
  Address barrier_address(const tile::Located<tile::View>& b);

  /// Thread 0 of the CTA initialises the barrier (the contract requires a cta_sync after it).
  void lower(const tile::MbarrierInitOp& m);
  void lower(const tile::CopyArriveOp& m);
  /// The state is not needed (waits use the parity): the sink `_`.
  void lower(const tile::MbarrierArriveOp& m);
  /// A spin loop on the phase's parity: test_wait below sm_90, try_wait (which suspends the
  /// thread in hardware for a while) from sm_90 on.
  void lower(const tile::MbarrierWaitOp& m);
  unsigned waits_emitted_ = 0; ///< numbers the mbarrier waits' labels

  // ------------------------------------------------- the sm_90 bulk family (select_bulk.cpp)
  // One instruction per issuing thread, guarded by its pred (`@%p`): a thread whose pred
  // fails issues nothing.

  /// A bulk operand: the view's first byte as a base register and a constant; with
  /// `pred`, that of the one instruction the pred guards (see where_holds()).
  Address view_address(const tile::View& v,
                       const std::optional<tile::Located<ExprPtr>>& pred = std::nullopt);

  /// e where `pred` holds: a clamp `min(x, k)` (either order, k constant) is x when a
  /// conjunct of the pred bounds x by k (`x < k + 1`, `x <= k`, either side): the ring's
  /// `min(t + 2 * nbid, 65535)` under `t + 2 * nbid < 65536`. Only for the operands of the
  /// instruction the pred guards: where it fails the instruction does not run and the
  /// operand is never used, and where it holds the value is the same. e is bound (bind()).
  ExprPtr where_holds(const ExprPtr& e, const std::optional<tile::Located<ExprPtr>>& pred) const;

  /// The generic address of the tensor map parameter of global tensor `tensor`:
  /// `mov.b64` of the parameter's symbol then `cvta.param.u64`, as nvcc 13.0 takes the
  /// address of a `const __grid_constant__ CUtensorMap`; once per kernel, before every loop.
  Register tensor_map_address(const std::string& tensor);

  /// The tensor op's coordinates as .s32 operands, innermost first (the spec lists them
  /// outermost first).
  /// The clamps a pred makes inactive stay (where_holds() is not applied): without them
  /// ptxas 13.0 makes some TMA pipelines' loops longer (specs/tma/pipeline_tma_2stage_grid:
  /// 79 -> 86 SASS instructions, 30 -> 33 registers).
  std::vector<Operand> tensor_coords(const std::vector<tile::Located<ExprPtr>>& coords);

  /// The op's pred: no guard when absent or constant true; `skip` when it folds to false
  /// once the variables of unrolled loops are bound.
  RepeatGuard op_guard(const std::optional<tile::Located<ExprPtr>>& pred);

  /// The `.L2::cache_hint` operand, when the op has a cache policy.
  CachePolicy op_cache_policy(const std::optional<tile::Located<tile::CachePolicy>>& p);

  /// Emits the copy `operands()` returns under op's pred (nothing when it folds to false), with
  /// op's cache policy; the registers come in that order: the pred's, the operands', the
  /// policy's.
  template <class Op, class Operands>
  void emit_bulk(const Op& op, Operands&& operands);

  /// A multicast's CTA mask as the .b16 operand ptxas wants: an immediate, or the 32-bit
  /// value's low half (the contract proved it fits) by cvt.u16.u32.
  std::optional<Operand> cta_mask(const std::optional<tile::Located<ExprPtr>>& mask);
  std::optional<std::vector<Operand>>
  im2col_offsets(const std::optional<std::vector<tile::Located<ExprPtr>>>& offsets);

  void lower(const tile::BulkLoadOp& b);
  void lower(const tile::BulkStoreOp& b);
  void lower(const tile::BulkCopyPeerOp& b);
  void lower(const tile::BulkReduceOp& b);
  void lower(const tile::BulkCommitOp&) { emit(CpAsyncBulkCommitGroup{}); }
  void lower(const tile::BulkWaitOp& w) { emit(CpAsyncBulkWaitGroup{w.n, w.read}); }
  void lower(const tile::ProxyFenceOp& f) {
    // `all` is the unqualified fence, which orders every state space.
    std::optional<ProxySpace> space;
    if (f.space == tile::FenceSpace::shared_cta)
      space = ProxySpace::shared_cta;
    else if (f.space == tile::FenceSpace::global)
      space = ProxySpace::global;
    emit(FenceProxyAsync{space});
  }
  void lower(const tile::ExpectTxOp& e);
  void lower(const tile::MbarrierInitFenceOp&) { emit(FenceMbarrierInit{}); }
  /// bar.sync / bar.arrive id, count, guarded by the pred (the contract proves it holds for
  /// whole warps, as bar's `.aligned` form needs).
  void lower(const tile::NamedBarrierOp& b) {
    const RepeatGuard g = op_guard(b.pred);
    if (!g.skip)
      emit(NamedBarrier{static_cast<std::uint32_t>(b.id.value),
                        static_cast<std::uint32_t>(b.count.value), b.arrive},
           g.guard);
  }
  /// setmaxnreg, guarded by the pred (whole warpgroups: the contract's rule).
  void lower(const tile::SetmaxnregOp& s) {
    const RepeatGuard g = op_guard(s.pred);
    if (!g.skip)
      emit(Setmaxnreg{s.action == tile::RegAction::inc, static_cast<std::uint32_t>(s.regs.value)},
           g.guard);
  }
  /// Outside loops, and with a cache policy, as emit_bulk(); in a loop, a guarded load is a
  /// branch over the load and its operands (see the definition for why).
  void lower(const tile::TensorLoadOp& t);
  unsigned branches_emitted_ = 0; ///< numbers the labels of the branches over tensor loads
  void lower(const tile::TensorStoreOp& t);
  void lower(const tile::TensorReduceOp& t);
  void lower(const tile::PrefetchTensormapOp& p);

  // ------------------------------------------- tensor maps in memory (select_tensormap.cpp)

  /// The generic address of the map slot `slot` (a global view): its global address, then
  /// `cvta.global.u64` (fence.proxy.tensormap's acquire and the tensor copies take generic
  /// addresses).
  Register generic_map_address(const tile::View& slot,
                               const std::optional<tile::Located<ExprPtr>>& pred);
  /// A tensor copy's map operand: the slot `map` when given, else tensor's parameter.
  Register op_map_address(const std::string& tensor,
                          const std::optional<tile::Located<tile::View>>& map,
                          const std::optional<tile::Located<ExprPtr>>& pred);
  /// From the parameter: 8 x (ld.param.v2.b64, st.v2.b64); from a shared slot:
  /// tensormap.cp_fenceproxy.
  void lower(const tile::TensormapCopyOp& c);
  void lower(const tile::TensormapReplaceOp& r);
  void lower(const tile::TensormapFenceOp& f);

  // ------------------------------------------- swizzled shared tensors (select_swizzle.cpp)

  /// Where an ordinary access (ld/st, cp.async) of the byte at register `r` + `offset` of
  /// tensor `t` goes; `r` is address(t, l)'s register. Unswizzled: [r+offset]. Swizzled:
  /// the physical address `a ^ ((a >> 3) & (span - 16))` of a = r + offset (the row field,
  /// bits 7.., XORed into the chunk field, bits 4..6; the tensor's base is aligned to the
  /// mode's period, so the absolute shared address swizzles as its offset from the base
  /// does), with the part below 16 bytes left as the immediate. An access stays inside one
  /// 16-byte chunk (widest() keeps a w-byte access w-aligned), so one chunk's mask serves
  /// all of its bytes.
  Address access_address(const tile::Tensor& t, Register r, const Linear& l, std::int64_t offset);

  /// The alignment of address(t, l)'s register from the start of shared memory: the base's
  /// (its array's alignment) and every coefficient's and the folded constant's.
  std::int64_t shared_register_alignment(const tile::Tensor& t, const Linear& l) const;

  /// r + `add` swizzled (`add` a multiple of the register's alignment, at most 16): [add],
  /// shr, and, xor; cached per (r, add).
  Register swizzled(const tile::Tensor& t, Register r, const Linear& l, std::int64_t add);

  static StateSpace space_of(const tile::Tensor& t);

  /// The widest access (16, 8, 4, 2 or 1 bytes) at byte `i` of a run of
  /// `run` bytes whose address is reg + `off` with reg aligned to `align`.
  static std::int64_t widest(std::int64_t off, std::int64_t run, std::int64_t align);

  // --- loops ----------------------------------------------------------------
  //
  // A loop is lowered as an expert writes it: what does not depend on its
  // variable is tagged with a lower level (emit()) and hoisted before it by
  // hoist_invariants(), addresses affine in the variable are induction
  // registers and `X % S` / `X / S` rotating registers, all advanced once per
  // iteration by advance(); `unroll` copies the body (plan_unroll()).

  struct LoopFrame {
    std::string var;
    ExprPtr start; ///< bound (see bind())
    ExprPtr step;
    Operand start_op;
    Operand step_op;
    Register counter;     ///< the loop variable
    Loop* node = nullptr; ///< the loop in the form (its body, its registers)
    Caches saved;         ///< the caches valid at the preheader's end
    /// The first copy of the body is lowered: a new loop-carried register now would
    /// miss the advances already emitted (every copy asks for the same ones).
    bool sealed = false;
  };
  std::vector<LoopFrame> loops_; ///< the loops open at the current op, innermost last
  unsigned at_ = 0;              ///< the level emit() writes at (see emit())
  unsigned loops_emitted_ = 0;   ///< numbers the loops' labels
  /// The variables of fully unrolled loops, at the copy being lowered.
  std::map<std::string, std::int64_t, std::less<>> bound_;
  /// In copy u of an unrolled body with a constant step, the variable is
  /// v + u*step (the counter advances once per pass): the offsets by variable.
  std::map<std::string, std::int64_t, std::less<>> offset_;

  void lower_ops(std::size_t begin, std::size_t end);
  void lower(const tile::ForOp&) { unreachable("a for op outside lower_ops()"); }
  void lower(const tile::EndOp&) { unreachable("an end op outside lower_ops()"); }

  /// e with the variables of fully unrolled loops replaced by their values, and the
  /// launch sizes (ntid, nbid and their axes) by theirs: constants fold and divide.
  ExprPtr bind(const ExprPtr& e) const;

  std::size_t frame_index(std::string_view var) const;

  /// The innermost loop level e depends on (0: none; n: the variable of loops_[n - 1]).
  unsigned level_of(const Expr& e) const;
  /// The innermost loop level any term of l depends on (select_addresses.cpp).
  unsigned level_of(const Linear& l) const;

  /// `for (v = start; v < stop; v += step)`. start, stop and step are evaluated
  /// once (hoisted as far as they go); the contract proved the variable in
  /// 0..2^31-1, so u32 compares are exact. A constant trip count of 0 emits
  /// nothing; an unroll of at least a constant trip count, straight-line code.
  void lower_loop(const tile::ForOp& f, std::size_t index);

  /// Opens loops_[fi]: its counter starts at `start` (after the preheader).
  std::size_t open_loop(const tile::ForOp& f, const ExprPtr& start, const ExprPtr& step,
                        const UnrollPlan& plan);

  void close_loop();

  /// How a counted loop is entered: the variable's value there (nullptr:
  /// unknown), or known to run at least once.
  struct LoopEntry {
    ExprPtr value;
    bool runs = false;
  };

  /// `while (v < limit)`, `copies` bodies per back edge: a skip to `exit` unless
  /// the loop is known to run or its entry value is provably below `limit`,
  /// the bodies under label `head`, and the conditional back edge.
  void counted_loop(std::size_t index, std::size_t fi, const LoopEntry& entry, const ExprPtr& limit,
                    const Operand& limit_op, const std::string& head, const std::string& exit,
                    std::int64_t copies = 1);

  /// One copy of the loop body, then the advance to the next iteration; the
  /// values of this iteration are forgotten.
  void body_copy(std::size_t index, std::size_t fi);

  /// v += step (times `mult`, for a constant step), and every induction and
  /// rotating register of the loop with it.
  void advance(std::size_t fi, std::int64_t mult = 1);

  static bool power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

  /// The rotating register for `x % s` or `x / s` at `level` (loops_[level - 1]'s
  /// variable), when x qualifies (see Rotating); nullopt otherwise.
  std::optional<Register> rotating_value(const Expr& e, unsigned level);

  /// `(x % s) * m` (either order, m >= 2 constant) as the rotating register
  /// m * (x % s), when x qualifies: no multiplication per iteration.
  std::optional<Register> scaled_rotating_value(const Expr& e, unsigned level);

  /// Finds or makes loops_[fi]'s rotating register m * (x % s) (with x / s when
  /// `quotient`); nullptr when x does not qualify or the loop is sealed.
  Rotating* rotating(const ExprPtr& given, std::int64_t s, std::int64_t m, std::size_t fi,
                     bool quotient);

  /// x with its constant c >= s reduced modulo s, where that keeps it >= 0
  /// (x % s is the same: `(v + 4) % 3` and `(v + 1) % 3` share one register).
  ExprPtr reduced_operand(const ExprPtr& x, std::int64_t s) const;

  /// m * (x % s): a rotating register of the loop x depends on where it
  /// qualifies (an inner loop's first value from an outer loop's variable), else computed.
  Operand scaled_remainder(const ExprPtr& x, std::int64_t s, std::int64_t m);

  void add_quotient(Rotating& r, std::size_t fi);

  /// x with loops_[fi]'s variable replaced by the loop's start.
  ExprPtr at_start(const ExprPtr& x, std::size_t fi) const;

  /// How much x grows per iteration of loops_[fi], when x = inv + a*v + sum
  /// c*(X / S) with a >= 0 for the loop's variable v, inv invariant in the loop,
  /// each c >= 1, S a constant and X = inv' + a'*v with a'*step a multiple of S
  /// (step constant): then X / S grows by exactly a'*step / S per iteration
  /// (X >= 0), so `(t / nbid) % 3` over `t += nbid` rotates like `i % 3`.
  /// nullopt when x has another form or does not grow.
  std::optional<ExprPtr> growth(const ExprPtr& x, std::size_t fi) const;

  /// x grows per iteration of loops_[fi] (growth()), x in 0..2^31-1 over the
  /// loop, and m*s in 2..2^31.
  bool rotating_form(const ExprPtr& x, std::int64_t s, std::int64_t m, std::size_t fi) const;

  /// The address register of a form that depends on loops_[fi]'s variable v
  /// (and on no loop inside it): base(inv) + lin*v + sum of m * (x % s), with
  /// base(inv) hoisted, lin*v an induction register (32-bit forms) or one
  /// mad.wide from the counter (64-bit ones) and the remainders rotating byte
  /// offsets (shared memory). nullopt when the form has another
  /// kind of term in v, or the registers cannot be made (a sealed loop).
  std::optional<Register> reduced_address(const tile::Tensor& t, const Linear& l, std::size_t fi);

  /// m * (x % s) in loops_[fi] as a rotating register r and a factor f, the
  /// value being f * r: a register of x and s whose scale divides m is reused
  /// (f = m / its scale), else rotating() makes one of scale m (f = 1).
  std::optional<std::pair<Register, std::int64_t>> stage_offset(const ExprPtr& x, std::int64_t s,
                                                                std::int64_t m, std::size_t fi);

  /// loops_[fi]'s induction register for base(inv) + lin*v: set before the
  /// loop to its value at v = start, advanced by lin*step per iteration. A
  /// global form that is not wrap32 holds the 64-bit address (lin > 0 there);
  /// otherwise a 32-bit register holds the address (shared) or the offset
  /// (global), exact modulo 2^32.
  std::optional<Register> induction(const tile::Tensor& t, const Linear& inv, std::int64_t lin,
                                    std::size_t fi);

  void lower(const tile::FillOp& f);

  void store_constant(StateSpace space, Address addr, const std::vector<std::uint8_t>& bytes);

  void lower(const tile::CopyOp& c);
  /// The copy's loads and stores, for every thread that reaches them.
  void copy_all(const tile::CopyOp& c);

  /// A shared view's side of a copy or fill: `.shared` for the CTA's own tensor, or for a peer
  /// view (`S@rank`) `.shared::cluster`, its addresses mapped to CTA `rank` by mapa (one mapa
  /// per register the op addresses through, in `mapped`).
  struct PeerSide {
    const tile::View* view = nullptr;
    std::optional<Operand> rank; ///< a peer view's rank
    std::map<std::uint32_t, Register> mapped;
  };
  PeerSide peer_side(const tile::View& v);
  StateSpace space_of(const PeerSide& p);
  /// `guard`: the op's pred, under which the contract proved the rank inside the cluster
  /// (mapa of a rank outside it is undefined).
  Address peer_address(PeerSide& p, Address a, const std::optional<Guard>& guard = std::nullopt);

  void copy_chunk(StateSpace dspace, Address dst, StateSpace sspace, Address src, std::int64_t w);
};

} // namespace ptxgen::lower::impl
