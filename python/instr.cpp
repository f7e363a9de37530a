// ptxgen.instr: one cp.async instruction built and checked for a target (driver/run/instr.hpp),
// as `ptxgen instr` prints it.

#include "driver/run/instr.hpp"

#include "bindings.hpp"
#include "driver/run/spec_files.hpp"

#include <variant>

#include <pybind11/stl.h>

namespace ptxgen::python {

namespace {

std::string instr(const std::string& opcode, std::uint32_t chunk_bytes,
                  std::optional<std::variant<std::uint32_t, std::string>> src_size, bool ignore_src,
                  bool pred, bool cache_policy, const std::string& target,
                  std::optional<std::string> ptx_version) {
  driver::CpAsyncInstrRequest r;
  r.opcode = opcode;
  r.chunk_bytes = chunk_bytes;
  if (src_size) {
    r.src_size = true;
    if (const auto* imm = std::get_if<std::uint32_t>(&*src_size))
      r.src_size_imm = *imm;
    else if (std::get<std::string>(*src_size) != "reg")
      throw py::value_error("src_size takes a byte count or \"reg\"");
  }
  if (r.src_size && ignore_src)
    throw py::value_error("src_size and ignore_src exclude each other: a cp.async takes one "
                          "zero-fill operand at most");
  r.ignore_src = ignore_src;
  r.pred = pred;
  r.cache_policy = cache_policy;
  r.target = parse_target(target);
  if (ptx_version) {
    r.version = ptx::PtxVersion::parse(*ptx_version);
    if (!r.version)
      throw py::value_error("ptx_version expects X.Y (e.g. 7.8); got '" + *ptx_version + "'");
  }
  Diagnostics parse_errors;
  auto built = driver::build_cp_async_instr(r, parse_errors);
  if (!built)
    raise_error("instr", "the opcode does not parse", parse_errors);
  if (built->diagnostics.has_errors())
    raise_error("instr", "the instruction breaks the PTX rules for " + r.target.str(),
                built->diagnostics);
  return driver::instr_text(*built, r.target);
}

} // namespace

void bind_instr(py::module_& m) {
  m.def("instr", &instr, py::arg("opcode"), py::arg("chunk_bytes"),
        py::arg("src_size") = py::none(), py::arg("ignore_src") = false, py::arg("pred") = false,
        py::arg("cache_policy") = false, py::arg("target") = driver::emitted_target.str(),
        py::arg("ptx_version") = py::none(),
        "One cp.async instruction checked for the target, as `ptxgen instr` prints it "
        "(.version, .target, the instruction); ptxgen.Error(stage='instr') with the diagnostics "
        "when the PTX rules refuse it.");
}

} // namespace ptxgen::python
