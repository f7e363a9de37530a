#pragma once
// What the module's two translation units share (docs/python.md): the kernel object
// Python holds, the caller's position for diagnostics, and the one exception type.

#include "emitter/api/api.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace ptxgen::python {

namespace py = pybind11;

/// Thrown for an argument of the right type but a wrong value: ptxgen.ArgumentError, a
/// ptxgen.Error and a ValueError. The message names the parameter, what it takes and what
/// was given.
struct ArgumentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Thrown for an argument of a wrong type: ptxgen.ArgumentTypeError, a ptxgen.Error and a
/// TypeError.
struct ArgumentTypeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A type's name in a signature, as a template argument (Loose<"IntoExpr">).
template <std::size_t N>
struct TypeName {
  // Implicit: a string literal is the template argument.
  constexpr TypeName(const char (&s)[N]) { std::copy_n(s, N, text); }
  char text[N]{};
};

/// An argument taken as any Python object and converted in the function's body, so that a
/// wrong one raises ptxgen.ArgumentTypeError naming the parameter rather than pybind11's
/// "incompatible function arguments"; `Name` is its type in the signature (and so in the
/// generated stubs).
template <TypeName Name>
struct Loose {
  py::object obj;
};
/// An Expr or an int (numpy integers too).
using IntoExpr = Loose<"IntoExpr">;
/// A launch extent: an int or a sequence of 1 to 3 ints.
using Extent = Loose<"Extent">;
/// A dtype: its spec name ("float16"), a numpy dtype or a numpy scalar type.
using DTypeLike = Loose<"DTypeLike">;
/// An int (or anything with __index__), converted with its range checked.
using Int = Loose<"int">;
/// A tensor's shape: a sequence of ints.
using Shape = Loose<"Sequence[int]">;
/// A tensor copy's coordinates: a sequence of Exprs or ints.
using Coords = Loose<"Sequence[IntoExpr]">;
/// global_tensor's map: None, a TensorMap or a dict of its keywords.
using MapArg = Loose<"Union[TensorMap, dict[str, Any], None]">;
/// An operator's result: an Expr, or NotImplemented for an operand that is no Expr or int
/// (so that Python tries the other operand's method, then raises its own TypeError).
using ExprOrNotImplemented = Loose<"Expr">;
/// A view's shape as a result: a tuple of ints, or None.
using ShapeOrNone = Loose<"Optional[Tuple[int, ...]]">;

/// The Python type's name of `o`, for messages ("float", "str", "ptxgen.Loop").
std::string type_name(const py::handle& o);
/// `o` as an int in [lo, hi]; ArgumentTypeError for a non-int, ArgumentError outside.
std::int64_t int_of(const py::handle& o, const std::string& what, std::int64_t lo = INT64_MIN,
                    std::int64_t hi = INT64_MAX);
inline std::int64_t int_of(const Int& o, const std::string& what, std::int64_t lo = INT64_MIN,
                           std::int64_t hi = INT64_MAX) {
  return int_of(o.obj, what, lo, hi);
}
/// `o` as an unsigned int at most `hi`.
std::uint64_t uint_of(const py::handle& o, const std::string& what, std::uint64_t hi);
/// An Expr from an Expr or an int.
api::Expr expr_of(const py::handle& o, const std::string& what);
inline api::Expr expr_of(const IntoExpr& o, const std::string& what) {
  return expr_of(o.obj, what);
}
std::optional<api::Expr> opt_expr_of(const std::optional<IntoExpr>& o, const std::string& what);
/// A launch extent.
tile::Dim3 dims_of(const py::handle& o, const std::string& what);
/// A dtype from its spec name, a numpy dtype or a numpy scalar type.
api::DType dtype_of(const py::handle& o);

/// A kernel as Python holds it: built by calls (a KernelBuilder) or loaded from a spec.
class PyKernel {
public:
  explicit PyKernel(std::unique_ptr<api::KernelBuilder> b) : builder_(std::move(b)) {}
  explicit PyKernel(std::unique_ptr<tile::Kernel> k) : loaded_(std::move(k)) {}

  const tile::Kernel& kernel() const { return builder_ ? builder_->kernel() : *loaded_; }
  /// The builder; a TypeError for a kernel loaded from a spec (it is complete).
  api::KernelBuilder& builder();
  /// The builder, or null for a loaded kernel.
  const api::KernelBuilder* built() const { return builder_.get(); }
  /// The builder's own diagnostics; none for a loaded kernel (the loader refused in error).
  Diagnostics own_diagnostics() const;
  /// Sets a parameter's test value for the next runs; the error when it cannot.
  std::optional<Diagnostic> set_param(const std::string& name, std::uint64_t value);

private:
  std::unique_ptr<api::KernelBuilder> builder_;
  std::unique_ptr<tile::Kernel> loaded_;
};

/// An L2 cache policy as Python holds it (a class, not the variant's own conversion).
struct CachePolicy {
  tile::CachePolicy policy;
};

/// A shared tensor's or a tensor map's swizzle from its spelling ("128B"); a ValueError else.
api::TensorMapSwizzle swizzle_of(const std::string& text);
/// global_tensor's `map`: None, a ptxgen.TensorMap, or a dict of TensorMap's keywords.
std::optional<api::TensorMap> map_of(const MapArg& map);

/// Where the Python code that called into the module is: its file and line, so that
/// diagnostics and the reference's findings point at the generator's own lines.
api::Pos caller_pos();

/// `call` moved onto the view string `text` where the source line spells it (quoted) after
/// the call's column, so that a position inside the string lands on its character there.
api::Pos string_pos(const api::Pos& call, const std::string& text);

/// Diagnostics as a list of ptxgen.Diagnostic (a Python list once returned).
std::vector<Diagnostic> to_list(const Diagnostics& ds);

/// Raises ptxgen.Error (or its subclass NoDeviceError when `no_device`) with `stage`
/// ("load", "emit", "ptxas", "setup", ...) and the diagnostics that say why.
[[noreturn]] void raise_error(const std::string& stage, const std::string& message,
                              const Diagnostics& ds, bool no_device = false);

/// The target named by a string ("sm_90a"); a ValueError for anything else.
ptx::Target parse_target(const std::string& text);

/// stages.cpp: ptxgen.Diagnostic and the exceptions.
void bind_diagnostics(py::module_& m);
/// module.cpp: expressions, views and the kernel builder's calls.
void bind_builder(py::module_& m, py::class_<PyKernel>& k);
/// kernel.cpp: ptxgen.Kernel's construction, repr, pickling and builder calls.
void bind_kernel(py::module_& m, py::class_<PyKernel>& k);
/// stages.cpp: load, to_toml, check, emit, ptxas and the runs.
void bind_stages(py::module_& m, py::class_<PyKernel>& k);
/// lint.cpp: lint of foreign PTX.
void bind_lint(py::module_& m);
/// bulk.cpp: tensor maps and the sm_90 bulk-copy ops.
void bind_bulk(py::module_& m, py::class_<PyKernel>& k);
/// instr.cpp: single instructions (cp.async and the bulk-copy family).
void bind_instr(py::module_& m);
/// module.cpp: pybind11's own refusals of an argument's type as ptxgen.ArgumentTypeError.
void wrap_argument_errors(py::module_& m);

} // namespace ptxgen::python

namespace pybind11::detail {
/// Loads any object (None included: the binding's std::optional sees None first).
template <ptxgen::python::TypeName Name>
struct type_caster<ptxgen::python::Loose<Name>> {
  PYBIND11_TYPE_CASTER(ptxgen::python::Loose<Name>, const_name(Name.text));
  bool load(handle src, bool) {
    value.obj = reinterpret_borrow<object>(src);
    return true;
  }
  static handle cast(const ptxgen::python::Loose<Name>& v, return_value_policy, handle) {
    return v.obj.inc_ref();
  }
};
} // namespace pybind11::detail
