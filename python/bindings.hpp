#pragma once
// What the module's two translation units share (docs/python.md): the kernel object
// Python holds, the caller's position for diagnostics, and the one exception type.

#include "emitter/api/api.hpp"

#include <memory>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

namespace ptxgen::python {

namespace py = pybind11;

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
std::optional<api::TensorMap> map_of(const py::object& map);

/// Where the Python code that called into the module is: its file and line, so that
/// diagnostics and the reference's findings point at the generator's own lines.
api::Pos caller_pos();

/// Diagnostics as a Python list of ptxgen.Diagnostic.
py::list to_list(const Diagnostics& ds);

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
/// stages.cpp: load, to_toml, check, emit, ptxas and the runs.
void bind_stages(py::module_& m, py::class_<PyKernel>& k);
/// lint.cpp: lint of foreign PTX.
void bind_lint(py::module_& m);
/// bulk.cpp: tensor maps and the sm_90 bulk-copy ops.
void bind_bulk(py::module_& m, py::class_<PyKernel>& k);
/// instr.cpp: single instructions (cp.async and the bulk-copy family).
void bind_instr(py::module_& m);

} // namespace ptxgen::python
