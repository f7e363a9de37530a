#pragma once
// The simulator's compact form of parsed PTX: one flat instruction array per
// entry with register indices resolved, so execution does no string work.

#include "driver/sim/tensor_ir.hpp"
#include "emitter/ptx/operand.hpp"
#include "emitter/ptx/types.hpp"
#include "emitter/support/diagnostic.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::sim::ir {

/// What an instruction does; the list, each code's family and its instruction forms are
/// declared in forms.def.
enum class Code : std::uint8_t {
#define SIM_CODE(code, family) code,
#define SIM_FORM(mnemonic, code, qualifiers, types, o1, o2, o3, o4)
#include "driver/sim/forms.def"
#undef SIM_FORM
#undef SIM_CODE
};

/// The executor's handler for a code: one case of its switch (Cta::execute).
enum class Family : std::uint8_t {
  async_copy,    ///< cp.async and its groups, createpolicy
  move,          ///< moves, conversions, comparisons, plain loads and stores
  integer,       ///< integer arithmetic, shifts, bit fields and logic
  arith,         ///< the bit operations and the float forms
  hint,          ///< instructions the simulator runs as no-ops (nanosleep, prefetch, fences)
  warp,          ///< warp-collective instructions (ldmatrix, shfl, vote, match)
  active_mask,   ///< activemask
  control,       ///< bar.sync, ret / exit, call, trap, bra
  atomic,        ///< atom, red
  mbarrier,      ///< the mbarrier family and the copies that complete on one
  pending_count, ///< mbarrier.pending_count
  tensor,        ///< tensor cores: mma.sync, stmatrix, movmatrix, wgmma (cta_tensor_core.cpp)
  unsupported,   ///< a form the parser accepted but the simulator does not run
};

/// The family forms.def gives `c`.
constexpr Family family(Code c) {
  constexpr Family families[] = {
#define SIM_CODE(code, family) Family::family,
#define SIM_FORM(mnemonic, code, qualifiers, types, o1, o2, o3, o4)
#include "driver/sim/forms.def"
#undef SIM_FORM
#undef SIM_CODE
  };
  return families[static_cast<std::size_t>(c)];
}

/// A setp comparison: the emitter's (ptx::CompareOp), one vocabulary. lo/ls/hi/hs compare
/// unsigned whatever the type; equ ... nan apply to floats only.
using Cmp = ptx::CompareOp;

/// setp.cmp.bop's combining operation: p = (a cmp b) bop c, q = !(a cmp b) bop c.
enum class BoolOp : std::uint8_t {
  none, ///< plain setp: p = (a cmp b), q = !(a cmp b)
  and_, ///< .and
  or_,  ///< .or
  xor_, ///< .xor
};

/// The arithmetic a type means: `integer` for the integer and bN types, else
/// the floating-point format (the x2 forms: two 16-bit halves in 32 bits).
enum class Num : std::uint8_t {
  integer, ///< uN, sN, bN, pred
  f16,     ///< IEEE binary16
  bf16,    ///< bfloat16 (8 exponent bits, 7 fraction bits)
  f32,     ///< IEEE binary32
  f64,     ///< IEEE binary64
  f16x2,   ///< two f16, the first operand element in the upper half
  bf16x2,  ///< two bf16, likewise
  e4m3x2,  ///< two 8-bit floats (4 exponent bits, 3 fraction bits, no infinity) in 16 bits, the
           ///< first operand element in the upper byte (cvt only)
  e5m2x2,  ///< two 8-bit floats (5 exponent bits, 2 fraction bits), likewise
};

/// A rounding modifier (`none`: the instruction's default): the emitter's, one vocabulary.
using Round = ptx::Rounding;

/// shfl.sync's mode: which lane a lane reads from.
enum class Shuffle : std::uint8_t {
  up,   ///< lane - b
  down, ///< lane + b
  bfly, ///< lane ^ b
  idx,  ///< lane b of the segment
};

/// vote.sync's mode.
enum class Vote : std::uint8_t {
  all,    ///< the predicate holds on every lane
  any,    ///< on some lane
  uni,    ///< on all lanes or on none
  ballot, ///< the lanes where it holds, as a b32 mask
};

/// prmt's mode: the generic byte permute, or one of the specialised ones.
enum class Permute : std::uint8_t {
  generic, ///< four 4-bit selectors in c[15:0]
  f4e,     ///< forward 4 extract
  b4e,     ///< backward 4 extract
  rc8,     ///< replicate 8
  ecl,     ///< edge clamp left
  ecr,     ///< edge clamp right
  rc16,    ///< replicate 16
};

/// An integer view of a PTX type: width and signedness (floats are bits).
struct Type {
  std::uint8_t bits = 32; ///< 1 for pred
  bool is_signed = false; ///< sN
  Num num = Num::integer; ///< floats: the format
};

/// Where an ld/st/cvta goes.
enum class Space : std::uint8_t {
  param,   ///< kernel parameters (offset into the parameter block)
  global,  ///< the caller's buffers
  shared,  ///< the CTA's shared memory (offset 0..size)
  generic, ///< decided by address (shared_window_base)
  /// The thread's own param memory of calls: a function's parameters and return
  /// values and the `.param` variables its call sequences declare (offset into
  /// the thread's frame area; the parser checks the bounds).
  frame,
  /// The thread's `.local` memory: its functions' `.local` arrays, which live in
  /// its frame area (a local address is a frame offset; local_window_base maps
  /// it into the generic space).
  local,
};

/// The operation of an atom / red.
enum class Atomic : std::uint8_t {
  add,  ///< .add
  inc,  ///< .inc: old >= b ? 0 : old + 1 (unsigned)
  dec,  ///< .dec: old == 0 || old > b ? b : old - 1 (unsigned)
  cas,  ///< .cas: old == b ? c : old
  exch, ///< .exch: b
  min,  ///< .min (signed by the type)
  max,  ///< .max
  and_, ///< .and
  or_,  ///< .or
  xor_, ///< .xor
};

/// A value operand.
struct Val {
  enum class Kind : std::uint8_t {
    none,    ///< absent
    reg,     ///< register `reg`
    imm,     ///< immediate `imm` (shared symbols are folded into immediates)
    special, ///< special register `special` (the emitter's enum: one PTX vocabulary)
    local, ///< the local address of a `.local` array: `imm`, a frame offset (relocated by the link)
    not_pred, ///< predicate register `reg` negated (`!%p` as a source: `and.pred %d, %a, !%b`)
  };
  /// A register this operand reads (reg or not_pred).
  bool reads_reg() const { return kind == Kind::reg || kind == Kind::not_pred; }
  Kind kind = Kind::none;
  ptx::SpecialRegister special = ptx::SpecialRegister::tid_x;
  std::uint32_t reg = 0;
  std::int64_t imm = 0;
};

/// A memory operand: register (optional) + offset. Symbols are folded into the offset.
struct Addr {
  bool has_reg = false;
  std::uint32_t reg = 0;
  std::int64_t offset = 0;
  /// The width of the address arithmetic: 32 with a 32-bit register, whose
  /// sum with the offset wraps mod 2^32 as PTX's does (`[%r+12288]` where the
  /// register holds a "negative" offset); 64 otherwise (no wrap).
  std::uint8_t bits = 64;
};

/// How a cp.async fills its destination.
enum class ZeroFill : std::uint8_t {
  none,       ///< copy all cp-size bytes
  src_size,   ///< copy Op::zval bytes, zero the rest
  ignore_src, ///< when predicate Op::zval (negated by zneg) is true: zero everything
};

/// The state spaces a fence.proxy.async orders (Op::n).
inline constexpr std::int64_t fence_shared = 1;
inline constexpr std::int64_t fence_global = 2;

/// The field a tensormap.replace writes (Op::n). The first four take an ordinal (src[0]) before
/// the value (src[1]); the others only the value (src[0]).
inline constexpr std::int64_t tensormap_dim = 1;
inline constexpr std::int64_t tensormap_stride = 2;
inline constexpr std::int64_t tensormap_box = 3;
inline constexpr std::int64_t tensormap_element_stride = 4;
inline constexpr std::int64_t tensormap_address = 0;
inline constexpr std::int64_t tensormap_rank = 5;
inline constexpr std::int64_t tensormap_elemtype = 6;
inline constexpr std::int64_t tensormap_interleave = 7;
inline constexpr std::int64_t tensormap_swizzle = 8;
inline constexpr std::int64_t tensormap_fill = 9;
/// Whether tensormap.replace's field takes an ordinal.
constexpr bool tensormap_ordinal(std::int64_t field) {
  return field >= tensormap_dim && field <= tensormap_element_stride;
}

struct Op {
  Code code = Code::ret;
  Type type;                 ///< the instruction type (destination type for cvt)
  Type type2;                ///< the source type of cvt
  Cmp cmp = Cmp::eq;         ///< setp
  BoolOp bop = BoolOp::none; ///< setp.cmp.bop (its c in src[2]; its `|q` in pred_dst)
  Space space = Space::global;
  bool to = false;         ///< cvta.to (state space from generic) rather than cvta (to generic)
  std::uint8_t vec = 1;    ///< 1, 2 or 4 registers moved by ld/st; elements of mov_pack/unpack
  std::int32_t guard = -1; ///< predicate register, -1 when unguarded
  bool guard_neg = false;  ///< `@!%p`
  std::uint32_t dst[4] = {0, 0, 0, 0};
  Val src[4]; ///< a, b, c; or st's vector sources
  Addr addr;  ///< ld/st address; cp.async destination
  Addr addr2; ///< cp.async source
  std::uint32_t cp_size = 0;
  ZeroFill zfill = ZeroFill::none;
  Val zval;          ///< src-size value or ignore-src predicate
  bool zneg = false; ///< `!%p` ignore-src
  /// wait_group N, barrier id (-1: the value of src[0]), branch target, Entry::calls index of a
  /// call; for ret: 1 when the instruction is `exit` (leaves the thread even inside a call);
  /// for fence.proxy.async: the state spaces it orders (fence_shared | fence_global); for dp2a:
  /// the first byte of b it multiplies (0: .lo, 2: .hi)
  std::int64_t n = 0;
  std::uint32_t line = 0;          ///< 1-based PTX line
  std::uint32_t text = 0;          ///< index into Entry::texts (instruction text for messages)
  Round round = Round::none;       ///< float arithmetic and cvt
  bool ftz = false;                ///< .ftz: subnormal f32/f16 inputs and results become zero
  bool sat = false;                ///< .sat: float results clamped to [0, 1]; integer clamps
  bool full = false;               ///< div.full.f32 (div.approx.f32: Round::none without it)
  Permute prmt = Permute::generic; ///< prmt's mode
  bool left = false;               ///< shf.l (else shf.r)
  bool clamp = false;              ///< shf.clamp (else .wrap)
  Addr addr3;         ///< cp.async.bulk's mbarrier (its destination in addr, source in addr2;
                      ///< a tensor copy's: its shared side in addr, its tensor map in addr2)
  bool noinc = false; ///< cp.async.mbarrier.arrive.noinc
  bool read = false;  ///< cp.async.bulk.wait_group.read: waits for the groups' reads only
  bool sink = false;  ///< mbarrier.arrive's (elect.sync's) destination is the sink `_`
  /// The predicate destination of a `d|p` operand (shfl.sync: the source lane is in range);
  /// -1 when none is written.
  std::int32_t pred_dst = -1;
  bool trans = false;             ///< ldmatrix .trans (Op::vec: the matrix count)
  Shuffle shuffle = Shuffle::idx; ///< shfl.sync's mode
  Vote vote = Vote::all; ///< vote.sync's mode; bar.red's: all (.and), any (.or), ballot (.popc)
  bool src_neg = false;  ///< vote.sync's predicate source is `!%p`
  /// A strong (morally strong, in PTX's memory model) access: atom, red, and ld/st with
  /// .relaxed/.acquire/.release/.volatile. Two strong accesses are never a data race.
  bool strong = false;
  Atomic atomic = Atomic::add; ///< atom / red's operation; redux.sync's (add min max and or xor)
  bool shiftamt = false;       ///< bfind.shiftamt
  std::uint8_t rank = 0;       ///< cp.async.bulk.tensor's dimensions (1..5)
  std::array<Val, 5> coords{}; ///< its tensor coordinates, innermost first (as written)
  // kernel math and barriers
  /// cvt .relu: a negative result becomes +0 (a NaN stays NaN); min / max .relu (.s32, .s16x2):
  /// a negative result (each half's) becomes 0
  bool relu = false;
  bool nan = false; ///< min / max .NaN (float forms): a NaN operand gives the canonical NaN
  /// add / min / max .u16x2 / .s16x2: two 16-bit integers in the 32 bits of Op::type, each
  /// computed alone (no carry between them)
  bool halves = false;
  bool satfinite = false; ///< cvt .satfinite: beyond the largest finite value (inf too) saturates
  /// cvt.{rna,rn,rz}{.satfinite}.tf32.f32: the f32 rounded to tf32's 10 fraction bits in an f32's
  /// bits (the 13 low bits zero); `.rna` (ties away from zero) is this flag, rn / rz are `round`.
  bool to_tf32 = false;
  bool ties_away = false;
  // clusters
  /// The state space was written `.shared::cluster` (Space::shared): the address may name a
  /// peer CTA's shared memory (simulator.hpp, cluster_window_stride).
  bool cluster = false;
  bool relaxed = false;   ///< barrier.cluster.arrive.relaxed: the arrival orders nothing
  bool multicast = false; ///< cp.async.bulk{.tensor} .multicast::cluster
  Val cta_mask;           ///< a multicast's 16-bit CTA mask
  /// cp.async.bulk.tensor .im2col (a load), and its 16-bit offsets, innermost first (rank - 2).
  bool im2col = false;
  std::array<Val, 3> offsets{};
};

struct Param {
  std::string name;
  std::uint32_t offset = 0; ///< in the parameter block (a .func's: in its frame)
  std::uint32_t size = 8;
  std::string type;                 ///< as declared: ".u64", ".b32", ".b8" (an array's element)
  bool is_ptr = false;              ///< `.ptr` attribute
  Space ptr_space = Space::generic; ///< `.ptr .global` / `.ptr .shared`; generic without
  std::uint32_t ptr_align = 0;      ///< `.ptr ... .align N`; 0 when not stated
  std::uint32_t align = 0;          ///< `.param .align N` (arrays), else the element size
};

/// A byte copy between two places of a thread's frame (a call's argument or result).
struct Move {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  std::uint32_t bytes = 0;
};

/// One `call` of a function body: what the linker resolved.
struct Call {
  std::string callee; ///< empty for an indirect call
  /// An indirect call (`call (r), %rd, (a), prototype;`): the register holding the address
  /// (function_address_base + the callee's index in Module::funcs); the linker adds a
  /// direct call per function whose address the entry takes and lists them here.
  bool indirect = false;
  std::vector<std::uint32_t> alternatives; ///< Entry::calls indexes (indirect calls)
  std::uint64_t address = 0;               ///< an alternative's callee address
  std::size_t pos = 0;                     ///< source offset of the callee's name (for diagnostics)
  /// Arguments and results as the caller names them: frame offset and size.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> args, rets;
  std::uint32_t target = 0; ///< the callee's first op in the linked entry
  std::vector<Move> in;     ///< caller args -> callee params (linked frame offsets)
  std::vector<Move> out;    ///< callee results -> caller results
};

/// Module-scope `.global` / `.const` data: host memory in the global space.
struct Data {
  std::string name;
  std::uint64_t address = 0; ///< at module_data_base and up
  std::vector<std::uint8_t> init;
  std::string broken;   ///< why an instruction that uses it cannot run (an unsupported initialiser)
  std::string function; ///< the function that declares it; empty at module scope
};

struct SharedArray {
  std::string name;
  std::uint64_t offset = 0; ///< shared address of its first byte
  std::uint64_t bytes = 0;  ///< 0 for the `.extern` array: the launch sizes it
  std::uint64_t align = 1;
  bool is_extern = false; ///< `.extern .shared ... name[];` (dynamic shared memory)
};

struct Entry {
  std::string name;
  std::uint32_t line = 0;
  std::vector<Param> params;
  std::uint32_t param_bytes = 0;
  std::vector<SharedArray> shared;
  /// Static shared bytes; with an `.extern` array, its offset: the launch's
  /// dynamic shared bytes follow.
  std::uint64_t shared_bytes = 0;
  bool has_extern_shared = false;
  std::optional<std::array<std::uint32_t, 3>> reqntid; ///< `.reqntid x{, y{, z}}`, missing ones 1
  std::optional<std::array<std::uint32_t, 3>> maxntid; ///< `.maxntid x{, y{, z}}`, likewise
  /// `.reqnctapercluster x{, y{, z}}`: the cluster shape the entry requires, missing ones 1.
  std::optional<std::array<std::uint32_t, 3>> reqnctapercluster;
  bool explicitcluster = false;                ///< `.explicitcluster`
  std::optional<std::uint32_t> maxclusterrank; ///< `.maxclusterrank n`
  std::optional<std::uint32_t> minnctapersm;   ///< `.minnctapersm n` (a hint: not simulated)
  std::optional<std::uint32_t> maxnctapersm;   ///< `.maxnctapersm n` (a hint: not simulated)
  std::optional<std::uint32_t> maxnreg;        ///< `.maxnreg n` (a hint: not simulated)
  std::vector<std::uint64_t> reg_mask;         ///< per register: the bits its declared width keeps
  std::vector<std::string> reg_names;          ///< per register, for messages
  std::vector<Op> ops;
  std::vector<std::string> texts; ///< instruction texts; unsupported ops: the reason follows
  bool is_func = false;           ///< a `.func` (params and results live in its frame)
  /// A `.func` returning nothing, linked as an entry whose parameters are the launch's
  /// (Module::entries holds one per such .func after the real entries).
  bool from_func = false;
  bool defined = false;           ///< a body was parsed (a `.func` may be only declared)
  std::vector<Param> rets;        ///< a .func's return parameters (frame offsets)
  std::uint32_t frame_bytes = 0;  ///< per-thread frame bytes (after linking: of every function)
  std::vector<Call> calls;        ///< Op::n of a call indexes this
  std::vector<SharedArray> local; ///< `.local` arrays (offsets into the frame)
  std::vector<std::string> address_taken; ///< .funcs whose address a `mov` takes
  std::vector<MatrixOp> matrix;           ///< Op::n of an mma / wgmma.mma_async indexes this
  /// Why this function (or, after linking, a function it calls) cannot run: its
  /// parse errors and the link's. Another entry's problems do not refuse the file.
  std::vector<Diagnostic> problems;
};

struct Module {
  std::string version;
  std::string target;
  std::uint32_t address_size = 64;
  /// Linked: each holds the .funcs it calls after its own ops. The `.entry`s in the order of
  /// the text, then each .func that returns nothing as an entry (Entry::from_func).
  std::vector<Entry> entries;
  std::vector<Entry> funcs; ///< the `.func`s as parsed (declarations and definitions)
  std::vector<Data> data;   ///< module-scope .global / .const variables
};

} // namespace ptxgen::sim::ir
