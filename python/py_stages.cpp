// The Python module `ptxgen` (docs/python.md), part 2: the stages a kernel goes through:
// load, back to TOML, check, emit, ptxas, and runs on the simulator or the GPU against the
// reference with numpy arrays in and out. Long work releases the GIL; a stage that fails
// raises ptxgen.Error carrying the stage's name and its diagnostics.

#include "driver/api/driver.hpp"
#include "driver/ptxas/cubin_cache.hpp"
#include "driver/run/result_cache.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/to_toml.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/dtype.hpp"
#include "python/bindings.hpp"

#include <cstring>
#include <map>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace ptxgen::python {

namespace {

// The exception types, created once by bind_diagnostics (owned by the module).
PyObject* error_type = nullptr;
PyObject* no_device_type = nullptr;
PyObject* argument_type = nullptr;
PyObject* argument_type_type = nullptr;

/// Raises `type` (an ArgumentError or ArgumentTypeError) with stage "argument" and no
/// diagnostics: the call was refused before any stage ran.
void set_argument_error(PyObject* type, const char* message) {
  py::object e = py::reinterpret_borrow<py::object>(type)(message);
  e.attr("stage") = "argument";
  e.attr("diagnostics") = py::list();
  PyErr_SetObject(type, e.ptr());
}

std::string caret_text(const Diagnostic& d) {
  return format(d);
}

} // namespace

std::vector<Diagnostic> to_list(const Diagnostics& ds) {
  return std::vector<Diagnostic>(ds.begin(), ds.end());
}

void raise_error(const std::string& stage, const std::string& message, const Diagnostics& ds,
                 bool no_device) {
  PyObject* type = no_device ? no_device_type : error_type;
  std::string text = message;
  for (const Diagnostic& d : ds)
    if (d.severity == Severity::error)
      text += "\n" + caret_text(d);
  py::object e = py::reinterpret_borrow<py::object>(type)(text);
  e.attr("stage") = stage;
  e.attr("diagnostics") = py::cast(to_list(ds));
  PyErr_SetObject(type, e.ptr());
  throw py::error_already_set();
}

ptx::Target parse_target(const std::string& text) {
  if (auto t = ptx::Target::parse(text))
    return *t;
  throw ArgumentError("a target is 'sm_XX' or 'sm_XXa', not '" + text + "'");
}

void bind_diagnostics(py::module_& m) {
  py::class_<Diagnostic>(m, "Diagnostic", "A finding at a position, with its stable id.")
      .def_property_readonly(
          "id", [](const Diagnostic& d) { return std::string(name(d.id)); },
          "The stable name (switch on it, never on message).")
      .def_property_readonly(
          "severity", [](const Diagnostic& d) { return std::string(severity_name(d.severity)); },
          "'error', 'warning' or 'note'.")
      .def_readonly("message", &Diagnostic::message, "What was found, in words.")
      .def_readonly("file", &Diagnostic::file, "The file (the Python file of a builder call).")
      .def_readonly("line", &Diagnostic::line, "1-based; 0 when there is no position.")
      .def_readonly("column", &Diagnostic::column, "1-based, in bytes.")
      .def_readonly("source_line", &Diagnostic::source_line, "The text of the line.")
      .def_property_readonly(
          "caret",
          [](const Diagnostic& d) { return std::make_pair(d.column, d.column + d.length); },
          "The underlined columns (end exclusive).")
      .def("__str__", &caret_text, "The compiler-style text with the source line and caret.")
      .def(
          "__repr__",
          [](const Diagnostic& d) {
            return "<ptxgen.Diagnostic " + std::string(name(d.id)) + " at " + d.file + ":" +
                   std::to_string(d.line) + ":" + std::to_string(d.column) + ">";
          },
          "<ptxgen.Diagnostic id at file:line:column>");
  error_type = PyErr_NewExceptionWithDoc(
      "ptxgen.Error",
      "A stage refused or failed: .stage names it, .diagnostics says why (ptxgen.Diagnostic).",
      PyExc_Exception, nullptr);
  no_device_type = PyErr_NewExceptionWithDoc("ptxgen.NoDeviceError",
                                             "A GPU run was asked for where there is no GPU.",
                                             error_type, nullptr);
  const py::tuple value_bases =
      py::make_tuple(py::handle(error_type), py::handle(PyExc_ValueError));
  argument_type = PyErr_NewExceptionWithDoc(
      "ptxgen.ArgumentError",
      "An argument of a wrong value (a ptxgen.Error and a ValueError): the message names the "
      "parameter, what it takes and what was given.",
      value_bases.ptr(), nullptr);
  const py::tuple type_bases = py::make_tuple(py::handle(error_type), py::handle(PyExc_TypeError));
  argument_type_type = PyErr_NewExceptionWithDoc(
      "ptxgen.ArgumentTypeError",
      "An argument of a wrong type (a ptxgen.Error and a TypeError), or an expression asked "
      "for a truth value.",
      type_bases.ptr(), nullptr);
  m.attr("Error") = py::handle(error_type);
  m.attr("NoDeviceError") = py::handle(no_device_type);
  m.attr("ArgumentError") = py::handle(argument_type);
  m.attr("ArgumentTypeError") = py::handle(argument_type_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const ArgumentError& e) {
      set_argument_error(argument_type, e.what());
    } catch (const ArgumentTypeError& e) {
      set_argument_error(argument_type_type, e.what());
    }
  });
}

namespace {

/// The numpy dtype of a tensor's elements: numpy spells the typed ones as tile::name() does;
/// bfloat16 and the untyped views as the unsigned integers of their width (numpy has no
/// bfloat16).
py::dtype numpy_dtype(tile::DType t) {
  using D = tile::DType;
  const bool as_bits = t == D::bfloat16 || t == D::b8 || t == D::b16 || t == D::b32 || t == D::b64;
  return py::dtype(as_bits ? "uint" + std::to_string(8 * tile::size_bytes(t))
                           : std::string(tile::name(t)));
}

const tile::TensorDecl* global_tensor(const tile::Kernel& k, const std::string& name) {
  const tile::TensorDecl* t = k.find_tensor(name);
  return t && t->tensor.space == tile::Space::global ? t : nullptr;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

/// A numpy array's bytes for global tensor `t`: its shape and dtype must be the tensor's,
/// little-endian (as every tensor's bytes are).
std::vector<std::uint8_t> input_bytes(const tile::TensorDecl& t, const py::handle& value) {
  const py::dtype want = numpy_dtype(t.tensor.dtype);
  const std::string what = "run's " + t.tensor.name;
  const std::string want_name = py::str(want.attr("str"));
  if (!py::isinstance<py::array>(value))
    throw ArgumentTypeError(what + " takes a numpy array of shape " + shape_text(t.tensor.shape) +
                            " and dtype " + want_name + ", not " + type_name(value));
  const py::array given = py::reinterpret_borrow<py::array>(value);
  const std::string given_name = py::str(given.dtype().attr("str"));
  if (given.dtype().attr("byteorder").cast<std::string>() == ">")
    throw ArgumentError(what + ": byte order " + given_name + ", need little-endian " + want_name +
                        " (numpy: a.astype('" + want_name + "'))");
  if (!given.dtype().is(want) && !given.dtype().equal(want))
    throw ArgumentTypeError(what + " holds " + std::string(name(t.tensor.dtype)) + " (numpy " +
                            std::string(py::str(want.attr("name"))) + "), not " +
                            std::string(py::str(given.dtype().attr("name"))));
  std::vector<std::int64_t> shape(given.shape(), given.shape() + given.ndim());
  if (shape != t.tensor.shape)
    throw ArgumentError(what + " has shape " + shape_text(t.tensor.shape) + ", not the array's " +
                        shape_text(shape));
  const py::array a = py::array::ensure(value, py::array::c_style);
  const auto* p = static_cast<const std::uint8_t*>(a.data());
  return std::vector<std::uint8_t>(p, p + a.nbytes());
}

py::array output_array(const tile::TensorDecl& t, const std::vector<std::uint8_t>& bytes) {
  py::array a(numpy_dtype(t.tensor.dtype), t.tensor.shape);
  if (static_cast<std::size_t>(a.nbytes()) == bytes.size())
    std::memcpy(a.mutable_data(), bytes.data(), bytes.size());
  return a;
}

std::map<std::string, py::array> arrays(const tile::Kernel& k,
                                        const std::map<std::string, std::vector<std::uint8_t>>& m) {
  std::map<std::string, py::array> out;
  for (const auto& [name, bytes] : m)
    if (const tile::TensorDecl* t = global_tensor(k, name))
      out[py::str(name)] = output_array(*t, bytes);
  return out;
}

/// What Kernel.run returns.
struct RunResult {
  std::string status; ///< "pass", "mismatch", "fault", "invalid", "unsupported"
  std::string stage;  ///< where a status other than pass was decided
  std::string detail;
  std::string backend;
  std::map<std::string, py::array> outputs;   ///< the backend's final global tensors
  std::map<std::string, py::array> reference; ///< the reference's
  std::vector<Diagnostic> hazards;            ///< the reference's and the simulator's findings
  std::optional<std::string> race;
  std::map<std::string, double> timings; ///< milliseconds per stage
  bool passed() const { return status == "pass"; }
};

/// No target: sm_80, raised to what the kernel's ops need (sm_90 for bulk copies), as
/// `ptxgen emit` without --target.
api::EmitOptions emit_options(const std::optional<std::string>& target,
                              const std::optional<std::string>& version) {
  api::EmitOptions o;
  o.target = target ? parse_target(*target) : driver::emitted_target;
  o.raise_target = !target;
  if (version) {
    o.version = ptx::PtxVersion::parse(*version);
    if (!o.version)
      throw ArgumentError("a PTX version is 'X.Y', not '" + *version + "'");
  }
  return o;
}

/// `ptxgen emit` of the kernel (api::emit_checked: the whole of `ptxgen check`, cached).
api::EmitResult emit_kernel(const PyKernel& k, const api::EmitOptions& o) {
  py::gil_scoped_release unlocked;
  return k.built() ? api::emit_checked(*k.built(), o) : api::emit_checked(k.kernel(), o);
}

/// `ptxgen check` of the kernel: every diagnostic, the range proof's notes included.
Diagnostics check_kernel(const PyKernel& k, const api::EmitOptions& o) {
  py::gil_scoped_release unlocked;
  return k.built() ? api::check(*k.built(), o) : api::check(k.kernel(), o);
}

/// The emitted PTX, or ptxgen.Error(stage="emit") with every diagnostic.
std::string emit_or_raise(const PyKernel& k, const api::EmitOptions& o) {
  api::EmitResult r = emit_kernel(k, o);
  if (!r.ptx)
    raise_error("emit", "the kernel '" + k.kernel().name + "' was refused", r.diagnostics);
  return *r.ptx;
}

api::AssembleOutput assemble_text(const std::string& ptx, const std::string& target,
                                  const std::optional<std::string>& ptxas) {
  api::AssembleOptions o;
  o.ptxas = ptxas.value_or("");
  api::AssembleOutput out;
  const ptx::Target t = parse_target(target);
  {
    py::gil_scoped_release unlocked;
    out = api::assemble(ptx, t, o);
  }
  if (!out.cubin) {
    const bool missing =
        !out.diagnostics.empty() && out.diagnostics.front().id == DiagId::run_ptxas_unavailable;
    raise_error("ptxas", missing ? "ptxas could not run" : "ptxas rejected the PTX",
                out.diagnostics);
  }
  return out;
}

using Bytes = std::map<std::string, std::vector<std::uint8_t>>;

/// Splits run()'s keyword arguments into tensor inputs and parameter values.
Bytes run_inputs(PyKernel& k, const py::kwargs& kw) {
  Bytes inputs;
  for (const auto& [key, value] : kw) {
    const std::string name = py::str(key);
    if (const tile::TensorDecl* t = global_tensor(k.kernel(), name)) {
      inputs[name] = input_bytes(*t, value);
      continue;
    }
    const tile::ScalarParam* p = k.kernel().find_param(name);
    if (!p)
      throw ArgumentTypeError("run() got an unexpected keyword '" + name +
                              "': the kernel has no global tensor or parameter of that name");
    const std::uint64_t most = p->is_u64 ? ~std::uint64_t{0} : 0xFFFFFFFFu;
    if (auto d = k.set_param(name, uint_of(value, "run's parameter " + name, most)))
      raise_error("setup", d->message, Diagnostics({*d}));
  }
  return inputs;
}

/// The stages whose failure is an exception rather than a result: the case never ran.
bool raises(const api::CaseResult& c) {
  using Stage = api::CaseResult::Stage;
  using Status = api::CaseResult::Status;
  if (c.status == Status::invalid)
    return c.stage == Stage::emit;
  return c.status == Status::error && c.stage != Stage::reference;
}

RunResult to_result(const tile::Kernel& k, const api::CaseResult& c, const Bytes& outputs,
                    const Bytes& reference, const std::string& backend) {
  RunResult r;
  r.status = std::string(name(c.status));
  r.stage = std::string(name(c.stage));
  r.detail = c.detail;
  r.backend = backend;
  r.outputs = arrays(k, outputs);
  r.reference = arrays(k, reference);
  for (const Diagnostic& d : c.diagnostics)
    r.hazards.push_back(d);
  if (c.sim_race)
    r.race = c.detail;
  r.timings["emit_ms"] = c.emit_ms;
  r.timings["ptxas_ms"] = c.ptxas_ms;
  r.timings["reference_ms"] = c.reference_ms;
  r.timings["load_ms"] = c.load_ms;
  r.timings["launch_ms"] = c.launch_ms;
  r.timings["compare_ms"] = c.compare_ms;
  r.timings["proof_ms"] = c.proof_ms;
  return r;
}

RunResult run(PyKernel& k, const std::string& backend, const std::optional<std::string>& target,
              const std::optional<std::string>& ptxas, const py::kwargs& kw) {
  api::Backend b = api::Backend::sim;
  if (backend == "cuda" || backend == "gpu")
    b = api::Backend::cuda;
  else if (backend != "sim")
    throw ArgumentError("backend is 'sim' or 'cuda', not '" + backend + "'");
  const Bytes inputs = run_inputs(k, kw);
  if (k.built() && k.own_diagnostics().has_errors())
    raise_error("emit", "the kernel '" + k.kernel().name + "' was refused", k.own_diagnostics());
  driver::ConformanceOptions o;
  o.backend = b;
  o.ptxas = ptxas.value_or("");
  o.jobs = 1;
  if (target)
    o.target = parse_target(*target);
  Bytes outputs, reference;
  driver::ConformanceCase c{
      k.kernel().file.empty() ? k.kernel().name : k.kernel().file, {}, &k.kernel()};
  c.inputs = &inputs;
  c.outputs = &outputs;
  c.reference_outputs = &reference;
  driver::ConformanceReport report;
  {
    py::gil_scoped_release unlocked;
    report = driver::run_conformance(std::vector<driver::ConformanceCase>{c}, o, {});
  }
  using Setup = driver::ConformanceReport::Setup;
  if (report.setup == Setup::no_gpu)
    raise_error("setup", "no GPU: " + report.backend_description, {}, true);
  if (report.setup != Setup::ready || report.cases.empty())
    raise_error("setup", report.backend_description, {});
  const api::CaseResult& result = report.cases.front();
  if (raises(result)) {
    const std::string stage(name(result.stage));
    // The detail repeats the diagnostics, which the exception's text lists once.
    raise_error(stage,
                result.diagnostics.has_errors() ? "the " + stage + " stage stopped the run"
                                                : result.detail,
                result.diagnostics);
  }
  return to_result(k.kernel(), result, outputs, reference, report.backend_description);
}

std::unique_ptr<PyKernel> loaded_or_raise(Result<std::unique_ptr<tile::Kernel>> r) {
  if (!r)
    raise_error("load", "the spec did not load", r.diagnostics);
  return std::make_unique<PyKernel>(std::move(*r));
}

void bind_results(py::module_& m) {
  py::class_<RunResult>(m, "RunResult", "A run's outcome, outputs, hazards and timings.")
      .def_readonly("status", &RunResult::status,
                    "'pass', 'mismatch', 'fault', 'invalid' or 'unsupported'.")
      .def_readonly("stage", &RunResult::stage, "Where a status other than pass was decided.")
      .def_readonly("detail", &RunResult::detail, "Why, in words.")
      .def_readonly("backend", &RunResult::backend, "The backend that ran it.")
      .def_readonly("outputs", &RunResult::outputs, "The backend's global tensors by name.")
      .def_readonly("reference", &RunResult::reference, "The reference's global tensors.")
      .def_readonly("hazards", &RunResult::hazards, "The findings (ptxgen.Diagnostic).")
      .def_readonly("race", &RunResult::race, "The simulator's race, or None.")
      .def_readonly("timings", &RunResult::timings, "Milliseconds per stage.")
      .def_property_readonly("passed", &RunResult::passed, "status == 'pass'.")
      .def(
          "__repr__",
          [](const RunResult& r) {
            return "<ptxgen.RunResult " + r.status + (r.passed() ? "" : " at " + r.stage) + ">";
          },
          "<ptxgen.RunResult status>");
  py::class_<api::ResourceUsage>(m, "ResourceUsage", "ptxas -v's figures for one entry.")
      .def_readonly("entry", &api::ResourceUsage::entry, "The entry's name.")
      .def_readonly("registers", &api::ResourceUsage::registers, "Registers per thread.")
      .def_readonly("shared_bytes", &api::ResourceUsage::shared_bytes, "Static shared bytes.")
      .def_readonly("stack_bytes", &api::ResourceUsage::stack_bytes, "Stack frame bytes.")
      .def_readonly("spill_stores", &api::ResourceUsage::spill_stores, "Spill store bytes.")
      .def_readonly("spill_loads", &api::ResourceUsage::spill_loads, "Spill load bytes.")
      .def(
          "__repr__",
          [](const api::ResourceUsage& u) {
            return "<ptxgen.ResourceUsage " + u.entry +
                   " registers=" + std::to_string(u.registers) +
                   " shared_bytes=" + std::to_string(u.shared_bytes) +
                   " stack_bytes=" + std::to_string(u.stack_bytes) +
                   " spills=" + std::to_string(u.spill_stores) + "/" +
                   std::to_string(u.spill_loads) + ">";
          },
          "<ptxgen.ResourceUsage entry registers=.. shared_bytes=.. ...>");
}

} // namespace

void bind_stages(py::module_& m, py::class_<PyKernel>& k) {
  bind_results(m);
  // ptxas's results in memory, as the proofs and the PTX are (driver/run/result_cache.hpp):
  // a second run() of an unchanged kernel starts no ptxas.
  driver::set_process_memory_cache(true);
  m.def(
      "load",
      [](const std::string& path) {
        Result<std::unique_ptr<tile::Kernel>> r;
        {
          py::gil_scoped_release unlocked;
          r = driver::load_spec_file(path);
        }
        return loaded_or_raise(std::move(r));
      },
      py::arg("path"), "A kernel from a spec file.");
  m.def(
      "loads",
      [](const std::string& text, const std::string& name) {
        return loaded_or_raise(driver::load_spec_text(text, name));
      },
      py::arg("text"), py::arg("name") = "<string>", "A kernel from spec text.");
  m.def(
      "cache_info",
      [] {
        const driver::ResultCacheCounters r = driver::result_cache_counters();
        const driver::CacheCounters c = driver::process_cache_counters();
        py::dict d;
        d["proof_hits"] = r.proof_hits;
        d["proof_misses"] = r.proof_misses;
        d["lower_hits"] = r.lower_hits;
        d["lower_misses"] = r.lower_misses;
        d["cubin_hits"] = c.hits;
        d["cubin_misses"] = c.misses;
        return d;
      },
      "This process's cache counters: the range proofs and lowerings (by the kernel's "
      "content, options and target) and the cubins (by PTX, target and ptxas version).");
  m.def(
      "clear_cache",
      [] {
        driver::clear_result_cache();
        driver::set_process_memory_cache(false); // empties it
        driver::set_process_memory_cache(true);
      },
      "Forgets the cached range proofs, lowerings and cubins (for measuring a cold run).");
  m.def(
      "assemble",
      [](const std::string& ptx, const std::string& target, std::optional<std::string> ptxas) {
        auto out = assemble_text(ptx, target, ptxas);
        return py::bytes(reinterpret_cast<const char*>(out.cubin->data()), out.cubin->size());
      },
      py::arg("ptx"), py::arg("target") = "sm_80", py::arg("ptxas") = py::none(),
      "The cubin ptxas makes of the PTX; ptxgen.Error(stage='ptxas') when it refuses.");
  m.def(
      "resource_usage",
      [](const std::string& ptx, const std::string& target, std::optional<std::string> ptxas) {
        return assemble_text(ptx, target, ptxas).usage;
      },
      py::arg("ptx"), py::arg("target") = "sm_80", py::arg("ptxas") = py::none(),
      "ptxas -v's registers and bytes per entry.");
  k.def(
      "diagnostics", [](const PyKernel& self) { return to_list(self.own_diagnostics()); },
      "The builder's findings so far.");
  k.def(
      "to_toml", [](const PyKernel& self) { return api::to_spec_toml(self.kernel()); },
      "The kernel as a spec file's text (ptxgen.loads reads it back).");
  k.def(
      "check",
      [](const PyKernel& self, const std::optional<std::string>& target) {
        return to_list(check_kernel(self, emit_options(target, std::nullopt)));
      },
      py::arg("target") = py::none(),
      "Every diagnostic `ptxgen check` gives for `target` (errors, warnings and notes: the "
      "contract, the range proofs, the whole-launch hazards, the mbarrier walk and the "
      "expectations), raising nothing; default: sm_80, or what the kernel's ops need. "
      "Cached by the kernel's content.");
  k.def(
      "emit",
      [](const PyKernel& self, const std::optional<std::string>& target,
         std::optional<std::string> version) {
        return emit_or_raise(self, emit_options(target, version));
      },
      py::arg("target") = py::none(), py::arg("ptx_version") = py::none(),
      "The kernel's PTX; ptxgen.Error(stage='emit') with every diagnostic when check() finds "
      "an error (nothing emits what check refuses); "
      "default target: sm_80, or what the kernel's ops need (a comment line says so).");
  k.def("run", &run, py::arg("backend") = "sim", py::arg("target") = py::none(),
        py::arg("ptxas") = py::none(),
        "Runs the kernel against the reference; keyword arguments give global tensors "
        "(numpy arrays) and parameter values.");
}

} // namespace ptxgen::python
