// ptxgen.lint: foreign PTX on the simulator with no spec (driver/lint/lint.hpp, docs/lint.md),
// its findings and coverage as Python objects.

#include "bindings.hpp"
#include "driver/lint/lint.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <pybind11/stl.h>

namespace ptxgen::python {

namespace {

/// A launch extent: an int (x) or a sequence of up to three ints.
sim::Dim3 to_dim3(const py::handle& value, const char* what) {
  const tile::Dim3 t = dims_of(value, what);
  return sim::Dim3{static_cast<std::uint32_t>(t.x), static_cast<std::uint32_t>(t.y),
                   static_cast<std::uint32_t>(t.z)};
}

/// `args`: {name: int} sets a scalar, {name: "f32[128,32]"} sizes a pointer (or describes a
/// tensor map), as `--arg` does, by type: no value goes back through `NAME=VALUE` text.
std::vector<lint::ArgValue> to_args(const py::dict& args) {
  std::vector<lint::ArgValue> out;
  for (const auto& [key, value] : args) {
    std::string name = py::str(key);
    if (!py::isinstance<py::int_>(value) && !py::isinstance<py::str>(value))
      throw ArgumentTypeError("args[" + name +
                              "] takes an int (a scalar) or a str such as "
                              "'f32[128,32]' (a pointer), not " +
                              type_name(value));
    if (py::isinstance<py::int_>(value)) { // a negative one: its two's complement, as --arg's
      const std::string what = "args[" + name + "]";
      const std::uint64_t v = value.cast<py::int_>() < py::int_(0)
                                  ? static_cast<std::uint64_t>(int_of(value, what))
                                  : uint_of(value, what, UINT64_MAX);
      out.push_back(lint::scalar_arg(name, v));
      continue;
    }
    auto arg = lint::memory_arg(name, value.cast<std::string>());
    if (!arg)
      throw ArgumentError("args[" + name + "]: " + arg.error());
    out.push_back(std::move(*arg));
  }
  return out;
}

/// The PTX and the name findings are reported under. Decided by type, never by whether a
/// file happens to exist: an os.PathLike (pathlib.Path) or a str without a newline is a
/// path (PTX text always has several lines); any other str is PTX text.
std::pair<std::string, std::string> ptx_source(const py::object& ptx) {
  std::string path;
  if (py::isinstance<py::str>(ptx)) {
    const std::string text = ptx.cast<std::string>();
    if (text.find('\n') != std::string::npos)
      return {text, "<string>"};
    path = text;
  } else if (py::hasattr(ptx, "__fspath__")) {
    path = py::str(py::module_::import("os").attr("fspath")(ptx));
  } else {
    throw ArgumentTypeError("lint's ptx takes PTX text (a str of several lines) or a path (a "
                            "pathlib.Path, or a str of one line), not " +
                            type_name(ptx));
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || std::filesystem::is_directory(path))
    raise_error("lint",
                "cannot read the PTX file " + path +
                    " (lint's ptx of one line is a path; PTX text has several lines)",
                {});
  return {text.str(), path};
}

py::list lint_ptx(const py::object& ptx, std::optional<std::string> entry,
                  const std::optional<Extent>& grid, const std::optional<Extent>& block,
                  std::optional<py::dict> args, const Int& seeds, std::optional<std::string> arch) {
  lint::Options o;
  o.entry = std::move(entry);
  if (grid && !grid->obj.is_none())
    o.grid = to_dim3(grid->obj, "grid");
  if (block && !block->obj.is_none())
    o.block = to_dim3(block->obj, "block");
  if (args)
    o.args = to_args(*args);
  o.seeds = static_cast<unsigned>(int_of(seeds, "seeds", 1, 0xFFFFFFFF));
  o.arch = arch.value_or("");
  auto [text, file] = ptx_source(ptx);
  std::vector<lint::LintFile> read;
  read.push_back(lint::read_ptx(text, file, o));
  if (auto why = lint::unmatched_args(read, o))
    throw ArgumentError(*why); // before anything runs
  std::vector<lint::KernelReport> kernels;
  {
    py::gil_scoped_release unlocked;
    kernels = lint::lint_file(read.front(), o);
  }
  py::list out;
  for (auto& k : kernels)
    out.append(py::cast(std::move(k)));
  return out;
}

void bind_lint_types(py::module_& m) {
  py::class_<lint::Finding>(m, "LintFinding", "One hazard (or fault) lint met.")
      .def_property_readonly(
          "rule", [](const lint::Finding& f) { return lint::rule_id(f); },
          "The SARIF rule id (race.read-before-wait, ...).")
      .def_property_readonly(
          "kind", [](const lint::Finding& f) { return lint::kind_text(f); }, "The kind, in words.")
      .def_readonly("message", &lint::Finding::message, "What was found.")
      .def_readonly("line", &lint::Finding::line, "The PTX line of the access.")
      .def_readonly("other_line", &lint::Finding::other_line,
                    "The PTX line of the conflicting access.")
      .def_readonly("block", &lint::Finding::bid, "The CTA.")
      .def_readonly("thread", &lint::Finding::tid, "The thread.")
      .def_readonly("other_thread", &lint::Finding::other_tid, "The other thread.")
      .def_readonly("iteration", &lint::Finding::iteration, "The loop iteration.")
      .def_readonly("other_iteration", &lint::Finding::other_iteration,
                    "The other access's iteration.")
      .def_readonly("symbol", &lint::Finding::symbol, "The memory symbol.")
      .def_readonly("offset", &lint::Finding::offset, "The byte offset in it.")
      .def_readonly("hits", &lint::Finding::hits, "How many times it was met.")
      .def_readonly("seed", &lint::Finding::seed, "The seed of the run that met it.")
      .def(
          "__repr__",
          [](const lint::Finding& f) {
            return "<ptxgen.LintFinding " + lint::rule_id(f) + " line " + std::to_string(f.line) +
                   ">";
          },
          "<ptxgen.LintFinding rule line N>");
  py::class_<lint::Coverage>(m, "LintCoverage", "What the runs executed.")
      .def_readonly("threads", &lint::Coverage::threads, "Threads run.")
      .def_readonly("instructions", &lint::Coverage::instructions, "Instructions executed.")
      .def_readonly("async_copies", &lint::Coverage::async_copies, "Async copies executed.")
      .def_readonly("commits", &lint::Coverage::commits, "Commits executed.")
      .def_readonly("waits", &lint::Coverage::waits, "Waits executed.")
      .def_readonly("barriers", &lint::Coverage::barriers, "Barriers executed.")
      .def_readonly("lines", &lint::Coverage::lines, "Instruction lines in the entry.")
      .def_readonly("lines_run", &lint::Coverage::lines_run, "Of them, those run.")
      .def_readonly("runs", &lint::Coverage::runs, "Runs (seeds).")
      .def_readonly("races_unlisted", &lint::Coverage::races_unlisted,
                    "Race meetings past the distinct races a run keeps (0: every race listed).")
      .def(
          "__repr__",
          [](const lint::Coverage& c) {
            return "<ptxgen.LintCoverage lines_run=" + std::to_string(c.lines_run) + "/" +
                   std::to_string(c.lines) + " threads=" + std::to_string(c.threads) +
                   " instructions=" + std::to_string(c.instructions) +
                   " async_copies=" + std::to_string(c.async_copies) +
                   " runs=" + std::to_string(c.runs) + ">";
          },
          "<ptxgen.LintCoverage lines_run=../.. threads=.. ...>");
  py::class_<lint::KernelReport>(m, "LintReport", "One entry's lint: findings and coverage.")
      .def_readonly("file", &lint::KernelReport::file, "The file ('<string>' for text).")
      .def_readonly("name", &lint::KernelReport::name, "The entry's name.")
      .def_readonly("grid", &lint::KernelReport::grid, "The grid it ran with.")
      .def_readonly("block", &lint::KernelReport::block, "The block it ran with.")
      .def_property_readonly(
          "status", [](const lint::KernelReport& k) { return std::string(status_name(k.status)); },
          "'clean', 'findings', 'unsupported', 'error' or 'usage'.")
      .def_readonly("findings", &lint::KernelReport::findings, "The findings (ptxgen.LintFinding).")
      .def_readonly("coverage", &lint::KernelReport::coverage,
                    "What the runs executed (ptxgen.LintCoverage).")
      .def_readonly("error", &lint::KernelReport::error, "Why it did not run.")
      .def(
          "__repr__",
          [](const lint::KernelReport& k) {
            return "<ptxgen.LintReport " + k.name + " " + std::string(status_name(k.status)) + ">";
          },
          "<ptxgen.LintReport entry status>");
}

} // namespace

void bind_lint(py::module_& m) {
  bind_lint_types(m);
  m.def("lint", &lint_ptx, py::arg("ptx"), py::arg("entry") = py::none(),
        py::arg("grid") = py::none(), py::arg("block") = py::none(), py::arg("args") = py::none(),
        py::arg("seeds") = 1, py::arg("arch") = py::none(),
        "Runs the entries of foreign PTX on the simulator with no spec: one ptxgen.LintReport "
        "per entry with its findings and coverage. `ptx` is PTX text (a str of several lines) "
        "or a path (a pathlib.Path, or a str of one line).");
}

} // namespace ptxgen::python
