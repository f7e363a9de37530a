// ptxgen.lint: foreign PTX on the simulator with no spec (driver/lint/lint.hpp, docs/lint.md),
// its findings and coverage as Python objects.

#include "driver/lint/lint.hpp"

#include "bindings.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <pybind11/stl.h>

namespace ptxgen::python {

namespace {

/// A launch extent: an int (x) or a sequence of up to three ints.
sim::Dim3 to_dim3(const py::handle& value, const char* what) {
  sim::Dim3 d{1, 1, 1};
  if (py::isinstance<py::int_>(value)) {
    d[0] = value.cast<std::uint32_t>();
    return d;
  }
  auto items = value.cast<std::vector<std::uint32_t>>();
  if (items.empty() || items.size() > 3)
    throw py::value_error(std::string(what) + " takes an int or one to three ints");
  for (std::size_t i = 0; i < items.size(); ++i)
    d[i] = items[i];
  return d;
}

/// `args`: {name: int} sets a scalar, {name: "f32[128,32]"} sizes a pointer, as `--arg` does.
std::vector<lint::ArgValue> to_args(const py::dict& args) {
  std::vector<lint::ArgValue> out;
  for (const auto& [key, value] : args) {
    std::string name = py::str(key);
    std::string text = py::isinstance<py::int_>(value) ? std::to_string(value.cast<std::int64_t>())
                                                       : value.cast<std::string>();
    std::string error;
    auto arg = lint::parse_arg(name + "=" + text, error);
    if (!arg)
      throw py::value_error("args[" + name + "]: " + error);
    out.push_back(std::move(*arg));
  }
  return out;
}

/// The PTX and the name findings are reported under: a path's text when `ptx` names a file.
std::pair<std::string, std::string> ptx_source(const std::string& ptx) {
  if (ptx.find('\n') != std::string::npos || !std::filesystem::is_regular_file(ptx))
    return {ptx, "<string>"};
  std::ifstream in(ptx, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in)
    raise_error("lint", "cannot read " + ptx, {});
  return {text.str(), ptx};
}

py::list lint_ptx(const std::string& ptx, std::optional<std::string> entry, py::object grid,
                  py::object block, std::optional<py::dict> args, unsigned seeds,
                  std::optional<std::string> arch) {
  lint::Options o;
  o.entry = std::move(entry);
  if (!grid.is_none())
    o.grid = to_dim3(grid, "grid");
  if (!block.is_none())
    o.block = to_dim3(block, "block");
  if (args)
    o.args = to_args(*args);
  if (seeds == 0)
    throw py::value_error("seeds must be at least 1");
  o.seeds = seeds;
  o.arch = arch.value_or("");
  auto [text, file] = ptx_source(ptx);
  std::vector<lint::KernelReport> kernels;
  {
    py::gil_scoped_release unlocked;
    kernels = lint::lint_text(text, file, o);
  }
  if (auto why = lint::unmatched_args(kernels, o))
    throw py::value_error(*why);
  py::list out;
  for (auto& k : kernels)
    out.append(py::cast(std::move(k)));
  return out;
}

void bind_lint_types(py::module_& m) {
  py::class_<lint::Finding>(m, "LintFinding", "One hazard (or fault) lint met.")
      .def_property_readonly("rule", [](const lint::Finding& f) { return lint::rule_id(f); })
      .def_property_readonly("kind", [](const lint::Finding& f) { return lint::kind_text(f); })
      .def_readonly("message", &lint::Finding::message)
      .def_readonly("line", &lint::Finding::line)
      .def_readonly("other_line", &lint::Finding::other_line)
      .def_readonly("block", &lint::Finding::bid)
      .def_readonly("thread", &lint::Finding::tid)
      .def_readonly("other_thread", &lint::Finding::other_tid)
      .def_readonly("iteration", &lint::Finding::iteration)
      .def_readonly("other_iteration", &lint::Finding::other_iteration)
      .def_readonly("symbol", &lint::Finding::symbol)
      .def_readonly("offset", &lint::Finding::offset)
      .def_readonly("hits", &lint::Finding::hits)
      .def_readonly("seed", &lint::Finding::seed)
      .def("__repr__", [](const lint::Finding& f) {
        return "<ptxgen.LintFinding " + lint::rule_id(f) + " line " + std::to_string(f.line) + ">";
      });
  py::class_<lint::Coverage>(m, "LintCoverage", "What the runs executed.")
      .def_readonly("threads", &lint::Coverage::threads)
      .def_readonly("instructions", &lint::Coverage::instructions)
      .def_readonly("async_copies", &lint::Coverage::async_copies)
      .def_readonly("commits", &lint::Coverage::commits)
      .def_readonly("waits", &lint::Coverage::waits)
      .def_readonly("barriers", &lint::Coverage::barriers)
      .def_readonly("lines", &lint::Coverage::lines)
      .def_readonly("lines_run", &lint::Coverage::lines_run)
      .def_readonly("runs", &lint::Coverage::runs);
  py::class_<lint::KernelReport>(m, "LintReport", "One entry's lint: findings and coverage.")
      .def_readonly("file", &lint::KernelReport::file)
      .def_readonly("name", &lint::KernelReport::name)
      .def_readonly("grid", &lint::KernelReport::grid)
      .def_readonly("block", &lint::KernelReport::block)
      .def_property_readonly(
          "status", [](const lint::KernelReport& k) { return std::string(status_name(k.status)); })
      .def_readonly("findings", &lint::KernelReport::findings)
      .def_readonly("coverage", &lint::KernelReport::coverage)
      .def_readonly("error", &lint::KernelReport::error)
      .def("__repr__", [](const lint::KernelReport& k) {
        return "<ptxgen.LintReport " + k.name + " " + std::string(status_name(k.status)) + ">";
      });
}

} // namespace

void bind_lint(py::module_& m) {
  bind_lint_types(m);
  m.def("lint", &lint_ptx, py::arg("ptx"), py::arg("entry") = py::none(),
        py::arg("grid") = py::none(), py::arg("block") = py::none(), py::arg("args") = py::none(),
        py::arg("seeds") = 1, py::arg("arch") = py::none(),
        "Runs the entries of foreign PTX (text, or a path) on the simulator with no spec: one "
        "ptxgen.LintReport per entry with its findings and coverage.");
}

} // namespace ptxgen::python
