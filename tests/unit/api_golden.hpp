#pragma once
// Shared by the C++ API's unit tests of corpus kernels (api_bulk, api_im2col, api_tensormap):
// a kernel built by KernelBuilder emits the golden PTX of the spec it transcribes (produced
// by `ptxgen golden`), and to_spec_toml writes it back to a spec that emits the same.

#include "driver/run/to_toml.hpp"
#include "emitter/api/api.hpp"
#include "spec_text.hpp"

#include <memory>
#include <string>

#include <doctest/doctest.h>

namespace ptxgen::api_golden {

/// `k` written back by to_spec_toml: a spec that loads and emits `ptx` for `target` again,
/// with k's expectations. Returns the kernel loaded from it.
inline std::unique_ptr<tile::Kernel> written_back(const api::KernelBuilder& k,
                                                  const std::string& ptx, ptx::Target target) {
  const std::string text = api::to_spec_toml(k.kernel());
  CAPTURE(text);
  auto again = spec_text::load(text, "written.toml");
  const api::EmitResult r = api::emit_contract_only(*again, target);
  REQUIRE(r.ok());
  CHECK(*r.ptx == ptx);
  CHECK(again->expectations.size() == k.kernel().expectations.size());
  return again;
}

/// Emits `k` for `target` (what the golden's header says its ops need) and compares it with
/// golden/`name`.ptx; then writes it back (written_back). Returns the spec written back.
inline std::string check_golden(const api::KernelBuilder& k, const std::string& name,
                                ptx::Target target) {
  const api::EmitResult r = api::emit_contract_only(k, target);
  REQUIRE_MESSAGE(r.ok(), (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
  CHECK(spec_text::without_comments(*r.ptx) == spec_text::golden_body(name));
  written_back(k, *r.ptx, target);
  return api::to_spec_toml(k.kernel());
}

} // namespace ptxgen::api_golden
