#pragma once
// Shared by the unit tests that write their kernels as spec text (bulk_contract,
// reference_async_model, mbarrier_spec, cuda_tensor_map_param): the tables every such
// kernel declares, each spelled once, and the loading of the text. Each function returns
// the TOML lines as the tests wrote them by hand, so a test's line:col stay where they were.
// Also the corpus-editing helpers of per_cta_proofs and pipeline_diagnostics, the reading of
// goldens (the api_* tests) and the contract's verdict on a text (multicast, warp_roles).

#include "driver/toml/reader_spec.hpp"
#include "emitter/ptx/target.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/kernel.hpp"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace ptxgen::spec_text {

/// [kernel] named `name`, of `grid` CTAs (no grid line when empty) of `block` threads.
inline std::string kernel(const std::string& name, const std::string& grid,
                          const std::string& block) {
  return "[kernel]\nname = \"" + name + "\"\n" + (grid.empty() ? "" : "grid = " + grid + "\n") +
         "block = " + block + "\n";
}

/// [tensor.NAME] with its space, shape and dtype, then the `more` lines (init, output,
/// align, swizzle).
inline std::string tensor(const std::string& name, const std::string& space,
                          const std::string& shape, const std::string& dtype,
                          const std::string& more = "") {
  return "\n[tensor." + name + "]\nspace = \"" + space + "\"\nshape = " + shape + "\ndtype = \"" +
         dtype + "\"\n" + more;
}

/// A shared tensor laid out with `swizzle` ("64B", "128B"), aligned to `align` bytes.
inline std::string swizzled(const std::string& name, const std::string& shape,
                            const std::string& dtype, const std::string& align,
                            const std::string& swizzle) {
  return tensor(name, "shared", shape, dtype,
                "align = " + align + "\nswizzle = \"" + swizzle + "\"\n");
}

/// [tensor.NAME.map]: boxes of `box`, swizzled when `swizzle` is given.
inline std::string map(const std::string& name, const std::string& box,
                       const std::string& swizzle = "") {
  return "\n[tensor." + name + ".map]\nbox = " + box + "\n" +
         (swizzle.empty() ? "" : "swizzle = \"" + swizzle + "\"\n");
}

/// [tensor.bar]: `n` mbarriers (uint64) in shared memory.
inline std::string barriers(const std::string& n = "1") {
  return tensor("bar", "shared", "[" + n + "]", "uint64");
}

/// The [[op]] that initialises bar[i] for `count` arrivals; the count line ends the text.
inline std::string mbarrier_init(const std::string& count, const std::string& i = "0") {
  return "\n[[op]]\nop = \"mbarrier_init\"\nbarrier = 'bar.sub[" + i + "]'\ncount = " + count;
}

/// The text loaded as a spec named `file`; the test fails with its diagnostics otherwise.
inline std::unique_ptr<tile::Kernel> load(const std::string& text, const std::string& file) {
  auto k = driver::load_spec_text(text, file);
  INFO(k.diagnostics.format_all());
  REQUIRE(k);
  return std::move(*k);
}

/// The text of `path` in the source tree (specs/x.toml, golden/x.ptx).
inline std::string source_file(const std::string& path) {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/" + path, std::ios::binary);
  INFO(path);
  REQUIRE(in.good());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The text of specs/`path`.
inline std::string corpus(const std::string& path) {
  return source_file("specs/" + path);
}

/// PTX without its `//` lines (they name the spec a golden came from).
inline std::string without_comments(const std::string& ptx) {
  std::istringstream in(ptx);
  std::string out, line;
  while (std::getline(in, line))
    if (line.rfind("//", 0) != 0)
      out += line + "\n";
  return out;
}

/// golden/`name`.ptx without its `//` lines.
inline std::string golden_body(const std::string& name) {
  return without_comments(source_file("golden/" + name + ".ptx"));
}

/// `text` with its one occurrence of `from` replaced by `to`.
inline std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  return text.replace(at, from.size(), to);
}

/// The diagnostics of `ds` with `id`, in order.
inline std::vector<Diagnostic> with_id(const Diagnostics& ds, DiagId id) {
  std::vector<Diagnostic> out;
  for (const Diagnostic& d : ds)
    if (d.id == id)
      out.push_back(d);
  return out;
}

/// The ids of the contract's errors for `text`, loaded, on `target`.
inline std::vector<DiagId> contract_errors(const std::string& text, ptx::Target target) {
  auto k = load(text, "k.toml");
  const Diagnostics ds = tile::check_contract(*k, target);
  INFO(ds.format_all());
  std::vector<DiagId> ids;
  for (const Diagnostic& d : ds)
    if (d.severity == Severity::error)
      ids.push_back(d.id);
  return ids;
}

/// The message of the contract's first diagnostic with `id` for `text` on `target` (empty
/// when there is none).
inline std::string contract_message(const std::string& text, DiagId id, ptx::Target target) {
  auto k = load(text, "k.toml");
  const auto found = with_id(tile::check_contract(*k, target), id);
  return found.empty() ? std::string() : found.front().message;
}

} // namespace ptxgen::spec_text
