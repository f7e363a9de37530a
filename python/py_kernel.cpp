// The Python module `ptxgen` (docs/python.md), part 1b: the kernel builder's calls on
// ptxgen.Kernel (declarations, ops, loops, pipelines, mbarriers, expectations), each with
// the parameter names and docstrings the generated stubs carry and the Python caller's
// position.

#include "driver/run/to_toml.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/op_table.hpp"
#include "python/bindings.hpp"

#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

namespace ptxgen::python {

namespace {

constexpr std::int64_t kI32 = 0x7FFFFFFF;

api::Scope scope_of(const std::string& text) {
  if (text == "thread")
    return api::Scope::thread;
  if (text == "cta")
    return api::Scope::cta;
  throw ArgumentError("scope takes 'thread' or 'cta', not '" + text + "'");
}

std::vector<std::int64_t> shape_of(const Shape& arg) {
  const py::object& o = arg.obj;
  if (!py::isinstance<py::sequence>(o) || py::isinstance<py::str>(o))
    throw ArgumentTypeError("shape takes a tuple of ints, not " + type_name(o) + " " +
                            std::string(py::repr(o)));
  std::vector<std::int64_t> out;
  const auto items = py::reinterpret_borrow<py::sequence>(o);
  for (std::size_t i = 0; i < items.size(); ++i)
    out.push_back(int_of(items[i], "shape[" + std::to_string(i) + "]"));
  return out;
}

void bind_declarations(py::class_<PyKernel>& k) {
  k.def(
       "launch",
       [](PyKernel& self, const Extent& grid, const Extent& block) {
         self.builder().launch(dims_of(grid.obj, "grid"), dims_of(block.obj, "block"),
                               caller_pos());
       },
       py::arg("grid"), py::arg("block"),
       "The launch: CTAs and threads per CTA, each an int or a tuple of 1 to 3 ints.")
      .def(
          "dynamic_shared",
          [](PyKernel& self, const Int& n) {
            self.builder().dynamic_shared(int_of(n, "dynamic_shared's n", 0), caller_pos());
          },
          py::arg("n"), "The dynamic shared bytes a launch passes.")
      .def(
          "ctas_per_sm",
          [](PyKernel& self, const Int& n) {
            self.builder().ctas_per_sm(int_of(n, "ctas_per_sm's n"), caller_pos());
          },
          py::arg("n"),
          "The residency: CTAs per SM to compile (.minnctapersm) and launch for; the launch "
          "pads dynamic shared memory so that no more fit.")
      .def(
          "cluster",
          [](PyKernel& self, const Extent& dims, bool non_portable) {
            self.builder().cluster(dims_of(dims.obj, "cluster"), non_portable, caller_pos());
          },
          py::arg("dims"), py::arg("non_portable") = false,
          "The cluster (sm_90): CTAs launched together, an int or a tuple of 1 to 3 ints; 9..16 "
          "of them only with non_portable=True. The grid must be a whole number of clusters.")
      .def(
          "global_tensor",
          [](PyKernel& self, std::string name, const Shape& shape, const DTypeLike& dtype,
             std::optional<tile::TensorInit> init, bool output, const Int& align,
             const MapArg& map) {
            api::GlobalOptions o;
            o.init = init.value_or(tile::TensorInit{});
            o.output = output;
            o.align = static_cast<std::uint32_t>(int_of(align, "align", 1, kI32));
            o.map = map_of(map);
            return self.builder()
                .global(std::move(name), shape_of(shape), dtype_of(dtype.obj), o, caller_pos())
                .view();
          },
          py::arg("name"), py::arg("shape"), py::arg("dtype"), py::arg("init") = py::none(),
          py::arg("output") = false, py::arg("align") = tile::default_global_align,
          py::arg("map") = py::none(),
          "A global tensor, as a View: `init` how test runs fill it, `output` compared after a "
          "run, `map` (sm_90) a TensorMap or a dict of its keywords.")
      .def(
          "shared_tensor",
          [](PyKernel& self, std::string name, const Shape& shape, const DTypeLike& dtype,
             const Int& align, const std::string& swizzle) {
            const api::SharedOptions o{static_cast<std::uint32_t>(int_of(align, "align", 1, kI32)),
                                       swizzle_of(swizzle)};
            return self.builder()
                .shared(std::move(name), shape_of(shape), dtype_of(dtype.obj), o, caller_pos())
                .view();
          },
          py::arg("name"), py::arg("shape"), py::arg("dtype"),
          py::arg("align") = tile::default_shared_align, py::arg("swizzle") = "none",
          "A shared tensor, as a View; `swizzle` the layout a tensor_load with that swizzle "
          "writes.")
      .def(
          "param_u32",
          [](PyKernel& self, std::string name, const Int& value,
             std::optional<std::pair<Int, Int>> range) {
            const std::string what = "param_u32 '" + name + "'";
            const std::uint64_t v = uint_of(value.obj, what + " value", 0xFFFFFFFFu);
            std::optional<tile::Interval> r;
            if (range)
              r = tile::Interval{int_of(range->first, what + " range's lo"),
                                 int_of(range->second, what + " range's hi")};
            return self.builder().param_u32(std::move(name), v, r, caller_pos());
          },
          py::arg("name"), py::arg("value"), py::arg("range") = py::none(),
          "A u32 parameter, as an Expr: `value` what test runs pass, `range` (lo, hi) what the "
          "contract proves for.")
      .def(
          "param_u64",
          [](PyKernel& self, std::string name, const Int& value) {
            const std::uint64_t v =
                uint_of(value.obj, "param_u64 '" + name + "' value", ~std::uint64_t{0});
            self.builder().param_u64(std::move(name), v, caller_pos());
          },
          py::arg("name"), py::arg("value"), "A u64 parameter (a cache policy's).")
      .def(
          "view",
          [](PyKernel& self, const std::string& text) {
            return self.builder().view(text, string_pos(caller_pos(), text));
          },
          py::arg("text"),
          "A view string as a spec writes it ('A.sub[tid, :]'); slice bounds may name "
          "parameters where an expectation takes the view.");
}

/// A plain field's Python value (tile::plain_op): its type, the member from it, its default.
template <class M>
struct PyField;
template <>
struct PyField<bool> {
  using type = bool;
  static bool member(bool v) { return v; }
  static bool fallback(std::string_view spelled) { return spelled == "true"; }
};
template <>
struct PyField<tile::FenceSpace> {
  using type = std::string;
  static tile::FenceSpace member(const std::string& text) {
    if (auto s = parse_name(tile::fence_space_names, text))
      return *s;
    std::string choices;
    for (std::string_view n : tile::fence_space_names.values)
      choices += (choices.empty() ? "'" : ", '") + std::string(n) + "'";
    throw ArgumentError("space is one of " + choices + ", not '" + text + "'");
  }
  static std::string fallback(std::string_view spelled) { return std::string(spelled); }
};

/// The type of field I of op Op.
template <class Op, std::size_t I>
using FieldType =
    std::remove_cvref_t<decltype(std::declval<Op&>().*std::get<I>(tile::field_members<Op>()))>;

/// Field I of op Op as a keyword: required, or with the table's default.
template <class Op, std::size_t I>
auto keyword() {
  constexpr tile::FieldRow row = tile::op_fields(tile::op_index<Op>)[I];
  if constexpr (row.required())
    return py::arg(row.py.data());
  else
    return py::arg(row.py.data()) = PyField<FieldType<Op, I>>::fallback(row.fallback);
}

/// Op's method from its row and field rows alone (ops.def): named as the op, a keyword per
/// field, the row's doc.
template <class Op, std::size_t... I>
void bind_plain(py::class_<PyKernel>& k, std::index_sequence<I...>) {
  const tile::OpRow& row = tile::op_rows[tile::op_index<Op>];
  k.def(
      row.spelling.data(),
      [](PyKernel& self, const typename PyField<FieldType<Op, I>>::type&... values) {
        [[maybe_unused]] constexpr auto members = tile::field_members<Op>();
        Op op;
        ((op.*std::get<I>(members) = PyField<FieldType<Op, I>>::member(values)), ...);
        self.builder().op(std::move(op), caller_pos());
      },
      keyword<Op, I>()..., row.doc.data());
}

template <class Op>
void bind_if_plain(py::class_<PyKernel>& k) {
  if constexpr (tile::plain_op(tile::op_index<Op>))
    bind_plain<Op>(k, std::make_index_sequence<tile::op_fields(tile::op_index<Op>).size()>{});
}

/// Every plain op of ops.def (tile::plain_op), in its order; the others' methods are written
/// out (their fields have rules and conversions of their own).
void bind_plain_ops(py::class_<PyKernel>& k) {
#define PTXGEN_TILE_OP(Struct, ...) bind_if_plain<tile::Struct>(k);
#define PTXGEN_TILE_FIELD(...)
#include "emitter/tile/ops.def"
#undef PTXGEN_TILE_FIELD
#undef PTXGEN_TILE_OP
}

void bind_copies(py::class_<PyKernel>& k) {
  k.def(
       "apply",
       [](PyKernel& self, const std::string& opcode, const api::View& dst, const api::View& src,
          const Int& chunk_bytes, const std::string& scope, const std::optional<IntoExpr>& src_size,
          const std::optional<IntoExpr>& ignore_src, const std::optional<IntoExpr>& pred,
          std::optional<CachePolicy> cache_policy) {
         api::ApplyOptions o;
         o.scope = scope_of(scope);
         o.src_size = opt_expr_of(src_size, "src_size");
         o.ignore_src = opt_expr_of(ignore_src, "ignore_src");
         o.pred = opt_expr_of(pred, "pred");
         if (cache_policy)
           o.cache_policy = cache_policy->policy;
         self.builder().apply(opcode, dst, src, int_of(chunk_bytes, "chunk_bytes"), o,
                              caller_pos());
       },
       py::arg("opcode"), py::arg("dst"), py::arg("src"), py::arg("chunk_bytes"),
       py::arg("scope") = "thread", py::arg("src_size") = py::none(),
       py::arg("ignore_src") = py::none(), py::arg("pred") = py::none(),
       py::arg("cache_policy") = py::none(),
       "The spec's apply: a cp.async of every chunk of `src` into `dst`.")
      .def(
          "wait_group",
          [](PyKernel& self, const Int& n) {
            self.builder().wait_group(int_of(n, "wait_group's n"), caller_pos());
          },
          py::arg("n"), "cp.async.wait_group n: at most n groups stay pending.")
      .def(
          "fill",
          [](PyKernel& self, const api::View& dst, const py::bytes& pattern) {
            const std::string p = pattern;
            self.builder().fill(dst, std::vector<std::uint8_t>(p.begin(), p.end()), caller_pos());
          },
          py::arg("dst"), py::arg("pattern"), "Every byte of each thread's dst from pattern.")
      .def(
          "copy",
          [](PyKernel& self, const api::View& dst, const api::View& src,
             const std::optional<IntoExpr>& pred) {
            self.builder().copy(dst, src, opt_expr_of(pred, "pred"), caller_pos());
          },
          py::arg("dst"), py::arg("src"), py::arg("pred") = py::none(),
          "Each thread's src into its dst (ld/st; only where pred holds, when given).");
}

/// named_barrier and setmaxnreg: the warps' roles (warp_roles.hpp has their rules).
void bind_roles(py::class_<PyKernel>& k) {
  k.def(
       "named_barrier",
       [](PyKernel& self, const Int& id, const Int& count, bool arrive,
          const std::optional<IntoExpr>& pred) {
         self.builder().named_barrier(int_of(id, "id"), int_of(count, "count"), arrive,
                                      opt_expr_of(pred, "pred"), caller_pos());
       },
       py::arg("id"), py::arg("count"), py::arg("arrive") = false, py::arg("pred") = py::none(),
       "bar.sync id, count (bar.arrive with arrive): the named barrier id (1..15) of the count "
       "threads, whole warps, whose pred holds.")
      .def(
          "setmaxnreg",
          [](PyKernel& self, const std::string& action, const Int& regs,
             const std::optional<IntoExpr>& pred) {
            const auto a = parse_name(tile::reg_action_names, action);
            if (!a)
              throw ArgumentError("action is 'inc' or 'dec', not '" + action + "'");
            self.builder().setmaxnreg(*a, int_of(regs, "regs"), opt_expr_of(pred, "pred"),
                                      caller_pos());
          },
          py::arg("action"), py::arg("regs"), py::arg("pred") = py::none(),
          "setmaxnreg.{inc,dec}.sync.aligned.u32 regs (sm_90a): each warpgroup whose pred "
          "holds moves to regs registers per thread (24..256, a multiple of 8).");
}

/// What k.loop() returns: the `for` opens at __enter__ and closes at __exit__; one never
/// entered warns when it goes, since it built nothing.
struct LoopGuard {
  PyKernel* kernel;
  std::string var;
  api::Expr start, stop, step;
  std::int64_t unroll;
  api::Pos at;
  bool entered = false;
  ~LoopGuard() {
    if (entered)
      return;
    const std::string text = "k.loop('" + var + "', ...) at " + at.file() + ":" +
                             std::to_string(at.line()) +
                             " was never entered: write `with k.loop(...) as " + var +
                             ":` (a loop opens and closes with its with-block)";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, text.c_str(), 1) < 0)
      PyErr_WriteUnraisable(nullptr);
  }
};

void bind_loops(py::module_& m, py::class_<PyKernel>& k) {
  py::class_<LoopGuard>(m, "Loop", "A `for` open for the length of a with-block.")
      .def(
          "__enter__",
          [](LoopGuard& l) {
            if (l.entered)
              throw ArgumentError("a Loop opens once; call k.loop(...) again for another");
            l.entered = true;
            return l.kernel->builder().begin_for(l.var, l.start, l.stop, l.step, l.unroll, l.at);
          },
          "Opens the for; its variable.")
      .def(
          "__exit__",
          [](LoopGuard& l, const py::args&) { l.kernel->builder().end_for(caller_pos()); },
          "Closes the for.");
  k.def(
       "begin_for",
       [](PyKernel& self, std::string var, const IntoExpr& start, const IntoExpr& stop,
          const IntoExpr& step, const Int& unroll) {
         return self.builder().begin_for(std::move(var), expr_of(start, "start"),
                                         expr_of(stop, "stop"), expr_of(step, "step"),
                                         int_of(unroll, "unroll"), caller_pos());
       },
       py::arg("var"), py::arg("start"), py::arg("stop"), py::arg("step") = 1,
       py::arg("unroll") = 1,
       "Opens `for (var = start; var < stop; var += step)` up to end_for(); its variable.")
      .def(
          "end_for", [](PyKernel& self) { self.builder().end_for(caller_pos()); },
          "Closes the innermost open for.")
      .def(
          "loop",
          [](PyKernel& self, std::string var, const IntoExpr& start, const IntoExpr& stop,
             const IntoExpr& step, const Int& unroll) {
            // Made in place: a moved-from temporary would warn as it goes.
            return std::unique_ptr<LoopGuard>(
                new LoopGuard{&self, std::move(var), expr_of(start, "start"), expr_of(stop, "stop"),
                              expr_of(step, "step"), int_of(unroll, "unroll"), caller_pos()});
          },
          py::arg("var"), py::arg("start"), py::arg("stop"), py::arg("step") = 1,
          py::arg("unroll") = 1, py::keep_alive<0, 1>(),
          "`with k.loop('i', 0, n) as i:` a for over the with-block (a RuntimeWarning when "
          "never entered).");
}

using PipelineFn = std::function<void(const api::PipelineVars&)>;
using RingFn = std::function<api::View(const api::PipelineVars&)>;

void bind_control(py::class_<PyKernel>& k) {
  k.def(
       "pipeline",
       [](PyKernel& self, const PipelineFn& loads, const PipelineFn& body, const IntoExpr& stop,
          const Int& stages, const IntoExpr& start, std::string var, const Int& unroll,
          std::string stage_var, const RingFn& full, const RingFn& empty,
          const std::optional<IntoExpr>& ring_offset, const std::optional<Int>& producer_warps,
          const std::optional<Int>& producer_regs, const std::optional<Int>& consumer_regs,
          const std::optional<Int>& consumer_barrier, bool multicast) {
         const auto opt_int = [](const std::optional<Int>& v, const std::string& what) {
           return v ? std::optional(int_of(*v, what)) : std::nullopt;
         };
         api::PipelineOptions o;
         o.var = std::move(var);
         o.start = expr_of(start, "start");
         o.stop = expr_of(stop, "stop");
         o.stages = int_of(stages, "stages");
         o.unroll = int_of(unroll, "unroll");
         o.stage_var = std::move(stage_var);
         o.full = full;
         o.empty = empty;
         o.ring_offset = opt_expr_of(ring_offset, "ring_offset");
         o.producer_warps = opt_int(producer_warps, "producer_warps");
         o.producer_regs = opt_int(producer_regs, "producer_regs");
         o.consumer_regs = opt_int(consumer_regs, "consumer_regs");
         o.consumer_barrier = opt_int(consumer_barrier, "consumer_barrier");
         o.multicast = multicast;
         self.builder().pipeline(o, loads, body, caller_pos());
       },
       py::arg("loads"), py::arg("body"), py::arg("stop"),
       py::arg("stages") = tile::kMinPipelineStages, py::arg("start") = 0, py::arg("var") = "k",
       py::arg("unroll") = 1, py::arg("stage_var") = std::string(tile::kDefaultStageVar),
       py::arg("full") = py::none(), py::arg("empty") = py::none(),
       py::arg("ring_offset") = py::none(), py::arg("producer_warps") = py::none(),
       py::arg("producer_regs") = py::none(), py::arg("consumer_regs") = py::none(),
       py::arg("consumer_barrier") = py::none(), py::arg("multicast") = false,
       "A software pipeline: loads(v) and body(v) build one tile's loads and consumer "
       "(v.tile, v.stage); full/empty give a TMA pipeline's mbarrier ring; producer_warps "
       "makes it warp-specialized (producer_regs / consumer_regs: setmaxnreg; "
       "consumer_barrier: a named barrier id among the consumers before each release; "
       "multicast: each CTA's loads are its share, multicast to the whole cluster or to the "
       "ranks of a load's own multicast= mask, and a stage's refill waits for the consumers "
       "of every CTA it lands in).")
      .def(
          "mbarrier_init",
          [](PyKernel& self, const api::View& barrier, const Int& count) {
            self.builder().mbarrier_init(barrier, int_of(count, "count"), caller_pos());
          },
          py::arg("barrier"), py::arg("count"), "mbarrier.init with the arrivals a phase needs.")
      .def(
          "copy_arrive",
          [](PyKernel& self, const api::View& barrier, bool noinc) {
            self.builder().copy_arrive(barrier, noinc, caller_pos());
          },
          py::arg("barrier"), py::arg("noinc") = false,
          "cp.async.mbarrier.arrive: the thread's cp.asyncs arrive on barrier.")
      .def(
          "mbarrier_arrive",
          [](PyKernel& self, const api::View& barrier, const std::optional<IntoExpr>& pred) {
            self.builder().mbarrier_arrive(barrier, opt_expr_of(pred, "pred"), caller_pos());
          },
          py::arg("barrier"), py::arg("pred") = py::none(),
          "mbarrier.arrive (only where pred holds, when given).")
      .def(
          "mbarrier_wait",
          [](PyKernel& self, const api::View& barrier, const IntoExpr& parity,
             const std::optional<IntoExpr>& pred) {
            self.builder().mbarrier_wait(barrier, expr_of(parity, "parity"),
                                         opt_expr_of(pred, "pred"), caller_pos());
          },
          py::arg("barrier"), py::arg("parity"), py::arg("pred") = py::none(),
          "Waits for the phase of barrier with `parity` to complete (only where pred holds, "
          "when given).");
}

void bind_expectations(py::class_<PyKernel>& k) {
  k.def(
       "expect_equal",
       [](PyKernel& self, const api::View& lhs, const api::View& rhs) {
         self.builder().expect_equal(lhs, rhs, caller_pos());
       },
       py::arg("lhs"), py::arg("rhs"),
       "After a run, lhs equals rhs (views of global tensors; slice bounds may name parameters).")
      .def(
          "expect_value",
          [](PyKernel& self, const api::View& lhs, const Int& value) {
            self.builder().expect_value(lhs, int_of(value, "expect_value's value"), caller_pos());
          },
          py::arg("lhs"), py::arg("value"),
          "After a run, every element of lhs holds value (exactly, in its element type).")
      .def(
          "expect_sentinel",
          [](PyKernel& self, const api::View& lhs) {
            self.builder().expect_sentinel(lhs, caller_pos());
          },
          py::arg("lhs"), "After a run, lhs keeps its initial bytes.");
}

std::unique_ptr<PyKernel> make_kernel(std::string name, const std::optional<Extent>& grid,
                                      const std::optional<Extent>& block) {
  const api::Pos at = caller_pos();
  auto b = std::make_unique<api::KernelBuilder>(name, at);
  // A name that is no identifier would leave the kernel nameless: refused here, at once.
  for (const Diagnostic& d : b->diagnostics())
    if (d.severity == Severity::error)
      throw ArgumentError("Kernel's name takes an identifier (letters, digits, '_'), not '" + name +
                          "': " + d.message);
  const bool g = grid && !grid->obj.is_none(), bl = block && !block->obj.is_none();
  if (g || bl)
    b->launch(g ? dims_of(grid->obj, "grid") : tile::Dim3{1, 1, 1},
              bl ? dims_of(block->obj, "block") : tile::Dim3{128, 1, 1}, at);
  return std::make_unique<PyKernel>(std::move(b));
}

std::string kernel_repr(const PyKernel& self) {
  const tile::Kernel& k = self.kernel();
  auto dims = [](const tile::Dim3& d) {
    std::string out = std::to_string(d.x);
    if (d.y != 1 || d.z != 1)
      out = "(" + out + ", " + std::to_string(d.y) + (d.z != 1 ? ", " + std::to_string(d.z) : "") +
            ")";
    return out;
  };
  return "<ptxgen.Kernel '" + k.name + "' grid=" + dims(k.grid_dim) +
         " block=" + dims(k.block_dim) + " tensors=" + std::to_string(k.tensors.size()) +
         " ops=" + std::to_string(k.ops.size()) + (self.built() ? "" : " loaded") + ">";
}

} // namespace

void bind_kernel(py::module_& m, py::class_<PyKernel>& k) {
  k.def(py::init(&make_kernel), py::arg("name"), py::arg("grid") = py::none(),
        py::arg("block") = py::none(),
        "A kernel to build, named by an identifier; grid and block (default 1 and 128 when "
        "either is given) as launch() takes them.");
  k.def_property_readonly(
      "name", [](const PyKernel& self) { return self.kernel().name; }, "The kernel's name.");
  k.def("__repr__", &kernel_repr, "<ptxgen.Kernel 'name' grid=.. block=.. tensors=.. ops=..>");
  // Pickling (and so copy.deepcopy) goes through the spec text: what comes back is a loaded
  // kernel, complete, as ptxgen.loads(k.to_toml()) gives.
  k.def(py::pickle(
      [](const PyKernel& self) { return py::make_tuple(api::to_spec_toml(self.kernel())); },
      [](const py::tuple& state) {
        auto r = driver::load_spec_text(state[0].cast<std::string>(), "<pickle>");
        if (!r)
          raise_error("load", "the pickled kernel did not load", r.diagnostics);
        return std::make_unique<PyKernel>(std::move(*r));
      }));
  bind_declarations(k);
  bind_plain_ops(k);
  bind_copies(k);
  bind_roles(k);
  bind_loops(m, k);
  bind_control(k);
  bind_expectations(k);
}

} // namespace ptxgen::python
