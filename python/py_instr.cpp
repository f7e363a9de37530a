// ptxgen.instr: one instruction built and checked for a target, as `ptxgen instr` prints it:
// a cp.async (driver/run/instr.hpp) or one of the sm_90 bulk-copy family
// (driver/run/instr_bulk.hpp), told apart by the opcode's mnemonic as the command does.

#include "bindings.hpp"
#include "driver/run/instr.hpp"
#include "driver/run/instr_bulk.hpp"
#include "driver/run/spec_files.hpp"

#include <variant>

#include <pybind11/stl.h>

namespace ptxgen::python {

namespace {

/// A byte count as Python gives it: an integer, or "reg" for a register.
using PyCount = std::variant<std::int64_t, std::string>;

/// The cp.async options; the bulk family's are refused before this.
struct CpAsyncArgs {
  std::optional<std::uint32_t> chunk_bytes;
  std::optional<std::variant<std::uint32_t, std::string>> src_size;
  bool ignore_src = false;
};

/// The bulk family's options; cp.async's are refused before this.
struct BulkArgs {
  std::optional<PyCount> size, tx_count;
  std::optional<std::int64_t> groups;
  std::optional<std::size_t> coords;
  bool sink = false;
};

/// What both families take.
struct CommonArgs {
  bool pred = false;
  bool cache_policy = false;
  std::optional<std::string> target;
  std::optional<std::string> ptx_version;
};

std::optional<ptx::PtxVersion> parse_version(const std::optional<std::string>& text) {
  if (!text)
    return std::nullopt;
  std::optional<ptx::PtxVersion> v = ptx::PtxVersion::parse(*text);
  if (!v)
    throw ArgumentError("ptx_version expects X.Y (e.g. 7.8); got '" + *text + "'");
  return v;
}

std::string instr_cp_async(const std::string& opcode, const CpAsyncArgs& a, const CommonArgs& c) {
  if (!a.chunk_bytes)
    throw ArgumentError("chunk_bytes is required: the copy width is never inferred; give 4, 8 "
                        "or 16 (`.cg` copies exactly 16)");
  driver::CpAsyncInstrRequest r;
  r.opcode = opcode;
  r.chunk_bytes = *a.chunk_bytes;
  if (a.src_size) {
    r.src_size = true;
    if (const auto* imm = std::get_if<std::uint32_t>(&*a.src_size))
      r.src_size_imm = *imm;
    else if (std::get<std::string>(*a.src_size) != "reg")
      throw ArgumentError("src_size takes a byte count or \"reg\"");
  }
  if (r.src_size && a.ignore_src)
    throw ArgumentError("src_size and ignore_src exclude each other: a cp.async takes one "
                        "zero-fill operand at most");
  r.ignore_src = a.ignore_src;
  r.pred = c.pred;
  r.cache_policy = c.cache_policy;
  r.target = c.target ? parse_target(*c.target) : driver::emitted_target;
  r.version = parse_version(c.ptx_version);
  Diagnostics parse_errors;
  auto built = driver::build_cp_async_instr(r, parse_errors);
  if (!built)
    raise_error("instr", "the opcode does not parse", parse_errors);
  if (built->diagnostics.has_errors())
    raise_error("instr", "the instruction breaks the PTX rules for " + r.target.str(),
                built->diagnostics);
  return driver::instr_text(*built, r.target);
}

std::optional<driver::BulkCount> bulk_count(const char* name, const std::optional<PyCount>& c) {
  if (!c)
    return std::nullopt;
  if (const auto* imm = std::get_if<std::int64_t>(&*c))
    return driver::BulkCount{*imm};
  if (std::get<std::string>(*c) != "reg")
    throw ArgumentError(std::string(name) + " takes a byte count or \"reg\"");
  return driver::BulkCount{};
}

std::string instr_bulk(const std::string& opcode, const BulkArgs& a, const CommonArgs& c) {
  driver::BulkInstrRequest r;
  r.opcode = opcode;
  r.size = bulk_count("size", a.size);
  r.tx_count = bulk_count("tx_count", a.tx_count);
  r.groups = a.groups.value_or(0);
  r.coords = a.coords;
  r.sink = a.sink;
  r.pred = c.pred;
  r.cache_policy = c.cache_policy;
  r.target = c.target ? parse_target(*c.target) : driver::bulk_default_target;
  r.version = parse_version(c.ptx_version);
  Diagnostics parse_errors;
  std::optional<ptx::BulkKind> form = driver::parse_bulk_form(opcode, parse_errors);
  if (!form)
    raise_error("instr", "the opcode does not parse", parse_errors);
  if (auto problem = driver::bulk_option_problem(*form, driver::options_given(r)))
    throw ArgumentError(driver::bulk_option_message(*problem, driver::OptionSpelling::python));
  const driver::BulkInstr built = driver::build_bulk_instr(std::move(*form), r);
  if (built.diagnostics.has_errors())
    raise_error("instr", "the instruction breaks the PTX rules for " + r.target.str(),
                built.diagnostics);
  return driver::instr_text(built, r.target);
}

/// cp.async.commit_group, .wait_group (N from `groups`) and .wait_all: no copy option.
std::string instr_group(const std::string& opcode, const CpAsyncArgs& cp, const BulkArgs& b,
                        const CommonArgs& c) {
  const std::pair<bool, const char*> copy_only[] = {{cp.chunk_bytes.has_value(), "chunk_bytes"},
                                                    {cp.src_size.has_value(), "src_size"},
                                                    {cp.ignore_src, "ignore_src"},
                                                    {c.pred, "pred"},
                                                    {c.cache_policy, "cache_policy"},
                                                    {b.size.has_value(), "size"},
                                                    {b.tx_count.has_value(), "tx_count"},
                                                    {b.coords.has_value(), "coords"},
                                                    {b.sink, "sink"}};
  for (const auto& [given, name] : copy_only)
    if (given)
      throw ArgumentError(std::string(name) + " is not for " + opcode + ", which moves no bytes");
  driver::CpAsyncGroupRequest r;
  r.opcode = opcode;
  r.groups = b.groups;
  r.target = c.target ? parse_target(*c.target) : driver::emitted_target;
  r.version = parse_version(c.ptx_version);
  auto built = driver::build_cp_async_group_instr(r);
  if (const auto* problem = std::get_if<std::string>(&built))
    throw ArgumentError(*problem);
  const driver::CpAsyncInstr& i = std::get<driver::CpAsyncInstr>(built);
  if (i.diagnostics.has_errors())
    raise_error("instr", "the instruction breaks the PTX rules for " + r.target.str(),
                i.diagnostics);
  return driver::instr_text(i, r.target);
}

/// Refuses the first option given that belongs to the other family.
void refuse_other_family(bool bulk, const CpAsyncArgs& cp, const BulkArgs& b) {
  if (bulk) {
    if (cp.chunk_bytes || cp.src_size)
      throw ArgumentError(std::string(cp.chunk_bytes ? "chunk_bytes" : "src_size") +
                          " is for cp.async; a bulk copy takes size");
    if (cp.ignore_src)
      throw ArgumentError("ignore_src is for cp.async");
    return;
  }
  const std::pair<bool, const char*> bulk_only[] = {{b.size.has_value(), "size"},
                                                    {b.tx_count.has_value(), "tx_count"},
                                                    {b.groups.has_value(), "groups"},
                                                    {b.coords.has_value(), "coords"},
                                                    {b.sink, "sink"}};
  for (const auto& [given, name] : bulk_only)
    if (given)
      throw ArgumentError(std::string(name) +
                          " is for the bulk-copy family; cp.async takes chunk_bytes");
}

std::string instr(const std::string& opcode, std::optional<std::uint32_t> chunk_bytes,
                  std::optional<std::variant<std::uint32_t, std::string>> src_size, bool ignore_src,
                  bool pred, bool cache_policy, std::optional<std::string> target,
                  std::optional<std::string> ptx_version, std::optional<PyCount> size,
                  std::optional<PyCount> tx_count, std::optional<std::int64_t> groups,
                  std::optional<std::size_t> coords, bool sink) {
  const CpAsyncArgs cp{chunk_bytes, std::move(src_size), ignore_src};
  const BulkArgs b{std::move(size), std::move(tx_count), groups, coords, sink};
  const CommonArgs c{pred, cache_policy, std::move(target), std::move(ptx_version)};
  if (driver::is_cp_async_group_opcode(opcode))
    return instr_group(opcode, cp, b, c);
  const bool bulk = driver::is_bulk_opcode(opcode);
  refuse_other_family(bulk, cp, b);
  return bulk ? instr_bulk(opcode, b, c) : instr_cp_async(opcode, cp, c);
}

} // namespace

void bind_instr(py::module_& m) {
  // The pybind11 docstring must outlive the module: a static string.
  static const std::string doc =
      "One instruction checked for the target, as `ptxgen instr` prints it (.version, .target, "
      "the instruction): a cp.async (chunk_bytes, src_size, ignore_src; target " +
      driver::emitted_target.str() +
      " unless given) or one of the bulk-copy family (size, tx_count, groups, coords, sink; "
      "target " +
      driver::bulk_default_target.str() +
      " unless given), told apart by the opcode; cp.async.commit_group, cp.async.wait_group (N "
      "from groups) and cp.async.wait_all take none of a copy's options. "
      "ptxgen.Error(stage='instr') with the "
      "diagnostics when the opcode does not parse or the PTX rules refuse it; ValueError for "
      "an option the form does not take.";
  m.def("instr", &instr, py::arg("opcode"), py::arg("chunk_bytes") = py::none(),
        py::arg("src_size") = py::none(), py::arg("ignore_src") = false, py::arg("pred") = false,
        py::arg("cache_policy") = false, py::arg("target") = py::none(),
        py::arg("ptx_version") = py::none(), py::kw_only(), py::arg("size") = py::none(),
        py::arg("tx_count") = py::none(), py::arg("groups") = py::none(),
        py::arg("coords") = py::none(), py::arg("sink") = false, doc.c_str());
}

} // namespace ptxgen::python
