// The Python module `ptxgen` (docs/python.md), part 1: expressions, views and the kernel
// builder, over the C++ API's KernelBuilder. Every builder call takes the Python caller's
// file and line as its position, so diagnostics point at the generator's code.

#include "emitter/ptx/instruction.hpp"
#include "python/bindings.hpp"

#include <stdexcept>
#include <vector>

#include <frameobject.h>
#include <pybind11/functional.h>
#include <pybind11/stl.h>

namespace ptxgen::python {

api::KernelBuilder& PyKernel::builder() {
  if (!builder_)
    throw py::type_error("this kernel was loaded from a spec; build kernels with ptxgen.Kernel");
  return *builder_;
}

Diagnostics PyKernel::own_diagnostics() const {
  return builder_ ? builder_->diagnostics() : Diagnostics{};
}

std::optional<Diagnostic> PyKernel::set_param(const std::string& name, std::uint64_t value) {
  if (builder_)
    return builder_->set_param_value(name, value);
  for (tile::ScalarParam& p : loaded_->params) {
    if (p.name != name)
      continue;
    const bool inside = p.range ? value >= static_cast<std::uint64_t>(p.range->lo) &&
                                      value <= static_cast<std::uint64_t>(p.range->hi)
                                : p.is_u64 || value <= 0xFFFFFFFFu;
    if (!inside)
      return Diagnostic(DiagId::run_param_value, "parameter '" + name +
                                                     "' = " + std::to_string(value) +
                                                     " is outside its declared range");
    p.value = value;
    return std::nullopt;
  }
  return Diagnostic(DiagId::run_param_value, "the kernel has no parameter '" + name + "'");
}

api::Pos caller_pos() {
  PyFrameObject* frame = PyEval_GetFrame(); // borrowed: the Python code calling us
  if (!frame)
    return api::Pos::none();
  const int line = PyFrame_GetLineNumber(frame);
  PyCodeObject* code = PyFrame_GetCode(frame); // a new reference
  std::string file = py::str(py::handle(reinterpret_cast<PyObject*>(code)).attr("co_filename"));
  Py_DECREF(code);
  return api::Pos(std::move(file), static_cast<std::uint32_t>(line), 1);
}

namespace {

api::DType dtype_of(const std::string& text) {
  if (auto d = tile::parse_dtype(text))
    return *d;
  throw py::value_error("unknown dtype '" + text + "'");
}

tile::Dim3 dims_of(const py::object& o) {
  if (py::isinstance<py::int_>(o))
    return tile::Dim3{o.cast<std::int64_t>(), 1, 1};
  const auto v = o.cast<std::vector<std::int64_t>>();
  if (v.empty() || v.size() > 3)
    throw py::value_error("a launch extent is an int or a tuple of 1 to 3 ints");
  return tile::Dim3{v[0], v.size() > 1 ? v[1] : 1, v.size() > 2 ? v[2] : 1};
}

api::Scope scope_of(const std::string& text) {
  if (text == "thread")
    return api::Scope::thread;
  if (text == "cta")
    return api::Scope::cta;
  throw py::value_error("scope is 'thread' or 'cta', not '" + text + "'");
}

/// One entry of View.sub / View[...]: an int or Expr index, or a slice without a step.
api::Index index_of(const py::handle& h) {
  if (py::isinstance<py::slice>(h)) {
    const auto s = py::reinterpret_borrow<py::slice>(h);
    const py::object start = s.attr("start"), stop = s.attr("stop"), step = s.attr("step");
    if (!step.is_none())
      throw py::value_error("a view's slice takes no step");
    api::Slice out;
    out.begin = start.is_none() ? 0 : start.cast<std::int64_t>();
    if (!stop.is_none())
      out.end = stop.cast<std::int64_t>();
    return api::Index(out);
  }
  return api::Index(h.cast<api::Expr>());
}

std::vector<api::Index> entries_of(const py::handle& key) {
  std::vector<api::Index> out;
  if (py::isinstance<py::tuple>(key))
    for (const py::handle& h : py::reinterpret_borrow<py::tuple>(key))
      out.push_back(index_of(h));
  else
    out.push_back(index_of(key));
  return out;
}

std::vector<api::AxisSize> sizes_of(const py::kwargs& kw) {
  std::vector<api::AxisSize> out;
  for (const auto& [k, v] : kw)
    out.push_back({py::str(k), v.cast<std::int64_t>()});
  return out;
}

std::optional<api::Expr> opt_expr(const py::object& o) {
  if (o.is_none())
    return std::nullopt;
  return o.cast<api::Expr>();
}

void bind_expr(py::module_& m) {
  using api::Expr;
  py::class_<Expr> e(m, "Expr", "An index, size or predicate expression (ints convert).");
  e.def(py::init<std::int64_t>()).def("__str__", &Expr::str).def("__repr__", [](const Expr& x) {
    return "ptxgen.Expr('" + x.str() + "')";
  });
  // Each operator for Expr op Expr; ints convert implicitly, on either side.
#define PTXGEN_PY_BINARY(py_name, py_rname, op)                                                    \
  e.def(                                                                                           \
      py_name, [](const Expr& a, const Expr& b) { return a op b; }, py::is_operator());            \
  e.def(                                                                                           \
      py_rname, [](const Expr& a, const Expr& b) { return b op a; }, py::is_operator());
  PTXGEN_PY_BINARY("__add__", "__radd__", +)
  PTXGEN_PY_BINARY("__sub__", "__rsub__", -)
  PTXGEN_PY_BINARY("__mul__", "__rmul__", *)
  PTXGEN_PY_BINARY("__floordiv__", "__rfloordiv__", /)
  PTXGEN_PY_BINARY("__mod__", "__rmod__", %)
  PTXGEN_PY_BINARY("__lshift__", "__rlshift__", <<)
  PTXGEN_PY_BINARY("__rshift__", "__rrshift__", >>)
  PTXGEN_PY_BINARY("__and__", "__rand__", &)
  PTXGEN_PY_BINARY("__or__", "__ror__", |)
  PTXGEN_PY_BINARY("__xor__", "__rxor__", ^)
#undef PTXGEN_PY_BINARY
  e.def(
      "__lt__", [](const Expr& a, const Expr& b) { return a < b; }, py::is_operator());
  e.def(
      "__le__", [](const Expr& a, const Expr& b) { return a <= b; }, py::is_operator());
  e.def(
      "__gt__", [](const Expr& a, const Expr& b) { return a > b; }, py::is_operator());
  e.def(
      "__ge__", [](const Expr& a, const Expr& b) { return a >= b; }, py::is_operator());
  e.def(
      "__eq__", [](const Expr& a, const Expr& b) { return a == b; }, py::is_operator());
  e.def(
      "__ne__", [](const Expr& a, const Expr& b) { return a != b; }, py::is_operator());
  e.def("__neg__", [](const Expr& a) { return -a; });
  e.attr("__hash__") = py::none(); // == builds an expression, so no hashing
  py::implicitly_convertible<std::int64_t, Expr>();

  m.attr("tid") = api::tid();
  m.attr("warp") = api::warp();
  m.attr("lane") = api::lane();
  m.attr("bid") = api::bid();
  m.def("special", [](const std::string& s) {
    if (auto sp = tile::parse_special(s))
      return api::special(*sp);
    throw py::value_error("no launch coordinate '" + s + "' (tid.x, ntid, nbid.z, ...)");
  });
  m.def("axis", &api::axis, "A named repeat axis of an apply's src view.");
  m.def("min", [](const Expr& a, const Expr& b) { return api::min(a, b); });
  m.def("max", [](const Expr& a, const Expr& b) { return api::max(a, b); });
  m.def("clamp", &api::clamp);
  m.def("select", &api::select, "c ? a : b");
  m.def("logical_and", [](const Expr& a, const Expr& b) { return a && b; });
  m.def("logical_or", [](const Expr& a, const Expr& b) { return a || b; });
  m.def("logical_not", [](const Expr& a) { return !a; });
}

void bind_view(py::module_& m) {
  using api::View;
  py::class_<View>(m, "View", "A view of a tensor: rearrange, sub ([...]) and dtype views.")
      .def("rearrange",
           [](const View& v, std::string pattern, const py::kwargs& sizes) {
             return v.rearrange(std::move(pattern), sizes_of(sizes), caller_pos());
           })
      .def("sub", [](const View& v,
                     const py::args& entries) { return v.sub(entries_of(entries), caller_pos()); })
      .def(
          "__getitem__",
          [](const View& v, const py::object& key) { return v.sub(entries_of(key), caller_pos()); })
      .def("view", [](const View& v,
                      const std::string& dtype) { return v.as(dtype_of(dtype), caller_pos()); })
      .def_property_readonly("ok", &View::ok)
      .def_property_readonly("error",
                             [](const View& v) -> py::object {
                               if (!v.error())
                                 return py::none();
                               return py::cast(*v.error());
                             })
      .def_property_readonly("text", &View::text)
      .def_property_readonly("dtype",
                             [](const View& v) { return std::string(name(v.tile().dtype)); })
      .def("__str__", &View::text)
      .def("__repr__", [](const View& v) { return "ptxgen.View('" + v.text() + "')"; });
}

/// `with k.loop("i", 0, n) as i:` opens a `for` and closes it at the end of the block.
struct Loop {
  PyKernel* kernel;
  api::Expr var;
  api::Pos end_at = api::Pos::none();
};

void bind_declarations(py::class_<PyKernel>& k) {
  k.def(
       "launch",
       [](PyKernel& self, const py::object& grid, const py::object& block) {
         self.builder().launch(dims_of(grid), dims_of(block), caller_pos());
       },
       py::arg("grid"), py::arg("block"))
      .def("dynamic_shared",
           [](PyKernel& self, std::int64_t n) { self.builder().dynamic_shared(n, caller_pos()); })
      .def(
          "global_tensor",
          [](PyKernel& self, std::string name, std::vector<std::int64_t> shape,
             const std::string& dtype, std::optional<tile::TensorInit> init, bool output,
             std::uint32_t align, const py::object& map) {
            api::GlobalOptions o;
            o.init = init.value_or(tile::TensorInit{});
            o.output = output;
            o.align = align;
            o.map = map_of(map);
            return self.builder()
                .global(std::move(name), std::move(shape), dtype_of(dtype), o, caller_pos())
                .view();
          },
          py::arg("name"), py::arg("shape"), py::arg("dtype"), py::arg("init") = py::none(),
          py::arg("output") = false, py::arg("align") = tile::default_global_align,
          py::arg("map") = py::none())
      .def(
          "shared_tensor",
          [](PyKernel& self, std::string name, std::vector<std::int64_t> shape,
             const std::string& dtype, std::uint32_t align, const std::string& swizzle) {
            const api::SharedOptions o{align, swizzle_of(swizzle)};
            return self.builder()
                .shared(std::move(name), std::move(shape), dtype_of(dtype), o, caller_pos())
                .view();
          },
          py::arg("name"), py::arg("shape"), py::arg("dtype"),
          py::arg("align") = tile::default_shared_align, py::arg("swizzle") = "none")
      .def(
          "param_u32",
          [](PyKernel& self, std::string name, std::uint64_t value,
             std::optional<std::pair<std::int64_t, std::int64_t>> range) {
            std::optional<tile::Interval> r;
            if (range)
              r = tile::Interval{range->first, range->second};
            return self.builder().param_u32(std::move(name), value, r, caller_pos());
          },
          py::arg("name"), py::arg("value"), py::arg("range") = py::none())
      .def("param_u64",
           [](PyKernel& self, std::string name, std::uint64_t value) {
             self.builder().param_u64(std::move(name), value, caller_pos());
           })
      .def("view", [](PyKernel& self, const std::string& text) {
        return self.builder().view(text, caller_pos());
      });
}

void bind_copies(py::class_<PyKernel>& k) {
  k.def(
       "apply",
       [](PyKernel& self, const std::string& opcode, const api::View& dst, const api::View& src,
          std::int64_t chunk_bytes, const std::string& scope, const py::object& src_size,
          const py::object& ignore_src, const py::object& pred,
          std::optional<CachePolicy> cache_policy) {
         api::ApplyOptions o;
         o.scope = scope_of(scope);
         o.src_size = opt_expr(src_size);
         o.ignore_src = opt_expr(ignore_src);
         o.pred = opt_expr(pred);
         if (cache_policy)
           o.cache_policy = cache_policy->policy;
         self.builder().apply(opcode, dst, src, chunk_bytes, o, caller_pos());
       },
       py::arg("opcode"), py::arg("dst"), py::arg("src"), py::arg("chunk_bytes"),
       py::arg("scope") = "thread", py::arg("src_size") = py::none(),
       py::arg("ignore_src") = py::none(), py::arg("pred") = py::none(),
       py::arg("cache_policy") = py::none())
      .def("commit_group", [](PyKernel& self) { self.builder().commit_group(caller_pos()); })
      .def("wait_group",
           [](PyKernel& self, std::int64_t n) { self.builder().wait_group(n, caller_pos()); })
      .def("wait_all", [](PyKernel& self) { self.builder().wait_all(caller_pos()); })
      .def("cta_sync", [](PyKernel& self) { self.builder().cta_sync(caller_pos()); })
      .def("fill",
           [](PyKernel& self, const api::View& dst, const py::bytes& pattern) {
             const std::string p = pattern;
             self.builder().fill(dst, std::vector<std::uint8_t>(p.begin(), p.end()), caller_pos());
           })
      .def("copy", [](PyKernel& self, const api::View& dst, const api::View& src) {
        self.builder().copy(dst, src, caller_pos());
      });
}

void bind_control(py::class_<PyKernel>& k) {
  k.def(
       "begin_for",
       [](PyKernel& self, std::string var, const api::Expr& start, const api::Expr& stop,
          const api::Expr& step, std::int64_t unroll) {
         return self.builder().begin_for(std::move(var), start, stop, step, unroll, caller_pos());
       },
       py::arg("var"), py::arg("start"), py::arg("stop"), py::arg("step") = 1,
       py::arg("unroll") = 1)
      .def("end_for", [](PyKernel& self) { self.builder().end_for(caller_pos()); })
      .def(
          "loop",
          [](PyKernel& self, std::string var, const api::Expr& start, const api::Expr& stop,
             const api::Expr& step, std::int64_t unroll) {
            api::Expr v =
                self.builder().begin_for(std::move(var), start, stop, step, unroll, caller_pos());
            return Loop{&self, v};
          },
          py::arg("var"), py::arg("start"), py::arg("stop"), py::arg("step") = 1,
          py::arg("unroll") = 1, py::keep_alive<0, 1>())
      .def(
          "pipeline",
          [](PyKernel& self, const std::function<void(const api::PipelineVars&)>& loads,
             const std::function<void(const api::PipelineVars&)>& body, const api::Expr& stop,
             std::int64_t stages, const api::Expr& start, std::string var, std::int64_t unroll,
             std::string stage_var, const std::function<api::View(const api::PipelineVars&)>& full,
             const std::function<api::View(const api::PipelineVars&)>& empty,
             const py::object& ring_offset) {
            api::PipelineOptions o;
            o.var = std::move(var);
            o.start = start;
            o.stop = stop;
            o.stages = stages;
            o.unroll = unroll;
            o.stage_var = std::move(stage_var);
            o.full = full;
            o.empty = empty;
            o.ring_offset = opt_expr(ring_offset);
            self.builder().pipeline(o, loads, body, caller_pos());
          },
          py::arg("loads"), py::arg("body"), py::arg("stop"),
          py::arg("stages") = tile::kMinPipelineStages, py::arg("start") = 0, py::arg("var") = "k",
          py::arg("unroll") = 1, py::arg("stage_var") = std::string(tile::kDefaultStageVar),
          py::arg("full") = py::none(), py::arg("empty") = py::none(),
          py::arg("ring_offset") = py::none())
      .def("mbarrier_init",
           [](PyKernel& self, const api::View& bar, std::int64_t count) {
             self.builder().mbarrier_init(bar, count, caller_pos());
           })
      .def(
          "copy_arrive",
          [](PyKernel& self, const api::View& bar, bool noinc) {
            self.builder().copy_arrive(bar, noinc, caller_pos());
          },
          py::arg("barrier"), py::arg("noinc") = false)
      .def(
          "mbarrier_arrive",
          [](PyKernel& self, const api::View& bar, const py::object& pred) {
            self.builder().mbarrier_arrive(bar, opt_expr(pred), caller_pos());
          },
          py::arg("barrier"), py::arg("pred") = py::none())
      .def("mbarrier_wait", [](PyKernel& self, const api::View& bar, const api::Expr& parity) {
        self.builder().mbarrier_wait(bar, parity, caller_pos());
      });
}

void bind_expectations(py::class_<PyKernel>& k) {
  k.def("expect_equal",
        [](PyKernel& self, const api::View& lhs, const api::View& rhs) {
          self.builder().expect_equal(lhs, rhs, caller_pos());
        })
      .def("expect_value",
           [](PyKernel& self, const api::View& lhs, std::int64_t value) {
             self.builder().expect_value(lhs, value, caller_pos());
           })
      .def("expect_sentinel", [](PyKernel& self, const api::View& lhs) {
        self.builder().expect_sentinel(lhs, caller_pos());
      });
}

void bind_helpers(py::module_& m) {
  py::class_<tile::TensorInit>(m, "Init", "How a global tensor starts in test runs.");
  m.def("arange_mod", &api::arange_mod, "element i holds i % modulus");
  m.def("random_init", &api::random_init, "bytes from ptxgen's fixed generator");
  py::class_<CachePolicy>(m, "CachePolicy", "An apply's or a bulk copy's L2 cache policy.");
  m.def(
      "policy_param", [](std::string param) { return CachePolicy{api::policy_param(param)}; },
      "the policy in a u64 parameter");
  m.def(
      "create_policy",
      [](const std::string& primary, std::optional<std::string> secondary, float fraction) {
        auto prio = [](const std::string& s) {
          if (auto p = ptx::parse_eviction_priority(s))
            return *p;
          throw py::value_error("no eviction priority '" + s + "'");
        };
        std::optional<ptx::EvictionPriority> second;
        if (secondary)
          second = prio(*secondary);
        return CachePolicy{api::create_policy(prio(primary), second, fraction)};
      },
      py::arg("primary"), py::arg("secondary") = py::none(), py::arg("fraction") = 1.0f);
  py::class_<api::PipelineVars>(m, "PipelineVars", "A pipeline tile's index and ring slot.")
      .def_readonly("tile", &api::PipelineVars::tile)
      .def_readonly("stage", &api::PipelineVars::stage);
  py::class_<Loop>(m, "Loop", "A `for` open for the length of a with-block.")
      .def("__enter__", [](Loop& l) { return l.var; })
      .def("__exit__", [](Loop& l, const py::args&) { l.kernel->builder().end_for(caller_pos()); });
}

} // namespace

void bind_builder(py::module_& m, py::class_<PyKernel>& k) {
  bind_expr(m);
  bind_view(m);
  bind_helpers(m);
  k.def(py::init([](std::string name, const py::object& grid, const py::object& block) {
          auto b = std::make_unique<api::KernelBuilder>(std::move(name), caller_pos());
          if (!grid.is_none() || !block.is_none())
            b->launch(dims_of(grid.is_none() ? py::int_(1) : grid),
                      dims_of(block.is_none() ? py::int_(128) : block), caller_pos());
          return std::make_unique<PyKernel>(std::move(b));
        }),
        py::arg("name"), py::arg("grid") = py::none(), py::arg("block") = py::none());
  k.def_property_readonly("name", [](const PyKernel& self) { return self.kernel().name; });
  bind_declarations(k);
  bind_copies(k);
  bind_control(k);
  bind_expectations(k);
}

} // namespace ptxgen::python

PYBIND11_MODULE(ptxgen, m) {
  m.doc() = "ptxgen: raw-PTX cp.async kernels, their contract, simulator and reference";
  m.attr("__version__") = PTXGEN_VERSION;
  namespace pyx = ptxgen::python;
  pyx::bind_diagnostics(m); // first: the class the builder's views and every stage return
  pybind11::class_<pyx::PyKernel> k(m, "Kernel", "A kernel built by calls, or loaded from a spec.");
  pyx::bind_builder(m, k);
  pyx::bind_bulk(m, k);
  pyx::bind_stages(m, k);
  pyx::bind_lint(m);
  pyx::bind_instr(m);
}
