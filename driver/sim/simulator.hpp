#pragma once
// The CPU simulator of the PTX subset that ptxgen emits.
//
// It parses PTX text itself (never the emitter's AST), so it checks the
// printer and the lowering: a kernel runs here exactly as it was printed.
// Every thread of every CTA of a launch is executed on host buffers.
//
// Launches are 3-D, as cuLaunchKernel's: a thread's linear index is
// tid.x + tid.y*ntid.x + tid.z*ntid.x*ntid.y (likewise a CTA's over the grid),
// and warps (%laneid, %warpid) are formed from the linear index, as the
// hardware forms them. Messages name threads as (bid x,y,z / tid x,y,z).
//
// Execution model (deterministic): CTAs run one after another in linear
// order; inside a CTA the threads run in linear order, each until it reaches
// `bar.sync` or exits.
// When every thread waits at the barrier, the CTA enters its next "phase".
// A barrier that some threads reach while others have exited is a
// barrier_divergence fault. Named barriers with a thread count (bar.sync a, b; bar.arrive;
// bar.red) complete with b arrivals; they order their arrivals' prior accesses before their
// waiters' later ones (vector clocks, as mbarriers do), and one that can never complete, or
// whose users give two counts, is a deadlock (driver/sim/cta_barrier.cpp).
//
// cp.async: a copy is queued by its thread at issue (guard, addresses,
// src-size and ignore-src are captured then, and the addresses are checked
// then); its bytes are read and written as late as PTX allows, at the
// wait_group / wait_all that covers its group. Copies still pending when a
// thread exits are performed at exit, with a warning.
//   - src-size s: bytes [src, src+s) are read (bounds-checked), the other
//     cp-size - s bytes become zero; s > cp-size is undefined_behavior.
//   - ignore-src true: all cp-size bytes become zero and the source operand
//     is neither read nor checked (no bounds, no alignment fault).
//   - the source must be aligned to cp-size in every other case, the
//     destination always.
//
// cp.async groups: each thread has a FIFO of committed groups; a
// commit_group with no copy since the last commit is a real, empty group;
// `wait_group n` completes all but the n newest committed groups (copies not
// yet committed stay pending); wait_all commits and completes everything.
//
// Shared memory starts filled with poison_byte (not zero), so a test that
// forgot its sentinel cannot pass by luck. Races on shared memory are
// tracked per byte (last writer and phase, the two latest distinct readers
// and their phase, the thread whose pending cp.async will write it): any
// cross-thread access without a bar.sync both passed in between where one
// side writes (a refill without a barrier is a write_after_read), two pending
// copies to the same bytes, and any read by a thread of bytes of its own copy
// that it has not waited for, is a `race` fault whose Fault::race says which
// two accesses conflict (thread, PTX line, iteration, shared symbol, offset).
// The race is reported at the second access in the simulation order, so its
// kind follows that order: a refill without a barrier is a write_after_read
// when the reader has the lower linear tid, and the reader's read_in_flight
// or read_after_write when the writer has. Global memory is race-checked only where the bulk
// family and several CTAs need it (below: bulk stores, the async proxy, races between CTAs).
//
// mbarrier objects (driver/sim/mbarrier.hpp has the rules): 8-byte objects in shared memory
// whose state (phase, pending and expected arrivals, tx-count) is kept aside, keyed by shared
// offset; an ld / st / cp.async touching a valid object's bytes is undefined_behavior.
// A thread whose mbarrier.test_wait / try_wait finds its phase incomplete is descheduled
// (the spin loop around it costs one iteration, not the instruction limit); it runs again
// once some object changed, and, when nothing else can run, once to see the wait return
// false. When every live thread of a CTA is blocked (mbarrier or bar.sync) and nothing can
// change, the launch stops with a `deadlock` fault naming a blocked thread, its line and the
// object's state. Asynchronous work an mbarrier tracks (the cp.asyncs before a
// cp.async.mbarrier.arrive{.noinc}; cp.async.bulk ... mbarrier::complete_tx::bytes) is
// performed as late as PTX allows, when the phase that needs it completes; until then its
// bytes are pending exactly like a cp.async's (a read is read_before_wait for the issuing
// thread, read_in_flight for another). A wait that sees its phase complete orders the
// arrivals' prior accesses before the waiter's later ones (vector clocks), as bar.sync does.
//
// Bulk stores (cp.async.bulk.global.shared::cta.bulk_group, driver/sim/cta_bulk.cpp): checked
// and queued at issue in the thread's open bulk group (cp.async.bulk.commit_group closes it);
// `cp.async.bulk.wait_group.read n` completes the reads of shared memory of all but the n
// newest committed groups, `cp.async.bulk.wait_group n` their whole copies (a group's read
// always before its write). Both happen as late as those waits allow, as for cp.async. Until
// its read completes, a write into the source bytes (st, cp.async, a bulk load landing) is a
// `refill before bulk read` race; after it, another thread's write must be ordered after the
// wait (a bar.sync or mbarrier phase since; else `write after read`). Until its write
// completes, a read of the global destination bytes by the CTA (ld, a cp.async or bulk load
// source) is `read before bulk write`. A thread that exits with a store whose read has not
// completed is undefined_behavior (PTX does not say exit waits, and the CTA's shared memory
// goes away: the strict reading); stores whose read completed write global memory at exit.
// A generic write (st, atom, red) of a pending store's destination is `write before bulk
// write`. A bulk wait retires the waiting thread's own groups only: once a store's write
// completed at its issuer's wait, another thread's access to its global bytes must be ordered
// after that wait (a bar.sync or mbarrier phase since), else `bulk wait scope`; a store written
// at its issuer's exit, never waited for, stays `read / write before bulk write` for the others.
// The async proxy: a bulk store's source bytes, and a bulk load's destination bytes, last
// written through the generic proxy (st, atom, a non-bulk cp.async landing) need a
// fence.proxy.async (no state space or .shared::*) by their writer after that write, ordered
// before the bulk operation's issue (program order for the issuing thread; for another, a
// bar.sync or an mbarrier phase after the fence), else a `missing proxy fence` race names both
// lines. Bytes a bulk load wrote are async-proxy bytes. Global memory has the same rule: a bulk
// or tensor load's source bytes last written by a generic store of the CTA need a
// fence.proxy.async or fence.proxy.async.global by the writer, ordered before the load, else
// `missing global proxy fence` (a .shared::* fence orders no global bytes, .global no shared).
// Races between CTAs (cross_cta.hpp): in a launch of several CTAs whose entry has no atom and no
// strong ld (nothing that could order CTAs), two CTAs' plain accesses of the same global bytes,
// one a write (st or a bulk / tensor store), are `cross CTA`, found in linear CTA order however
// the CTAs ran; the same values written by both are `cross CTA same value`, which only an
// observer records (a note), never a fault.
// Atomics and strong accesses (PTX's memory model): atom / red (add, inc, dec, cas, exch,
// min, max, and, or, xor on 32- and 64-bit integers; shared, global or generic addresses)
// and ld / st with .relaxed / .acquire / .release / .volatile are "strong". Two strong
// accesses to the same bytes are never a race; a strong access against a plain one follows
// the rules above (an atom is a read and a write). Every .sem and .scope is accepted: the
// simulator runs one thread at a time, so every execution is sequentially consistent, and
// fence.sc / fence.acq_rel / membar do nothing.
// Spin loops: a thread that made a strong load and no store since its last taken backward
// branch yields at that branch (the others run, then it resumes), so a loop polling a flag
// another thread will set ends; a loop that never ends still meets the instruction limit.
// Warp queries: the simulator runs a warp's lanes one after another, so activemask waits
// until no lane of the warp can run on (each has exited, waits at a barrier, an mbarrier or
// a warp instruction, or is here); the active lanes are those at this same activemask
// (lanes that took another branch, waited elsewhere or exited are not). shfl.sync, vote.sync,
// match.any.sync, redux.sync and bar.warp.sync (no .aligned) make the non-exited lanes of their
// membermask wait for each other, each in any instruction of the same kind and membermask;
// .aligned ones (ldmatrix, setmaxnreg) need every lane of the warp at the same instruction.
//
// Reserved shared memory (%reserved_smem_offset_*, what cooperative_groups and libcu++
// use): reserved_smem_bytes bytes the runtime sets aside per CTA. On the GPU they lie
// below the kernel's shared variables; the simulator gives them only to an entry that reads
// one of these registers, and places them after the kernel's static and dynamic shared
// memory (at the first 16-byte boundary), so the kernel's own arrays keep their offsets:
// begin = that boundary, end = begin + reserved_smem_bytes, cap = reserved_smem_bytes,
// _0 = begin, _1 = begin + 8. %total_smem_size does not count them.
//
// Tensor copies (cp.async.bulk.tensor.{1..5}d ... .tile, driver/sim/cta_tensor.cpp): a
// CUtensorMap's 128 bytes are the driver's opaque encoding, so the caller states each map the
// launch passes (Launch::tensor_maps: a tile::TensorMapDesc and the global address of the
// tensor it maps). The simulator stands for map k by 128 handle bytes (tensor_map_handle(k)):
// it writes them into the `.param` that holds the map (`.param .align 64|128 .b8 p[128]`, as
// nvcc declares a `const __grid_constant__ CUtensorMap`), and a caller may copy them into
// global memory for a kernel that finds its map there. The instruction's map operand is a
// generic address (as the ISA requires; nvcc takes `mov.b64 %rd, param` then `cvta.param.u64`):
// of a kernel parameter (the param window, param_window_base) or inside a global buffer, 64-byte
// aligned; 128 bytes there that are not a handle of this launch are `unsupported` (the simulator
// cannot decode a real CUtensorMap). The elements go where tile::box_elements says (swizzle,
// element strides). A load is a bulk copy like the 1-D one (complete_tx on its mbarrier, performed
// when the phase completes): its tx bytes are the whole box, filled elements included, and
// elements outside the tensor are filled with zero, or with NaN (every bit but the sign set, a
// NaN in each float format). A store joins the thread's open bulk group like a 1-D bulk store
// (the same read / write completion and races over its shared source); it writes the elements
// inside the tensor and, past the inner extent, those before the row's next 16-byte boundary
// (the H100's spill), and skips the others. Its shared side is aligned to 128 bytes, or to the
// swizzle's repeat (256, 512, 1024), else misaligned_address.
//
// Clusters (driver/sim/cluster.hpp, cta_cluster*.cpp): the shape is the entry's
// `.reqnctapercluster`, else Launch::cluster_dim, else one CTA; the grid must be a multiple of it
// and it holds at most max_cluster_ctas CTAs (and the entry's `.maxclusterrank`). %cluster_ctarank
// counts x fastest within the cluster; %clusterid / %nclusterid / %cluster_ctaid / %cluster_nctaid
// follow from the grid and the shape; %is_explicit_cluster is 1 when a shape was named. The CTAs
// of a cluster of several run together on one host thread, in rounds (each CTA one pass over its
// threads per round), the clusters one after the other; a cluster of one runs as any CTA.
//   - Distributed shared memory: a `.shared::cluster` address of CTA rank r is (r + 1) *
//     cluster_window_stride + its offset (what mapa gives; generic: shared_window_base + that);
//     an address below the stride is the executing CTA's own. ld / st / atom / red with such an
//     address reach the peer's bytes (a `.shared::cta` one may not).
//   - barrier.cluster: an arrival counts for the current phase, which completes when every thread
//     of the cluster that has not exited has arrived; a wait returns once the phase of the
//     thread's last arrival completed. Arriving twice without a wait, or waiting without an
//     arrival, is undefined_behavior; a wait that can never return a deadlock. A non-relaxed
//     arrival orders the thread's earlier accesses before whatever a thread does after a wait
//     that saw the phase complete; a `.relaxed` one orders nothing. In a cluster of one CTA the
//     arrive does nothing and the wait is a whole-CTA barrier.
//   - mbarriers of a peer: mbarrier.arrive{.expect_tx} and expect_tx on a `.shared::cluster`
//     address of a peer count on the peer's object; cp.async.bulk.shared::cluster.shared::cta
//     takes the source bytes at issue and lands them in the peer when the peer's phase completes;
//     a `.multicast::cluster` load lands the same bytes at the same offset in each CTA of its
//     16-bit mask, each completing tx on its own barrier at the mbarrier operand's offset.
//   - Hazards, each a race naming both lines, threads and CTAs: cross_cta_shared (two CTAs'
//     accesses of the same shared bytes, one a write, that no cluster barrier phase orders;
//     checked for entries whose only cross-CTA ordering is the cluster barrier: one that also
//     signals a peer's mbarrier may order its DSMEM data through it, which is not followed);
//     cluster_peer_exit (a CTA's last thread exits while a peer's earlier use of its shared
//     memory or barriers is not ordered before the exit by a cluster barrier phase, or a peer
//     uses them after); remote_before_init (a remote arrive, peer copy or multicast into a
//     barrier whose init its thread did not publish, by fence.mbarrier_init.release.cluster or a
//     release arrival, in a cluster barrier phase the remote thread has waited for);
//     multicast_without_expect_tx (a barrier that a multicast or a peer copy feeds gets all its
//     arrivals with more bytes coming in than its tx-count expects; the surplus is then taken as
//     expected, so the run goes on).
//   - Not followed: the mbarriers' ordering between CTAs (the vector clocks are per CTA); a read
//     of a peer copy's destination before its phase completes (it lands at the completion); the
//     cross-CTA check of global bytes (cross_cta.hpp) between the CTAs of clustered launches.
//
// The generic address space: global addresses are the caller's buffer
// addresses; shared memory is mapped at shared_window_base (cvta.shared /
// cvta.to.shared convert), kernel parameters at param_window_base (cvta.param: `mov.b64 %rd,
// param` gives a parameter's offset in the parameter space); a generic ld/st decides by address
// (it does not read the param window).

#include "emitter/support/result.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxgen::sim {

namespace ir {
struct Module;
struct Entry;
} // namespace ir
class Profile; // driver/sim/profile.hpp

/// The value every byte of a CTA's shared memory holds before the kernel writes it.
inline constexpr std::uint8_t poison_byte = 0xA5;
/// The reserved shared memory of a CTA (cudaDevAttrReservedSharedMemoryPerBlock, sm_80+).
inline constexpr std::uint64_t reserved_smem_bytes = 1024;
/// Where shared memory appears in the generic address space.
inline constexpr std::uint64_t shared_window_base = 0x0000'7e00'0000'0000ull;
/// Where a thread's `.local` memory appears in the generic address space.
inline constexpr std::uint64_t local_window_base = 0x0000'7c00'0000'0000ull;
/// The address of the module's k-th `.func` (`mov.u64 %rd, f;`, called indirectly) is
/// function_address_base + k; it points at no memory.
inline constexpr std::uint64_t function_address_base = 0x0000'7b00'0000'0000ull;
/// Where the module's own `.global` / `.const` variables live in the global space.
inline constexpr std::uint64_t module_data_base = 0x0000'7d00'0000'0000ull;
/// Where the kernel's parameters appear in the generic address space (cvta.param).
inline constexpr std::uint64_t param_window_base = 0x0000'7a00'0000'0000ull;
/// The most CTAs a cluster may hold (16 with the non-portable opt-in; 8 portable).
inline constexpr std::uint32_t max_cluster_ctas = 16;
/// A `.shared::cluster` address of CTA rank r of the cluster is (r + 1) * cluster_window_stride
/// plus the shared offset (mapa computes it); an address below cluster_window_stride is the
/// executing CTA's own (a `.shared::cta` address is a valid `.shared::cluster` one). Generic
/// addresses of the cluster's shared memory are shared_window_base plus the same value.
inline constexpr std::uint64_t cluster_window_stride = 1ull << 24;
/// Bytes of a tensor map (CUtensorMap), and the alignment of its address.
inline constexpr std::size_t tensor_map_bytes = 128;
// Tensor maps edited in memory (tensormap.replace, driver/sim/cta_tensormap.cpp): a handle
// (tensor_map_handle) copied into global or shared memory may be edited. Its bytes 16..95 hold
// the edits, 0 where a field keeps the launch's value: the global address (a u64 at 16), the
// global dims (u64 each from 24, innermost first: ordinal o at 24 + 8 o) and the global
// strides (u64 each from 64, cuTensorMapEncodeTiled's order: ordinal o, the stride of
// dimension o + 1 innermost first, at 64 + 8 o); a tensor copy through the handle uses the
// launch's map with them. tensormap.cp_fenceproxy copies a handle from shared to global
// memory. The fences (fence.proxy.tensormap::generic) order what the simulator already orders:
// it runs each thread's instructions in order over one copy of memory; a copy through a map
// whose edit no fence published is the contract's to refuse (contract_tensormap_fence).
inline constexpr std::size_t tensor_map_edit_address = 16;
inline constexpr std::size_t tensor_map_edit_dims = 24;
inline constexpr std::size_t tensor_map_edit_strides = 64;
inline constexpr std::size_t tensor_map_edits_end = 96;
inline constexpr std::uint64_t tensor_map_align = 64;
// Tensor maps built in memory (Triton's device-side descriptors, tl.make_tensor_descriptor):
// 128 zero bytes, then a tensormap.replace of every field, then tensormap.cp_fenceproxy to
// global memory. The first replace on zero bytes makes them a built map, which the simulator
// lays out as its own (the GPU's encoding is opaque): the magic "ptxgenTB", the global address
// (u64 at 8), the fields rank, elemtype, interleave_layout, swizzle_mode and fill_mode as
// written (a byte each from 16), then per ordinal o (innermost first) box_dim (u32 at 24 + 4 o),
// element_stride (u32 at 44 + 4 o), global_dim (u32 at 64 + 4 o) and global_stride (u64 at
// 88 + 8 o). A tensor copy through one decodes it with the PTX ISA's encodings (rank = value +
// 1; elemtype 0 .u8, 1 .u16, 2 .u32, 3 .s32, 4 .u64, 5 .s64, 6 .f16, 7 .f32, 9 .f64, 10 .bf16;
// swizzle_mode 0 none, 1 32B, 2 64B, 3 128B; fill_mode 0 zero, 1 NaN; interleave 0 only);
// a map tile::check_tensor_map refuses is undefined behaviour at the copy.
inline constexpr std::size_t tensor_map_built_address = 8;
inline constexpr std::size_t tensor_map_built_fields = 16;
inline constexpr std::size_t tensor_map_built_box = 24;
inline constexpr std::size_t tensor_map_built_element_strides = 44;
inline constexpr std::size_t tensor_map_built_dims = 64;
inline constexpr std::size_t tensor_map_built_strides = 88;

/// One global allocation: bytes [address, address + bytes->size()) are addressable.
struct GlobalBuffer {
  std::uint64_t address = 0;
  std::vector<std::uint8_t>* bytes = nullptr;
  std::string name; ///< for messages ("A", "B")
};

/// Sizes along x, y, z.
using Dim3 = std::array<std::uint32_t, 3>;

/// A tensor map the launch passes (see "Tensor copies" above).
struct TensorMapArg {
  /// The entry's `.param` (declaration order) that holds the map: a 128-byte array parameter,
  /// into which the simulator writes tensor_map_handle() of this map. None: the kernel finds
  /// the map elsewhere (handle bytes the caller placed in a global buffer).
  std::optional<std::size_t> param;
  tile::TensorMapDesc desc;         ///< what it encodes; tile::check_tensor_map(desc) is empty
  std::uint64_t global_address = 0; ///< the tensor's first byte (16-byte aligned), in `memory`
};

/// The 128 bytes that stand for Launch::tensor_maps[index]: the magic "ptxgenTM", the index
/// and its complement (little endian u32 each), then zeros.
std::array<std::uint8_t, tensor_map_bytes> tensor_map_handle(std::size_t index);
/// The index the handle `bytes` (tensor_map_bytes of them) stands for; nullopt when they are
/// not a handle.
std::optional<std::size_t> tensor_map_index(std::span<const std::uint8_t> bytes);
/// `launch` with the edits the handle bytes carry ("Tensor maps edited in memory").
TensorMapArg with_edits(const TensorMapArg& launch, std::span<const std::uint8_t> handle);
/// Whether `bytes` (tensor_map_bytes of them) are a map built in memory ("Tensor maps built in
/// memory").
bool is_built_tensor_map(std::span<const std::uint8_t> bytes);
/// Why the bytes of a map built in memory are no map a copy may use.
struct BuiltMapProblem {
  bool unsupported = false; ///< an encoding the simulator does not copy (else an invalid map)
  std::string why;
};
/// The map built in `bytes`, or why it is none (the first rule it breaks).
std::variant<TensorMapArg, BuiltMapProblem> built_tensor_map(std::span<const std::uint8_t> bytes);

struct Observer; // below

struct Launch {
  Dim3 grid_dim = {1, 1, 1};  ///< CTAs along x, y, z
  Dim3 block_dim = {1, 1, 1}; ///< threads per CTA along x, y, z (within ptx::max_block_dims,
                              ///< ptx::max_block_threads in all)
  /// The cluster shape (cuLaunchKernelEx's cluster dimension): CTAs per cluster along x, y, z.
  /// None: the entry's `.reqnctapercluster`, else clusters of one CTA. An entry with
  /// `.reqnctapercluster` and a launch with another shape is an invalid launch, as is a grid
  /// that the shape does not divide or a cluster of more than max_cluster_ctas CTAs.
  std::optional<Dim3> cluster_dim;
  /// Bytes of the `.extern .shared` array, if the entry declares one
  /// (cuLaunchKernel's sharedMemBytes); accesses beyond them fault.
  std::uint32_t dynamic_shared_bytes = 0;
  /// One value per declared `.param`, in declaration order (u32 params are truncated). An
  /// array parameter (more than 8 bytes) must be a tensor map's (tensor_maps) or given in
  /// param_arrays; its value here is not used.
  std::vector<std::uint64_t> params;
  /// The tensor maps the kernel uses (cp.async.bulk.tensor), in any order.
  std::vector<TensorMapArg> tensor_maps;
  /// The bytes of array parameters that no tensor map names (structs passed by value), by
  /// declaration index (empty for the others): at most the parameter's size, the rest zero. A
  /// tensor map inside such a struct is tensor_map_handle() bytes placed by the caller.
  std::vector<std::vector<std::uint8_t>> param_arrays;
  /// `run --profile`: when set, every CTA's shared and global accesses by ld, st
  /// and cp.async are merged into it (driver/sim/profile.hpp); it must outlive the run.
  Profile* profile = nullptr;
  /// A launch that executes more instructions than this (all threads together)
  /// stops with an `instruction_limit` fault: a runaway loop, not a result.
  std::uint64_t max_instructions = 200'000'000;
  /// Host threads that run CTAs at once (0: one per hardware thread; 1: one after the other).
  /// The result is the same either way (the fault, the count, the warnings, and the global
  /// bytes of a launch that does not fault): CTAs run in parallel only where they cannot
  /// see each other (no atomics, no %clock), and their results are merged in CTA order.
  /// After a fault, CTAs after the faulting one may have run and written global memory.
  unsigned workers = 0;
  /// `ptxgen lint`: when set, races do not stop the launch but are recorded there, with
  /// what else it gathers (see Observer); the CTAs then run one after the other.
  Observer* observer = nullptr;
  /// The order in which a CTA's threads run within a pass: 0 is linear order (the default
  /// the rest of this header describes); another value a permutation of the threads drawn
  /// from it. Races are found whatever the order; which side of a race is "second", and so
  /// its kind, follows the order.
  std::uint64_t schedule_seed = 0;
  /// The value every byte of shared memory holds before the kernel writes it.
  std::uint8_t shared_fill = poison_byte;
  /// An entry with a line the simulator does not run: false refuses the launch up front
  /// (`unsupported`, nothing half-runs: a conformance run must complete to be compared);
  /// true runs it until a thread reaches such a line, which faults there (`ptxgen lint`:
  /// the lines before it are checked, and a line no thread reaches is no finding).
  bool run_to_unsupported = false;

  /// 0: every CTA of the grid runs. Else only the first `run_ctas` by linear CTA index (whole
  /// clusters: rounded up to the cluster's size); the others never start. `ptxgen lint --ctas`:
  /// one CTA of a launch whose grid the kernel's compiled-in sizes fix (a persistent GEMM that
  /// strides over 1024 tiles), its %nctaid still the whole grid's.
  std::uint64_t run_ctas = 0;

  /// CTAs in the grid (x*y*z).
  std::uint64_t grid_total() const {
    return static_cast<std::uint64_t>(grid_dim[0]) * grid_dim[1] * grid_dim[2];
  }
  /// Threads per CTA (x*y*z).
  std::uint64_t block_total() const {
    return static_cast<std::uint64_t>(block_dim[0]) * block_dim[1] * block_dim[2];
  }
};

enum class FaultKind {
  misaligned_address, ///< an access not aligned to its size ("misaligned address" on the GPU)
  illegal_address,    ///< an access outside every buffer / outside shared memory
  race,               ///< conflicting accesses without synchronisation (RaceKind)
  barrier_divergence, ///< a bar.sync that not every thread of the CTA reaches
  undefined_behavior, ///< a value PTX leaves undefined (src-size > cp-size, division by zero)
  unsupported,        ///< PTX outside the simulated subset (the parse warned with a DiagId)
  instruction_limit,  ///< the launch ran past Launch::max_instructions (a loop that does not end?)
  invalid_ptx,        ///< malformed PTX (the parse's Diagnostics say why)
  invalid_launch,     ///< a launch that does not fit the entry (no such entry, parameters, block)
  deadlock,           ///< every live thread of a CTA waits (mbarrier phase, bar.sync) and no
                      ///< wait can succeed: the kernel would hang on the GPU
  trap, ///< the kernel executed `trap` or failed a device-side assert (a call of __assertfail)
};

/// "misaligned address", "illegal address", "race", "barrier divergence", ...
std::string_view name(FaultKind k);

/// Which two accesses to a shared (or, for the bulk family and between CTAs, global) byte
/// conflict (the detail of a `race` fault).
/// "Since the last barrier" means since the last bar.sync that both threads passed.
enum class RaceKind {
  read_before_wait,        ///< a thread reads bytes of its own cp.async that no wait has completed
  read_in_flight,          ///< a read of bytes another thread's pending cp.async will write
  read_after_write,        ///< a read of bytes another thread wrote since the last barrier
  write_after_read,        ///< a cp.async / st into bytes another thread read since the last
                           ///< barrier (a refill without a barrier)
  write_after_write,       ///< a write of bytes another thread wrote since the last barrier
  pending_copies,          ///< a cp.async into bytes a pending cp.async (any thread's) will write
  write_in_flight,         ///< a st into bytes a pending cp.async (any thread's) will write
  refill_before_bulk_read, ///< a write into shared bytes a pending bulk store (any thread's)
                           ///< has not read yet: no wait_group.read covers it
  read_before_bulk_write,  ///< a read of global bytes a bulk store has not written yet: no
                           ///< plain wait_group covers it
  missing_proxy_fence,     ///< a bulk operation reads or overwrites shared bytes last written
                           ///< through the generic proxy with no fence.proxy.async by the writer
  bulk_wait_scope,         ///< a thread reads or writes global bytes that another thread's bulk
                           ///< store wrote, with no barrier after that thread's wait_group
                           ///< (a bulk wait retires the waiting thread's own groups only)
  write_before_bulk_write, ///< a generic write of global bytes a bulk store (any thread's of
                           ///< the CTA) has not written yet: the order of the two is undefined
  missing_global_proxy_fence, ///< a bulk or tensor load reads global bytes last written through
                              ///< the generic proxy with no fence.proxy.async{.global} by the
                              ///< writer ordered before it
  cross_cta,                  ///< two CTAs access the same global bytes, one writing, with nothing
                              ///< ordering CTAs (Race::other names the earlier CTA's access)
  cross_cta_same_value,       ///< cross_cta where both write the same bytes with the same values:
                              ///< recorded by an observer only (a note), never a fault
  write_after_write_same_value, ///< write_after_write where the later store writes the bytes the
                                ///< shared memory already holds (replicated layouts store one
                                ///< value from several threads): an observer's note, never a fault
  // tensor cores
  write_before_wgmma_read,  ///< a write (st, cp.async, bulk or tensor copy) into shared bytes a
                            ///< wgmma.mma_async may still read: no wgmma.wait_group retired it
  wgmma_register_in_flight, ///< a register an in-flight wgmma accumulates into is read or
                            ///< written before the wgmma.wait_group that retires the wgmma
  missing_wgmma_fence,      ///< a wgmma.mma_async reads a register (accumulator or A fragment)
                            ///< written with no wgmma.fence since (or runs with no fence at all)
  // clusters (driver/sim/cta_cluster.cpp)
  cross_cta_shared,   ///< two CTAs of a cluster access the same shared bytes (distributed shared
                      ///< memory), one writing, with no cluster barrier phase ordering them
  cluster_peer_exit,  ///< a CTA exits while a peer may still use its shared memory or barriers
                      ///< (no cluster barrier between the peer's last use and the exit), or a
                      ///< peer uses them after it exited
  remote_before_init, ///< a remote arrive, peer bulk copy or multicast into a barrier whose init
                      ///< is not visible cluster-wide (fence.mbarrier_init + cluster barrier)
  multicast_without_expect_tx, ///< a barrier receiving a multicast or peer copy gets more bytes
                               ///< than its expect_tx announced, once all its arrivals are in
};

/// "read before wait", "write after read", "pending copies", ...
std::string_view name(RaceKind k);

/// One side of a race: a thread's access by one instruction.
struct RaceAccess {
  std::int64_t tid = -1;       ///< linear thread index within the CTA
  std::uint32_t ptx_line = 0;  ///< 1-based line of the instruction
  std::uint64_t iteration = 0; ///< 1-based: the n-th time this thread reached that instruction
  std::int64_t bid = -1;       ///< the linear CTA index; -1: the fault's CTA (set by cross_cta)
};

/// Where and between which accesses a race happened.
struct Race {
  RaceKind kind = RaceKind::read_after_write;
  std::string symbol;       ///< the `.shared` array holding the byte (the global buffer for
                            ///< the races on global bytes: read_before_bulk_write and after)
  std::uint64_t offset = 0; ///< the first conflicting byte's offset within `symbol`
  RaceAccess access;        ///< the access that faulted (Fault's thread and line)
  RaceAccess other;         ///< the earlier, conflicting access
};

/// Whom a fault blames: what a caller switches on to judge a run.
enum class FaultOrigin {
  kernel,    ///< the kernel did something wrong: a fault the GPU could show
  simulator, ///< the simulator cannot run this kernel (unsupported, instruction limit)
  caller,    ///< the input is wrong: malformed PTX, or a launch that does not fit the entry
};

FaultOrigin origin(FaultKind k);

struct Fault {
  FaultKind kind = FaultKind::invalid_ptx;
  /// Names the thread, the PTX line and the instruction; it does not repeat
  /// the kind (print `name(kind) + ": " + message`).
  std::string message;
  std::uint32_t ptx_line = 0; ///< 1-based; 0 when no instruction is to blame
  std::int64_t bid = -1;      ///< linear CTA index, -1 when no thread is to blame
  std::int64_t tid = -1;      ///< linear thread index within the CTA, -1 when none
  std::optional<Race> race;   ///< set exactly when kind is `race`
  /// The address of an illegal global access (outside every buffer) or of a misaligned one, as
  /// the instruction gave it (a misaligned shared access: its shared offset).
  std::optional<std::uint64_t> address;
};

/// A read of shared bytes that no access (st, atom, a landed copy) has written in this CTA.
struct UnwrittenRead {
  std::uint32_t ptx_line = 0;
  std::int64_t bid = -1;
  std::int64_t tid = -1;
  std::uint64_t iteration = 0; ///< the thread's n-th execution of that line
  std::string symbol;          ///< the `.shared` array holding the first such byte
  std::uint64_t offset = 0;    ///< its offset within `symbol`
};

/// What a launch with Launch::observer gathers beyond its first fault.
struct Observer {
  /// The first race of each (kind, PTX line, other PTX line), in the order found: a race is
  /// recorded and the access goes on as if it were ordered.
  std::vector<Fault> races;
  /// How often each of `races` was met (per shared byte, per access).
  std::vector<std::uint64_t> race_hits;
  /// The first read per PTX line of shared bytes no access has written.
  std::vector<UnwrittenRead> unwritten_reads;
  /// Per op of the entry (its linked ops): how often a thread executed it (guard true).
  std::vector<std::uint64_t> executed;
  /// Distinct races kept; the others are counted in dropped_races only.
  std::size_t max_races = 256;
  std::uint64_t dropped_races = 0;
};

struct SimResult {
  std::optional<Fault> fault; ///< the first fault; the launch stops there
  std::vector<std::string> warnings;
  std::uint64_t instructions_executed = 0;
};

/// A line of an entry (or of a .func it calls) that the simulator will not run.
struct UnsupportedLine {
  std::uint32_t line = 0; ///< 1-based
  std::string text;       ///< the instruction or the source line
  std::string reason;
};

/// A parsed PTX module, ready to run. Cheap to copy (shares its parsed form).
class Program {
public:
  /// Parse errors come back as Diagnostics with line, column and a DiagId
  /// (sim_...). Instructions that are valid PTX but outside the simulated
  /// subset parse with a warning (sim_unknown_instruction,
  /// sim_unsupported_form, sim_unsupported_operand), and fault with
  /// `unsupported` when their entry is run.
  static ptxgen::Result<Program> parse(std::string_view ptx_text);

  /// Only the entry being run must be simulable: a parse problem inside one
  /// function (an entry or a .func) is recorded for that function, and the parse
  /// fails only when no entry can run. An entry whose own lines or whose called
  /// .funcs have problems runs to an `unsupported` (or `invalid_ptx`) fault.
  /// Every line of `entry` and of the .funcs it calls that will not run: the
  /// parse problems of those functions and their unsupported instructions, in
  /// line order. Empty for an unknown entry.
  std::vector<UnsupportedLine> unsupported(std::string_view entry) const;

  /// The `.entry` names, in the order of the text.
  std::vector<std::string> entries() const;
  /// The `.func`s that return nothing, in the order of the text: `run` runs each as an entry
  /// whose parameters are the launch's (Launch::params, by the function's parameters).
  std::vector<std::string> functions() const;
  /// The entry (or .func run as one) named `name`, with what the reader kept of it
  /// (`.reqntid`, `.maxntid`, the cluster directives, parameters); nullptr when none.
  const ir::Entry* find(std::string_view name) const;
  /// `.version` as written ("8.0"), `.target` as written ("sm_80").
  const std::string& version() const;
  const std::string& target() const;

  const ir::Module& module() const { return *module_; }

private:
  std::shared_ptr<const ir::Module> module_;
};

/// Runs `entry` of `p` over `launch` with global memory `memory` (modified in place).
SimResult run(const Program& p, std::string_view entry, const Launch& launch,
              std::vector<GlobalBuffer>& memory);

/// Parses and runs; a parse error becomes a fault naming its line: `unsupported`
/// when every error is sim_unsupported_construct, else `invalid_ptx`.
SimResult run(std::string_view ptx_text, std::string_view entry, const Launch& launch,
              std::vector<GlobalBuffer>& memory);

} // namespace ptxgen::sim
