#pragma once
// The one builder of a tile::Kernel. Every well-formedness rule a kernel's
// declarations and ops must keep lives here once, with the pipeline expansion:
// names, the launch, tensors and their sizes, parameters, loops and their
// bounds, an apply's operand expressions, pipelines, mbarrier operands and
// expectations. Each rule raises its DiagId at the position its caller gave.
//
// Three front doors call it: the TOML spec reader (driver/toml/), which turns a
// file's tables and strings into these calls with the file positions of every
// value (and of every character of a one-line string, see Text), the C++ API's
// api::KernelBuilder, which passes its call sites, and the fuzz model
// (driver/fuzz/gen_kernel.cpp). The callers keep only syntax: the types of
// values, missing keys and the spelling of enums in strings, but for the
// spellings more than one door reads (a dtype, an apply's scope, an unknown key:
// spelling_rules.cpp), which are read here.
//
// Building goes on after an error so that one run reports all it can; a part
// the caller could not read is passed as nullopt (its error already reported).

#include "emitter/support/diagnostic.hpp"
#include "emitter/support/result.hpp"
#include "emitter/tile/kernel.hpp"
#include "emitter/tile/pipeline.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxgen::build {

struct ExpectLevels; // expect_levels.hpp

/// Where a value was written: a diagnostic's position and its underline width.
struct At {
  tile::SourcePos pos;
  std::uint32_t length = 1;
};

/// A string operand (a name, a view, an expression) and where its characters lie:
/// when `exact`, byte i of `text` is at column pos.column + i of pos.line; otherwise
/// every diagnostic inside it goes to `pos` (a multi-line or escaped string's quote,
/// or a C++ call site).
struct Text {
  std::string text;
  tile::SourcePos pos;
  bool exact = false;
  std::uint32_t length = 1; ///< the underline when not exact

  /// `inner` (positioned on line 1 of `text`) moved onto the file.
  Diagnostic place(Diagnostic inner) const;
  /// The piece of `text` that starts at byte `offset`.
  Text piece(std::size_t offset, std::string_view s) const;
  /// Where bytes [offset, offset + n) of `text` are.
  At at(std::size_t offset, std::size_t n) const;
};

/// The names the expression grammar gives a meaning of its own: a tensor, parameter
/// or loop variable of that name would shadow or be shadowed.
std::span<const std::string_view> reserved_names();

/// "evict_last, evict_normal, evict_first or evict_unchanged", or the ones a secondary
/// may be.
std::string eviction_priorities(bool secondary_only);

/// An init as a spec writes it ("zero", "arange % 97", "random(3)", "constant(7)"):
/// what Builder::init() reads back to `init`.
std::string init_spelling(const tile::TensorInit& init);

/// Which launch size a dims() call checks.
enum class LaunchPart : std::uint8_t { grid, block };

/// A parameter's value as written: an integer (possibly negative, from a file), an
/// unsigned one (from C++), or a decimal or "0x" string (a u64 above 2^63-1).
struct ParamValue {
  enum class Form : std::uint8_t { integer, unsigned_integer, text };
  Form form = Form::integer;
  std::int64_t integer = 0;
  std::uint64_t unsigned_integer = 0;
  std::string text;
};

/// A parameter's `range`: `well_formed` false when it is not two integers.
struct ParamRange {
  bool well_formed = true;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  At at;
};

struct ParamDecl {
  std::string name;
  At name_at;
  tile::SourcePos pos;             ///< ScalarParam::pos
  std::optional<bool> is_u64;      ///< nullopt: no valid dtype (reported; taken as u32)
  std::optional<ParamValue> value; ///< nullopt: missing or unreadable (reported)
  At value_at;
  std::optional<ParamRange> range; ///< nullopt: none declared
};

/// A shape dimension as written.
struct Dim {
  std::int64_t value = 0;
  At at;
};

/// A fill pattern's byte as written: nullopt when it is not an integer.
struct PatternByte {
  std::optional<std::int64_t> value;
  Text at;
};

/// A cache policy written as parts (a table): a u64 parameter, or the createpolicy
/// arguments (the caller reported a part it could not read as a string).
struct PolicyParts {
  std::optional<Text> param;
  std::optional<Text> primary;
  std::optional<Text> secondary;
  struct Fraction {
    std::optional<double> value; ///< nullopt: not a number
    Text at;
  };
  std::optional<Fraction> fraction;
};

/// A global tensor's `[tensor.NAME.map]` as written (each part nullopt when absent or
/// unreadable: an unreadable one is reported and sets syntax_ok false).
struct TensorMapDecl {
  At at; ///< the table
  std::optional<std::vector<Dim>> box;
  At box_at;
  std::optional<std::vector<Dim>> element_strides;
  At element_strides_at;
  std::optional<tile::TensorMapSwizzle> swizzle;
  At swizzle_at;
  std::optional<tile::TensorMapOobFill> oob_fill;
  At oob_fill_at;
  std::optional<tile::TensorMapL2Promotion> l2_promotion;
  At l2_promotion_at;
  bool syntax_ok = true;
  // An im2col map (`mode = "im2col"`): its bounding box corners (one per spatial dimension,
  // outermost first), channels per pixel and pixels per copy, instead of `box`.
  std::optional<tile::TensorMapMode> mode;
  At mode_at;
  std::optional<std::vector<Dim>> lower_corner;
  At lower_corner_at;
  std::optional<std::vector<Dim>> upper_corner;
  At upper_corner_at;
  std::optional<std::int64_t> channels;
  At channels_at;
  std::optional<std::int64_t> pixels;
  At pixels_at;
};

struct TensorDecl {
  std::string name;
  At name_at;
  tile::SourcePos pos;              ///< TensorDecl::pos
  std::optional<tile::Space> space; ///< nullopt: missing or unknown (reported)
  std::optional<tile::DType> dtype; ///< nullopt: missing or unknown (reported)
  /// The integer dimensions; nullopt when the shape is missing or not an array.
  std::optional<std::vector<Dim>> shape;
  bool shape_complete = true; ///< false when some dimension was not an integer (reported)
  At shape_at;
  std::optional<std::int64_t> align; ///< nullopt: the space's default
  At align_at;
  std::optional<At> init_at; ///< where `init` was given, if it was
  std::optional<tile::TensorInit> init;
  std::optional<At> output_at; ///< where `output` was given, if it was
  bool output = false;
  std::optional<tile::TensorMapSwizzle> swizzle; ///< a shared tensor's `swizzle`
  At swizzle_at;
  std::optional<TensorMapDecl> map; ///< `[tensor.NAME.map]`
  bool syntax_ok = true;            ///< false after the caller reported another field
};

class Builder {
public:
  /// `file` names the input in diagnostics and Kernel::file.
  explicit Builder(std::string file);
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;
  Builder(Builder&&) noexcept;
  Builder& operator=(Builder&&) noexcept;
  ~Builder();

  /// A required part the caller did not find (`message` says which and where).
  void missing(const At& at, std::string message);
  /// A diagnostic of the caller's own (syntax), kept with the builder's.
  void report(Diagnostic d) { diags_.add(std::move(d)); }
  const Diagnostics& diagnostics() const { return diags_; }
  const tile::Kernel& kernel() const { return *kernel_; }
  /// Marks the kernel as built by calls in a program (tile::Kernel::built_in_code).
  void built_in_code() { kernel_->built_in_code = true; }
  /// The value test runs pass for parameter `name` (tile::set_param_value's rule).
  std::optional<Diagnostic> set_param_value(std::string_view name, std::uint64_t value);

  // ---------------------------------------------------------------- spellings

  /// An element type's name ("float16", or an alias); nullopt (reported at `at`) otherwise.
  std::optional<tile::DType> dtype(std::string_view spelling, const At& at);
  /// An apply's scope, "thread" or "cta"; nullopt (reported at `at`) otherwise.
  std::optional<tile::Scope> scope(std::string_view spelling, const At& at);
  /// Reports a key its caller's table does not take: `allowed` are the ones it takes (empty:
  /// not listed), `where` names the table (empty: the spec's top level).
  void unknown_key(std::string_view key, const At& at, std::span<const std::string_view> allowed,
                   std::string_view where);

  // ---------------------------------------------------------------- names and launch

  void kernel_name(const std::string& name, const At& at);
  /// A grid or block size: each axis within CUDA's limit, the product too. `scalar`:
  /// written as one integer (the messages then name no axis).
  std::optional<tile::Dim3> dims(LaunchPart part, const std::array<std::int64_t, 3>& d, bool scalar,
                                 const At& at);
  void launch(tile::Dim3 grid, tile::Dim3 block);
  void dynamic_shared(std::int64_t bytes, const At& at);
  /// `ctas_per_sm = N`: the residency to compile and launch for (1..the most of any target;
  /// the target's own limits are the contract's).
  void ctas_per_sm(std::int64_t n, const At& at);
  /// `cluster = [x, y, z]` with `cluster_non_portable` (cluster.cpp): each axis and the total
  /// in 1..16, beyond 8 only with the opt-in. The grid's multiple of it is checked by finish().
  void cluster(const std::array<std::int64_t, 3>& d, bool non_portable, const At& at);
  /// `cluster_non_portable` written with no `cluster`: an error at `at`.
  void non_portable_without_cluster(const At& at);
  /// [kernel]'s `expect`: what a run of the kernel must show; only "fault" (tile::kMustFaultValue:
  /// the kernel breaks the contract on purpose and must fault when run).
  void expect_run(const std::string& value, const At& at);
  /// The PTX parameter order: every global tensor and parameter once. `complete`
  /// false: `names` is the part before an entry the caller could not read (reported).
  /// False after an error in `names`.
  bool abi(std::span<const std::pair<std::string, At>> names, const At& at, bool complete);

  // ---------------------------------------------------------------- declarations

  /// Declares a parameter (its name is taken even when it is rejected); true when accepted.
  bool param(const ParamDecl& d);
  /// Declares a tensor and returns it; a rejected one (is_broken()) is kept aside, and
  /// the views of it are refused silently: the declaration's error is enough.
  const tile::Tensor* tensor(const TensorDecl& d);
  /// A tensor by name, also a rejected one.
  const tile::Tensor* find_any_tensor(std::string_view name) const;
  bool is_broken(const tile::Tensor* t) const;
  bool is_param(std::string_view name) const { return param_names_.count(name) != 0; }
  bool is_open_loop(std::string_view name) const;

  // ---------------------------------------------------------------- operands

  /// A view string over the kernel's tensors, parameters and open loops.
  std::optional<tile::Located<tile::View>> view(const Text& text);
  /// A view string over the kernel's tensors and `names`, with slice bounds as `bounds` allows.
  std::optional<tile::Located<tile::View>> view(const Text& text, const tile::ExprNames& names,
                                                tile::SliceBounds bounds);
  /// An expression string; `axes`: the repeat axes of the apply it belongs to.
  std::optional<tile::Located<tile::ExprPtr>>
  expr(const Text& text, const std::map<std::string, std::size_t, std::less<>>* axes = nullptr);
  /// A view made elsewhere (the C++ API's): its tensor is this kernel's, every name
  /// its indices use is declared or open here.
  bool check_view(const tile::View& v, const Text& at);
  /// An expression tree made elsewhere: every name is declared, open or an axis of `apply`.
  bool check_expr(const tile::ExprPtr& e, const Text& at, const tile::ApplyOp* apply = nullptr);
  /// A cache policy's u64 parameter `name`, at byte `offset` of `at`: declared and u64.
  bool policy_param(std::string_view name, const Text& at, std::size_t offset = 0);
  bool wait_group(std::int64_t n, const At& at);
  /// An apply's src_size and ignore_src, where each was written (nullptr: not given): at
  /// most one of the two forms; the one written second is refused.
  bool operand_forms(const At* src_size, const At* ignore_src);
  /// A fill pattern written as bytes (`single`: one integer, not an array at `at`).
  std::optional<std::vector<std::uint8_t>> pattern(std::span<const PatternByte> bytes, bool single,
                                                   const Text& at);
  /// A fill pattern written as "0x" and hex digits, whole bytes.
  std::optional<std::vector<std::uint8_t>> pattern(const Text& hex);
  /// 1..kMaxPatternBytes bytes (`at`: where the pattern is written).
  bool pattern_size(std::size_t bytes, const Text& at);
  /// "zero" | "0" | "arange % M" | "random(SEED)" | "constant(V)".
  std::optional<tile::TensorInit> init(const Text& text);
  /// A u64 parameter's name, "param:NAME" or "createpolicy(PRIMARY[, SECONDARY][, FRACTION])".
  std::optional<tile::Located<tile::CachePolicy>> cache_policy(const Text& text);
  std::optional<tile::Located<tile::CachePolicy>> cache_policy(const PolicyParts& parts,
                                                               const tile::SourcePos& pos);
  /// An mbarrier operand lives in shared memory.
  bool barrier(const tile::View& v, const At& at);
  /// A bulk or tensor op's view `role` ("dst", "src") lies in `want` (bulk.cpp).
  bool bulk_space(const tile::View& v, tile::Space want, std::string_view role, const At& at);
  /// A tensor op's `tensor`: a global tensor with a map; nullptr (reported) otherwise.
  const tile::TensorDecl* mapped_tensor(const Text& name);
  /// A tensormap_replace field ptxgen models (global_address, global_dim, global_stride);
  /// the others are spec_tensormap_field at `at`.
  bool tensormap_field(tile::TensormapField f, const At& at);
  /// A tensormap_replace `field` as written: a tensormap.replace field ptxgen models, else
  /// spec_tensormap_field at `at` (an unknown word, or an unmodelled field).
  std::optional<tile::TensormapField> tensormap_field_word(const std::string& word, const At& at);
  /// A tensormap_replace names what its field needs: `address` for global_address, `value`
  /// for global_dim and global_stride (and not the other), reported at `at`.
  bool tensormap_operands(const tile::TensormapReplaceOp& r, const At& at);
  /// A tensor op gives one coordinate per dimension of the map (`n` as written).
  /// An im2col map's load has one offset per spatial dimension (`count`); a tile map's none
  /// (nullopt); a store's map is a tile map: spec_im2col_offsets at `at` otherwise.
  bool im2col_offsets(const tile::TensorDecl& d, std::optional<std::size_t> count, const At& at,
                      bool store = false);
  bool tensor_coords(const tile::TensorDecl& d, std::size_t n, const At& at);
  /// Adds a checked op in program order (loops and pipelines have their own calls).
  void push(tile::Op op);

  // ---------------------------------------------------------------- loops

  /// A loop variable's name (`what`: "loop variable" or "stage variable").
  bool loop_var(const Text& name, std::string_view what = "loop variable");
  /// start, stop or step of a loop: the same for every thread of a CTA.
  bool loop_bound(std::string_view key, const tile::Expr& bound, const Text& at);
  std::optional<std::int64_t> unroll(std::int64_t n, const At& at);
  /// Opens a loop; `f` nullopt when one of its parts was rejected (its end is then
  /// consumed silently).
  void begin_for(const std::string& var, std::optional<tile::ForOp> f, const tile::SourcePos& pos);
  void end_for(const At& at);
  /// Reports every loop still open and forgets them.
  void close_loops();
  /// The loops still open, as diagnostics (for a build in progress).
  Diagnostics open_loop_diagnostics() const;

  // ---------------------------------------------------------------- pipelines

  std::optional<std::int64_t> stages(std::int64_t n, const At& at);
  /// A pipeline's tiles advance by 1 (`step` nullopt: not an integer).
  bool pipeline_step(std::optional<std::int64_t> step, const At& at);
  /// The stage variable: a loop variable's rules, and not the tile variable. `given`:
  /// written by the caller (else the default, reported at `at`).
  bool stage_var(const Text& name, const std::string& tile_var, bool given, const At& at);
  /// The loads and the consumer see the tile and stage variables; returns a mark for
  /// close_pipeline_vars().
  std::size_t open_pipeline_vars(const std::string& var, const std::string& stage_var,
                                 const tile::SourcePos& pos);
  void close_pipeline_vars(std::size_t mark);
  /// Places a ring's barrier inits: here, or before the outermost open loop.
  void place_ring_init(const tile::Pipeline& p);
  /// Inserts `ops` at Kernel::ops[at], moving the loop indices that point past it.
  void insert_ops(std::size_t at, std::vector<tile::Op> ops);
  /// A load is an apply, a bulk_load or a tensor_load (`kind` the op's name); `first`: the
  /// kind of the pipeline's first load (empty for the first), which every load shares.
  bool pipeline_load_kind(std::string_view kind, std::string_view first, const At& at);
  /// A load's dst depends on the tile or the stage.
  bool pipeline_load_stage(const tile::Pipeline& p, const tile::View& dst, const At& at);
  /// A ring pipeline's load names a barrier of its own (always refused: the loads complete
  /// on the pipeline's full barrier).
  void pipeline_load_barrier(const At& at);
  /// A ring barrier (`key`: full or empty) names the stage and not the tile variable.
  bool pipeline_ring_barrier(const tile::Pipeline& p, const tile::Located<tile::View>& v,
                             std::string_view key, const At& at);
  /// One of a pipeline's mbarrier-ring keys (full, empty, ring_offset) fits its loads'
  /// kind: `ring` true for bulk / tensor loads; `written` whether the spec has the key.
  bool pipeline_ring_key(bool ring, std::string_view key, bool written, const At& at);
  /// The consumer holds only copies and fills.
  bool pipeline_body_kind(std::string_view kind, const At& at);
  /// The keys of a warp-specialized ring (tile::PipelineRoles), each where it was written.
  struct RoleKeys {
    std::optional<tile::Located<std::int64_t>> producer_warps;
    std::optional<tile::Located<std::int64_t>> producer_regs;
    std::optional<tile::Located<std::int64_t>> consumer_regs;
    std::optional<tile::Located<std::int64_t>> consumer_barrier;
    /// `multicast = true`, where it was written (false is as if left out).
    std::optional<tile::Located<bool>> multicast;
  };
  /// Sets p.ring->roles and p.ring->multicast from `keys` (none given: the ring stays thread
  /// 0's and everyone's). The keys belong to a ring (`p.ring` set) and the role keys need
  /// producer_warps; a consumer of a warp-specialized ring holds copies only (a fill has no
  /// pred). `multicast` needs a cluster, and consumer_barrier in a warp-specialized ring;
  /// without it the loads have no mask of their own.
  bool pipeline_roles(tile::Pipeline& p, const RoleKeys& keys);
  /// No load of `p` has a multicast mask of its own (a load multicasts only in a ring with
  /// multicast = true).
  bool pipeline_loads_unmasked(const tile::Pipeline& p);
  /// A multicast ring's counts (PipelineMulticast::senders, stage_bytes, release_mask) from
  /// its loads' masks, evaluated for every CTA of the grid: each mask is
  /// fixed per CTA, and the counts are the same in every CTA.
  bool multicast_counts(tile::Pipeline& p);
  /// The leaves of thread 0 of CTA `cta`, for a value fixed per CTA.
  tile::ExprEnv cta_env(std::int64_t cta) const;
  /// `multicast` (at `where`) has a cluster to send to and, in a warp-specialized ring, the
  /// consumers' named barrier.
  bool multicast_ring_fits(const RoleKeys& keys, const At& where);
  /// True inside a loop that was not rejected.
  bool in_loop() const;
  /// A pipeline with at least one load and one consumer op, expanded into plain ops.
  void pipeline(tile::Pipeline p, const At& at);

  // ---------------------------------------------------------------- expectations

  /// One side of an expectation: a view of a global tensor (.sub, .rearrange and dtype
  /// views in any chain) whose .sub indices and slice bounds name constants and scalar
  /// parameters only, each inside its axis at every value of the parameters' declared
  /// ranges; a step after a slice whose bounds name parameters moves that axis whole.
  bool expect_side(const tile::View& v, const Text& at);
  /// `lhs == rhs`: the same shape and element size (two whole tensors: the same bytes).
  /// An axis whose size moves with the parameters is compared per run, at its values.
  bool expect_same_shape(const tile::View& lhs, const tile::View& rhs, const Text& lhs_at,
                         const Text& rhs_at);
  void expectation(tile::Expectation x);
  /// `LEFT == RIGHT` (a view, an integer LEFT's element type holds exactly, or `sentinel`)
  /// checked by the rules above.
  std::optional<tile::Expectation> expectation(const Text& that);
  /// `lhs == value`: lhs's element type holds the value exactly (tile::holds_exactly), the
  /// rule every door (a spec's [[expect]], the API's expect_value) reaches here.
  bool expect_value(const tile::View& lhs, std::int64_t value, const Text& at,
                    std::string_view lhs_text);

  // ---------------------------------------------------------------- results

  /// The kernel, or the diagnostics when one is an error; closes open loops first.
  Result<std::unique_ptr<tile::Kernel>> finish() &&;
  /// What finish() adds about the cluster, whatever the call order (cluster.cpp): the grid a
  /// whole number of clusters along each axis; a kernel built in code naming a cluster special
  /// without a cluster.
  Diagnostics cluster_diagnostics() const;

private:
  /// A tensor passed by its map alone (lower::map_only) that an op addresses through a view
  /// (a pointer the kernel does not get): an error at the view.
  void check_map_only_views();
  /// A warp-specialized ring fits the block: whole warps, 1..warps-1 producer warps (its
  /// setmaxnregs are the contract's); sets the consumers' count. False after an error.
  bool ring_roles_fit(tile::PipelineRing& ring);
  void error(DiagId id, const At& at, std::string message);
  void error_in(DiagId id, const Text& at, std::size_t offset, std::size_t length,
                std::string message);
  bool identifier(std::string_view name, std::string_view what, const At& at);
  bool declare_name(std::string_view name, std::string_view what, const At& at);
  bool param_value(const ParamDecl& d, std::uint64_t& out);
  bool param_range(const ParamDecl& d, bool have_value, std::uint64_t value);
  bool tensor_shape(const TensorDecl& d, tile::Tensor& t);
  bool tensor_align(const TensorDecl& d, tile::Tensor& t);
  bool tensor_size(const tile::Tensor& t, const At& at);
  bool tensor_swizzle(const TensorDecl& d, tile::Tensor& t);
  bool tensor_map(const TensorDecl& d, tile::TensorDecl& decl);
  bool im2col_map(const TensorDecl& d, tile::TensorDecl& decl);
  bool im2col_keys_absent(const TensorMapDecl& m, const std::string& tensor);
  bool axis_shadow(const tile::Expr& e, const std::map<std::string, std::size_t, std::less<>>& axes,
                   const Text& at);
  std::string loop_name_problem(const std::string& n) const;
  bool loop_var_in(const Text& name, std::string_view what, const std::string& problem,
                   const At* at);
  bool bad_pattern(const Text& at, std::size_t offset, std::size_t length, std::string message);
  bool bad_policy(const Text& at, std::size_t offset, std::size_t length, std::string message);
  std::optional<ptx::EvictionPriority> priority(const Text& at, std::size_t offset,
                                                std::string_view word, bool secondary);
  std::optional<tile::CachePolicyCreate> policy_args(const Text& at,
                                                     std::span<const std::string_view> args);
  bool tree_names(const tile::Expr& e, const Text& at, const tile::ApplyOp* apply);
  tile::ExprNames expr_names() const;
  /// False (reported at the name, inside `at`) when e names a cluster special and the kernel
  /// declares no cluster.
  bool cluster_names(const tile::Expr& e, const Text& at);
  /// A peer view's rank (`S@rank`): its cluster names, and a cluster to be a peer in
  /// (spec_peer_view_undeclared; in a kernel built in code, checked at finish).
  bool peer_names(const tile::View& v, const Text& at);
  /// Views of a peer's shared tensor in ops that take none (spec_peer_view_op), and in a kernel
  /// built in code without a cluster (spec_peer_view_undeclared).
  Diagnostics peer_view_diagnostics() const;
  /// The names an expectation's side may parse: the parameters, and the kernel's loop
  /// variables (so that naming one is refused as meaningless after the kernel, not unknown).
  tile::ExprNames expect_names() const;
  /// Every index and slice bound of an expectation's side (its `levels`) inside its axis at
  /// every value of the declared ranges (expect_bounds.cpp).
  bool expect_bounds(const tile::View& v, const ExpectLevels& levels, const Text& at);
  /// The error for a side whose step reshapes an axis that moves (levels.reshapes_moving).
  bool expect_reshape(const tile::View& v, const ExpectLevels& levels, const Text& at);
  Diagnostics with_suggestions(const Diagnostics& inner, std::string_view text,
                               const std::map<std::string, std::size_t, std::less<>>* axes) const;

  struct OpenLoop {
    std::string var;
    std::size_t index; ///< the ForOp's, or kNoOp (a rejected for, a pipeline's variable)
    tile::SourcePos pos;
  };
  static constexpr std::size_t kNoOp = static_cast<std::size_t>(-1);

  std::unique_ptr<tile::Kernel> kernel_;
  Diagnostics diags_;
  std::vector<OpenLoop> loops_;
  /// Set while a multicast ring inside a loop waits for its closing cluster_sync (at the
  /// pipeline's position), placed when the outermost loop ends (Pipeline::exit_sync).
  std::optional<tile::SourcePos> ring_exit_sync_;
  std::set<std::string, std::less<>> param_names_;        ///< every declared one, valid or not
  std::vector<std::unique_ptr<tile::TensorDecl>> broken_; ///< declared but rejected
  std::int64_t shared_bytes_ = 0; ///< the shared tensors so far, each aligned
};

} // namespace ptxgen::build
