// The module's argument conversions: every Python value a binding takes loosely (an int, an
// Expr or an int, an extent, a dtype) converted here, so that a wrong one raises
// ptxgen.ArgumentTypeError or ptxgen.ArgumentError naming the parameter, what it takes and
// what was given, never pybind11's "Unable to cast".

#include "emitter/tile/dtype.hpp"
#include "python/bindings.hpp"

#include <vector>

#include <pybind11/stl.h>

namespace ptxgen::python {

std::string type_name(const py::handle& o) {
  const py::handle t = py::type::handle_of(o);
  const std::string mod = py::str(t.attr("__module__"));
  const std::string name = py::str(t.attr("__qualname__"));
  return mod == "builtins" ? name : mod + "." + name;
}

namespace {

std::string given(const py::handle& o) {
  return type_name(o) + " " + std::string(py::repr(o));
}

bool is_int(const py::handle& o) {
  // bool is an int to Python, never a count or an index here.
  if (py::isinstance<py::bool_>(o))
    return false;
  return py::isinstance<py::int_>(o) || py::hasattr(o, "__index__");
}

} // namespace

std::int64_t int_of(const py::handle& o, const std::string& what, std::int64_t lo,
                    std::int64_t hi) {
  if (!is_int(o))
    throw ArgumentTypeError(what + " takes an int, not " + given(o));
  const py::int_ v = py::reinterpret_steal<py::int_>(PyNumber_Index(o.ptr()));
  if (!v)
    throw py::error_already_set();
  const py::int_ low(lo), high(hi);
  if (v < low || v > high)
    throw ArgumentError(what + " takes an int in " + std::to_string(lo) + ".." +
                        std::to_string(hi) + ", not " + std::string(py::str(py::handle(v))));
  return v.cast<std::int64_t>();
}

std::uint64_t uint_of(const py::handle& o, const std::string& what, std::uint64_t hi) {
  if (!is_int(o))
    throw ArgumentTypeError(what + " takes an int, not " + given(o));
  const py::int_ v = py::reinterpret_steal<py::int_>(PyNumber_Index(o.ptr()));
  if (!v)
    throw py::error_already_set();
  if (v < py::int_(0) || v > py::int_(hi))
    throw ArgumentError(what + " takes an int in 0.." + std::to_string(hi) + ", not " +
                        std::string(py::str(py::handle(v))));
  return v.cast<std::uint64_t>();
}

api::Expr expr_of(const py::handle& o, const std::string& what) {
  if (py::isinstance<api::Expr>(o))
    return o.cast<api::Expr>();
  if (is_int(o))
    return api::Expr(int_of(o, what));
  const bool loop = type_name(o) == "ptxgen.Loop";
  throw ArgumentTypeError(
      what + " takes a ptxgen.Expr or an int, not " + given(o) +
      (loop ? " (a loop's variable is what `with k.loop(...) as i:` binds)" : ""));
}

std::optional<api::Expr> opt_expr_of(const std::optional<IntoExpr>& o, const std::string& what) {
  if (!o || o->obj.is_none())
    return std::nullopt;
  return expr_of(*o, what);
}

tile::Dim3 dims_of(const py::handle& o, const std::string& what) {
  constexpr std::int64_t most = 0x7FFFFFFF;
  if (is_int(o))
    return tile::Dim3{int_of(o, what, 1, most), 1, 1};
  if (!py::isinstance<py::sequence>(o) || py::isinstance<py::str>(o))
    throw ArgumentTypeError(what + " takes an int or a tuple of 1 to 3 ints, not " + given(o));
  const auto items = py::reinterpret_borrow<py::sequence>(o);
  if (items.size() < 1 || items.size() > 3)
    throw ArgumentError(what + " takes an int or a tuple of 1 to 3 ints, not " +
                        std::to_string(items.size()) + " of them");
  std::int64_t v[3] = {1, 1, 1};
  for (std::size_t i = 0; i < items.size(); ++i)
    v[i] = int_of(items[i], what + "[" + std::to_string(i) + "]", 1, most);
  return tile::Dim3{v[0], v[1], v[2]};
}

api::DType dtype_of(const py::handle& o) {
  std::string text;
  if (py::isinstance<py::str>(o)) {
    text = py::str(o);
  } else {
    // numpy.float16, numpy.dtype("f2"): numpy's name is the spec's for the types both have.
    py::object np = py::module_::import("numpy");
    py::object d;
    try {
      d = np.attr("dtype")(o);
    } catch (const py::error_already_set&) {
      throw ArgumentTypeError("dtype takes a name, " + tile::dtype_choices() +
                              ", or a numpy dtype, not " + given(o));
    }
    if (d.attr("byteorder").cast<std::string>() == ">")
      throw ArgumentError("dtype " + std::string(py::str(d)) +
                          " is big-endian; ptxgen's tensors are little-endian");
    text = py::str(d.attr("name"));
  }
  if (auto d = tile::parse_dtype(text))
    return *d;
  throw ArgumentError("dtype takes " + tile::dtype_choices() + ", or a numpy dtype, not '" + text +
                      "'");
}

} // namespace ptxgen::python
