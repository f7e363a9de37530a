// The Python module `ptxgen` (docs/python.md), part 1: the caller's position, expressions,
// views and the builder's helpers (kernel.cpp: the kernel builder's calls), over the C++
// API. Every builder call takes the Python caller's file, line, column and source line as
// its position, so diagnostics point at the generator's code.

#include "emitter/ptx/instruction.hpp"
#include "emitter/tile/well_formed.hpp"
#include "python/bindings.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <frameobject.h>
#include <pybind11/eval.h>
#include <pybind11/stl.h>

namespace ptxgen::python {

api::KernelBuilder& PyKernel::builder() {
  if (!builder_)
    throw ArgumentTypeError(
        "this kernel was loaded from a spec (or unpickled) and is complete; build kernels with "
        "ptxgen.Kernel");
  return *builder_;
}

Diagnostics PyKernel::own_diagnostics() const {
  return builder_ ? builder_->diagnostics() : Diagnostics{};
}

std::optional<Diagnostic> PyKernel::set_param(const std::string& name, std::uint64_t value) {
  if (builder_)
    return builder_->set_param_value(name, value);
  return tile::set_param_value(*loaded_, name, value);
}

namespace {

/// The argument-error wrapper's code (wrap_argument_errors), whose frames caller_pos() skips;
/// the module holds it.
PyObject* wrapper_code = nullptr;

/// linecache.getline, for the source line a diagnostic shows under its caret.
std::string source_line_of(const std::string& file, int line) {
  static py::object* getline = new py::object(py::module_::import("linecache").attr("getline"));
  std::string text = py::str((*getline)(file, line));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

/// The 1-based column where the instruction the frame is at starts (its call expression),
/// from co_positions (Python 3.11); 1 where the interpreter does not say.
std::uint32_t column_of(PyFrameObject* frame, const py::object& code) {
#if PY_VERSION_HEX >= 0x030B0000
  const int lasti = PyFrame_GetLasti(frame);
  if (lasti < 0 || !py::hasattr(code, "co_positions"))
    return 1;
  int i = 0;
  for (const py::handle& pos : code.attr("co_positions")()) {
    if (i++ != lasti / 2)
      continue;
    const py::object col = py::reinterpret_borrow<py::tuple>(pos)[2];
    return col.is_none() ? 1 : col.cast<std::uint32_t>() + 1;
  }
#else
  (void)frame;
  (void)code;
#endif
  return 1;
}

} // namespace

api::Pos caller_pos() {
  PyFrameObject* frame = PyEval_GetFrame(); // borrowed: the Python code calling us
  if (!frame)
    return api::Pos::none();
  py::object code = py::reinterpret_steal<py::object>(
      reinterpret_cast<PyObject*>(PyFrame_GetCode(frame))); // a new reference
  // The argument-error wrapper (wrap_argument_errors) is not the caller: the frame under it is.
  py::object outer; // holds the frame PyFrame_GetBack returns
  if (code.ptr() == wrapper_code) {
    outer = py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(PyFrame_GetBack(frame)));
    if (!outer)
      return api::Pos::none();
    frame = reinterpret_cast<PyFrameObject*>(outer.ptr());
    code = py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)));
  }
#if PY_VERSION_HEX >= 0x030B0000
  const int lasti = PyFrame_GetLasti(frame);
#else
  const int lasti = PyFrame_GetLineNumber(frame);
#endif
  // A call site's position, once found, is kept: finding it (the file's line and the code's
  // positions) costs more than the builder call itself, and a generator calls from few sites
  // many times. The cache holds the code objects, so their addresses are never reused.
  struct Site {
    py::object code;
    api::Pos pos;
  };
  static auto* sites = new std::map<std::pair<PyObject*, int>, Site>();
  const auto key = std::make_pair(code.ptr(), lasti);
  if (const auto it = sites->find(key); it != sites->end())
    return it->second.pos;
  const int line = PyFrame_GetLineNumber(frame);
  std::string file = py::str(code.attr("co_filename"));
  std::string text = source_line_of(file, line);
  api::Pos pos(std::move(file), static_cast<std::uint32_t>(line), column_of(frame, code),
               std::move(text));
  sites->emplace(key, Site{code, pos});
  return pos;
}

api::Pos string_pos(const api::Pos& call, const std::string& text) {
  const std::string line = call.source_pos().source_line;
  const std::size_t from = call.column() > 0 ? call.column() - 1 : 0;
  for (const char quote : {'"', '\''}) {
    const std::size_t at = line.find(quote + text + quote, from);
    if (at != std::string::npos)
      return api::Pos(call.file(), call.line(), static_cast<std::uint32_t>(at + 2), line);
  }
  return call;
}

namespace {

/// The Python slice `s` of an axis of `size` elements, as numpy reads it (negative bounds
/// count from the end, bounds clamp to the axis); a step other than 1 is refused. An Expr
/// bound (a parameter's) is kept as written: only an expectation's side takes one.
api::Index slice_of(const py::slice& s, std::int64_t size, const std::string& what) {
  const py::object start = s.attr("start"), stop = s.attr("stop"), step = s.attr("step");
  if (!step.is_none() && int_of(step, what + " step") != 1)
    throw ArgumentError(what + ": a view's slice takes no step, not " + std::string(py::str(step)));
  api::Slice out;
  auto constant = [&](const py::object& b) {
    std::int64_t v = int_of(b, what + " bound");
    return std::clamp<std::int64_t>(v < 0 ? v + size : v, 0, size);
  };
  if (py::isinstance<api::Expr>(start))
    out.begin_expr = start.cast<api::Expr>();
  else if (!start.is_none())
    out.begin = constant(start);
  if (py::isinstance<api::Expr>(stop))
    out.end_expr = stop.cast<api::Expr>();
  else if (!stop.is_none())
    out.end = std::max(out.begin, constant(stop));
  return api::Index(out);
}

/// View[key]: ints (negative ones from the end, as numpy), Exprs, slices and one Ellipsis.
std::vector<api::Index> entries_of(const api::View& v, const py::handle& key) {
  std::vector<py::handle> items;
  if (py::isinstance<py::tuple>(key))
    for (const py::handle& h : py::reinterpret_borrow<py::tuple>(key))
      items.push_back(h);
  else
    items.push_back(key);
  const std::vector<std::int64_t> shape = v.ok() ? v.tile().shape() : std::vector<std::int64_t>{};
  const std::size_t rank = v.ok() ? shape.size() : items.size();
  std::size_t ellipses = 0;
  for (const py::handle& h : items)
    ellipses += h.is(py::ellipsis()) ? 1 : 0;
  if (ellipses > 1)
    throw ArgumentError("an index can only have a single ellipsis ('...'), not " +
                        std::to_string(ellipses));
  std::vector<api::Index> out;
  for (const py::handle& h : items) {
    if (h.is(py::ellipsis())) {
      const std::size_t others = items.size() - 1;
      for (std::size_t k = others; k < rank; ++k)
        out.push_back(api::Index(api::all));
      continue;
    }
    const std::size_t axis = out.size();
    const std::int64_t size = axis < shape.size() ? shape[axis] : 0;
    const std::string what = "index " + std::to_string(axis) + " of " + v.text();
    if (py::isinstance<py::slice>(h)) {
      out.push_back(slice_of(py::reinterpret_borrow<py::slice>(h), size, what));
    } else if (py::isinstance<api::Expr>(h)) {
      out.push_back(api::Index(h.cast<api::Expr>()));
    } else {
      (void)expr_of(h, what); // refuses what is neither an Expr nor an int, with a hint
      const std::int64_t i = int_of(h, what);
      if (v.ok() && axis < shape.size() && (i < -size || i >= size))
        throw ArgumentError(what + " takes an int in " + std::to_string(-size) + ".." +
                            std::to_string(size - 1) + " (axis " + std::to_string(axis) + " has " +
                            std::to_string(size) + "), not " + std::to_string(i));
      out.push_back(api::Index(i < 0 ? i + size : i));
    }
  }
  return out;
}

std::vector<api::AxisSize> sizes_of(const py::kwargs& kw) {
  std::vector<api::AxisSize> out;
  for (const auto& [k, v] : kw) {
    const std::string name = py::str(k);
    out.push_back({name, int_of(v, "rearrange size " + name)});
  }
  return out;
}

/// Python's truth test of an Expr: an error, since `max`, `min`, `and`, `or`, `if` and
/// chained comparisons would otherwise take every expression as true and build another
/// kernel than the one written.
bool no_truth_value(const api::Expr& e) {
  throw ArgumentTypeError(
      "the truth value of the expression '" + e.str() +
      "' is decided when the kernel runs, not in Python: use ptxgen.max / ptxgen.min / "
      "ptxgen.select / ptxgen.logical_and / ptxgen.logical_or / ptxgen.logical_not instead of "
      "Python's max, min, if, and, or, not and chained comparisons (a < b < c)");
}

/// `other` as an operand, or nullopt for NotImplemented.
std::optional<api::Expr> operand(const py::handle& other) {
  if (py::isinstance<api::Expr>(other))
    return other.cast<api::Expr>();
  if (py::isinstance<py::int_>(other) && !py::isinstance<py::bool_>(other))
    return api::Expr(int_of(other, "an operand"));
  return std::nullopt;
}

template <class F>
ExprOrNotImplemented apply_operator(const IntoExpr& other, F f) {
  const std::optional<api::Expr> b = operand(other.obj);
  if (!b)
    return {py::reinterpret_borrow<py::object>(Py_NotImplemented)};
  return {py::cast(f(*b))};
}

void bind_operators(py::class_<api::Expr>& e) {
  using api::Expr;
  // Each operator for Expr op (Expr or int), on either side; any other operand is
  // NotImplemented, so Python raises its own TypeError.
#define PTXGEN_PY_BINARY(py_name, py_rname, op)                                                    \
  e.def(                                                                                           \
      py_name,                                                                                     \
      [](const Expr& a, const IntoExpr& b) {                                                       \
        return apply_operator(b, [&](const Expr& x) { return a op x; });                           \
      },                                                                                           \
      py::arg("other"), "self " #op " other, as an expression");                                   \
  e.def(                                                                                           \
      py_rname,                                                                                    \
      [](const Expr& a, const IntoExpr& b) {                                                       \
        return apply_operator(b, [&](const Expr& x) { return x op a; });                           \
      },                                                                                           \
      py::arg("other"), "other " #op " self, as an expression");
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
#define PTXGEN_PY_COMPARE(py_name, op)                                                             \
  e.def(                                                                                           \
      py_name,                                                                                     \
      [](const Expr& a, const IntoExpr& b) {                                                       \
        return apply_operator(b, [&](const Expr& x) { return a op x; });                           \
      },                                                                                           \
      py::arg("other"), "self " #op " other, as an expression (1 or 0 when the kernel runs)");
  PTXGEN_PY_COMPARE("__lt__", <)
  PTXGEN_PY_COMPARE("__le__", <=)
  PTXGEN_PY_COMPARE("__gt__", >)
  PTXGEN_PY_COMPARE("__ge__", >=)
  PTXGEN_PY_COMPARE("__eq__", ==)
  PTXGEN_PY_COMPARE("__ne__", !=)
#undef PTXGEN_PY_COMPARE
  e.def(
      "__neg__", [](const Expr& a) { return -a; }, "-self, as an expression");
  e.def("__bool__", &no_truth_value, "Raises ptxgen.ArgumentTypeError: see ptxgen.select.");
  e.attr("__hash__") = py::none(); // == builds an expression, so no hashing
}

void bind_expr(py::module_& m) {
  using api::Expr;
  py::class_<Expr> e(m, "Expr",
                     "An index, size or predicate expression: ints convert, operators build "
                     "trees, str() is the spec's spelling. It has no truth value in Python.");
  e.def(py::init([](const Int& value) { return Expr(int_of(value, "Expr value")); }),
        py::arg("value"), "A constant.")
      .def("__str__", &Expr::str, "The spec's spelling.")
      .def(
          "__repr__", [](const Expr& x) { return "ptxgen.Expr('" + x.str() + "')"; },
          "ptxgen.Expr('spelling')");
  bind_operators(e);
  py::implicitly_convertible<std::int64_t, Expr>();

  m.attr("tid") = api::tid();
  m.attr("warp") = api::warp();
  m.attr("lane") = api::lane();
  m.attr("bid") = api::bid();
  m.def(
      "special",
      [](const std::string& name) {
        if (auto sp = tile::parse_special(name))
          return api::special(*sp);
        throw ArgumentError("special takes a launch coordinate (tid.x, ntid, nbid.z, ...), not '" +
                            name + "'");
      },
      py::arg("name"), "A launch coordinate or size by its spec name: 'tid.x', 'ntid', 'nbid.z'.");
  m.def(
      "axis", [](std::string name) { return api::axis(std::move(name)); }, py::arg("name"),
      "A named repeat axis of an apply's src view (in src_size, ignore_src, pred).");
  m.def(
      "min",
      [](const IntoExpr& a, const IntoExpr& b) {
        return api::min(expr_of(a, "min's a"), expr_of(b, "min's b"));
      },
      py::arg("a"), py::arg("b"), "min(a, b), as an expression (Python's min cannot build one).");
  m.def(
      "max",
      [](const IntoExpr& a, const IntoExpr& b) {
        return api::max(expr_of(a, "max's a"), expr_of(b, "max's b"));
      },
      py::arg("a"), py::arg("b"), "max(a, b), as an expression (Python's max cannot build one).");
  m.def(
      "clamp",
      [](const IntoExpr& x, const IntoExpr& lo, const IntoExpr& hi) {
        return api::clamp(expr_of(x, "clamp's x"), expr_of(lo, "clamp's lo"),
                          expr_of(hi, "clamp's hi"));
      },
      py::arg("x"), py::arg("lo"), py::arg("hi"), "min(max(x, lo), hi), as the spec's clamp.");
  m.def(
      "select",
      [](const IntoExpr& c, const IntoExpr& a, const IntoExpr& b) {
        return api::select(expr_of(c, "select's c"), expr_of(a, "select's a"),
                           expr_of(b, "select's b"));
      },
      py::arg("c"), py::arg("a"), py::arg("b"),
      "c ? a : b, as an expression (the spec's if_then_else).");
  m.def(
      "logical_and",
      [](const IntoExpr& a, const IntoExpr& b) {
        return expr_of(a, "logical_and's a") && expr_of(b, "logical_and's b");
      },
      py::arg("a"), py::arg("b"), "a && b, as an expression (Python's `and` cannot build one).");
  m.def(
      "logical_or",
      [](const IntoExpr& a, const IntoExpr& b) {
        return expr_of(a, "logical_or's a") || expr_of(b, "logical_or's b");
      },
      py::arg("a"), py::arg("b"), "a || b, as an expression (Python's `or` cannot build one).");
  m.def(
      "logical_not", [](const IntoExpr& a) { return !expr_of(a, "logical_not's a"); }, py::arg("a"),
      "!a, as an expression (Python's `not` cannot build one).");
}

void bind_view(py::module_& m) {
  using api::View;
  py::class_<View>(m, "View", "A view of a tensor: rearrange, sub ([...]) and dtype views.")
      .def(
          "rearrange",
          [](const View& v, std::string pattern, const py::kwargs& sizes) {
            return v.rearrange(std::move(pattern), sizes_of(sizes), caller_pos());
          },
          py::arg("pattern"), "einops' rearrange: `pattern` and the new axes' sizes as keywords.")
      .def(
          "sub",
          [](const View& v, const py::args& entries) {
            return v.sub(entries_of(v, entries), caller_pos());
          },
          "The spec's .sub[...]: indices (ints, Exprs) and slices, as v[...] takes them.")
      .def(
          "__getitem__",
          [](const View& v, const py::object& key) {
            return v.sub(entries_of(v, key), caller_pos());
          },
          py::arg("key"),
          "v[i, 0:8, :]: ints (negative ones count from the end, as numpy's), Exprs, slices "
          "without a step (an Expr bound only in an expectation) and one `...`.")
      .def(
          "view",
          [](const View& v, const DTypeLike& dtype) {
            return v.as(dtype_of(dtype.obj), caller_pos());
          },
          py::arg("dtype"), "The last axis's bytes as another element type.")
      .def(
          "peer",
          [](const View& v, const IntoExpr& rank) {
            return v.peer(expr_of(rank, "peer's rank"), caller_pos());
          },
          py::arg("rank"),
          "S@(rank): the view in the shared tensor of CTA `rank` of the cluster (copy and fill "
          "take it).")
      .def_property_readonly("ok", &View::ok, "False when a step failed (see error).")
      .def_property_readonly(
          "error", [](const View& v) -> std::optional<Diagnostic> { return v.error(); },
          "The first failed step's diagnostic, or None.")
      .def_property_readonly("text", &View::text, "The spec's spelling.")
      .def_property_readonly(
          "dtype", [](const View& v) { return std::string(name(v.tile().dtype)); },
          "The element type seen through the view.")
      .def_property_readonly(
          "shape",
          [](const View& v) {
            return ShapeOrNone{v.ok() ? py::object(py::cast(v.tile().shape()).cast<py::tuple>())
                                      : py::object(py::none())};
          },
          "The view's shape (a tuple of ints; None when a step failed).")
      .def("__str__", &View::text, "The spec's spelling.")
      .def(
          "__repr__", [](const View& v) { return "ptxgen.View('" + v.text() + "')"; },
          "ptxgen.View('spelling')");
}

} // namespace

namespace {

std::string policy_repr(const CachePolicy& c) {
  if (const auto* p = std::get_if<tile::CachePolicyFromParam>(&c.policy))
    return "ptxgen.policy_param('" + p->param + "')";
  const auto& cp = std::get<tile::CachePolicyCreate>(c.policy);
  std::string out =
      "ptxgen.create_policy('" +
      std::string(ptx::eviction_priority_spellings()[static_cast<std::size_t>(cp.primary)]) + "'";
  if (cp.secondary)
    out +=
        ", '" +
        std::string(ptx::eviction_priority_spellings()[static_cast<std::size_t>(*cp.secondary)]) +
        "'";
  return out + ", fraction=" + std::string(py::repr(py::float_(cp.fraction))) + ")";
}

std::string init_repr(const tile::TensorInit& i) {
  using K = tile::TensorInit::Kind;
  switch (i.kind) {
  case K::arange_mod:
    return "ptxgen.arange_mod(" + std::to_string(i.modulus) + ")";
  case K::random:
    return "ptxgen.random_init(" + std::to_string(i.seed) + ")";
  default:
    return "ptxgen.Init(default)";
  }
}

void bind_helpers(py::module_& m) {
  py::class_<tile::TensorInit>(m, "Init", "How a global tensor starts in test runs.")
      .def("__repr__", &init_repr, "The call that makes it.");
  m.def(
      "arange_mod",
      [](const Int& modulus) { return api::arange_mod(int_of(modulus, "modulus", 1)); },
      py::arg("modulus"), "A global tensor's init: element i holds i % modulus.");
  m.def(
      "random_init",
      [](const Int& seed) {
        return api::random_init(uint_of(seed.obj, "seed", ~std::uint64_t{0}));
      },
      py::arg("seed"), "A global tensor's init: bytes from ptxgen's fixed generator.");
  py::class_<CachePolicy>(m, "CachePolicy", "An apply's or a bulk copy's L2 cache policy.")
      .def("__repr__", &policy_repr, "The call that makes it.");
  m.def(
      "policy_param", [](std::string param) { return CachePolicy{api::policy_param(param)}; },
      py::arg("param"), "The cache policy in a u64 parameter (k.param_u64).");
  m.def(
      "create_policy",
      [](const std::string& primary, std::optional<std::string> secondary, float fraction) {
        auto prio = [](const std::string& s) {
          if (auto p = ptx::parse_eviction_priority(s))
            return *p;
          std::string choices;
          for (const std::string_view c : ptx::eviction_priority_spellings())
            choices += (choices.empty() ? "" : ", ") + std::string(c);
          throw ArgumentError("an eviction priority is one of " + choices + ", not '" + s + "'");
        };
        std::optional<ptx::EvictionPriority> second;
        if (secondary)
          second = prio(*secondary);
        return CachePolicy{api::create_policy(prio(primary), second, fraction)};
      },
      py::arg("primary"), py::arg("secondary") = py::none(), py::arg("fraction") = 1.0f,
      "A cache policy createpolicy makes: the primary priority for `fraction` of the lines, "
      "the secondary for the rest.");
  py::class_<api::PipelineVars>(m, "PipelineVars", "A pipeline tile's index and ring slot.")
      .def_readonly("tile", &api::PipelineVars::tile, "The tile's index.")
      .def_readonly("stage", &api::PipelineVars::stage, "The tile's ring slot.");
}

} // namespace

void bind_builder(py::module_& m, py::class_<PyKernel>& k) {
  bind_expr(m);
  bind_view(m);
  bind_helpers(m);
  bind_kernel(m, k);
}

// pybind11 refuses an argument of a type no overload takes with a plain TypeError ("incompatible
// function arguments", the signature and the values given) before the function runs. Each
// public function is wrapped so that this refusal is a ptxgen.ArgumentTypeError too. It is told
// from a TypeError a Python callback raised (a pipeline's loads) by the traceback: the refusal
// comes from the function itself, with no Python frame under the wrapper's.
void wrap_argument_errors(py::module_& m) {
  py::dict scope;
  scope["module"] = m;
  const py::object builtins = py::module_::import("builtins");
  const py::object code = builtins.attr("compile")(R"(
import functools

def _wrap(f, ArgumentTypeError):
    @functools.wraps(f)
    def call(*args, **kwargs):
        try:
            return f(*args, **kwargs)
        except TypeError as e:
            if type(e) is not TypeError or e.__traceback__.tb_next is not None:
                raise
            error = ArgumentTypeError(str(e))
            error.stage = "argument"
            error.diagnostics = []
            raise error from None
    return call

def _public(name):
    return not name.startswith("_") or name in ("__init__", "__getitem__")

for _name, _value in list(vars(module).items()):
    if isinstance(_value, type) and not issubclass(_value, BaseException):
        for _attr, _member in list(vars(_value).items()):
            if _public(_attr) and callable(_member) and not isinstance(_member, (type, property)):
                setattr(_value, _attr, _wrap(_member, module.ArgumentTypeError))
    elif callable(_value) and not isinstance(_value, type) and not _name.startswith("_"):
        setattr(module, _name, _wrap(_value, module.ArgumentTypeError))
)",
                                                   "<ptxgen argument wrapper>", "exec");
  builtins.attr("exec")(code, scope);
  const py::object call_code = scope["_wrap"](scope["_public"], py::none()).attr("__code__");
  m.attr("_argument_wrapper_code") = call_code;
  wrapper_code = call_code.ptr();
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
  pyx::wrap_argument_errors(m); // last: over every function bound above
}
