#include "emitter/lower/lower.hpp"

#include "emitter/lower/lowerer.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/tile/contract.hpp"

namespace ptxgen::lower {

namespace {

/// `given`, with the target raised to tile::min_target(k) where `raise_target` asks for it.
LowerOptions with_raised_target(const tile::Kernel& k, const LowerOptions& given) {
  LowerOptions o = given;
  if (const ptx::Target t = lowered_target(k, given); t != o.target) {
    o.target = t;
    o.header_comments.push_back("For " + o.target.str() + ": the kernel's " +
                                (k.cluster ? "cluster launch needs it." : "ops need it."));
  }
  return o;
}

} // namespace

ptx::Target lowered_target(const tile::Kernel& k, const LowerOptions& options) {
  return options.raise_target && options.target < tile::min_target(k) ? tile::min_target(k)
                                                                      : options.target;
}

Result<ptx::Module> lower(const tile::Kernel& k, const LowerOptions& given) {
  const LowerOptions options = with_raised_target(k, given);
  Diagnostics ds = options.unchecked
                       ? Diagnostics{}
                       : tile::check_contract(k, options.run_target.value_or(options.target));
  // The PTX's target, not the run's: the simulator runs what a raised target needs, and a GPU
  // older than sm_90 refuses the module as it refuses the bulk copies'.
  if (k.cluster && options.target.sm < 90)
    ds.add(tile::diagnostic_at(DiagId::contract_cluster_target, k.cluster->pos,
                               "a cluster launch needs sm_90 or newer; the PTX's target is " +
                                   options.target.str()));
  if (ds.has_errors())
    return Result<ptx::Module>::failure(std::move(ds));
  ptx::Module m = impl::Lowerer(k, options).run();
  Diagnostics valid = ptx::validate(m);
  // Errors here come from the target or PTX version the options ask for, or
  // from a gap in the contract: reported at the kernel rather than printed as
  // bad PTX. `--unchecked` emits it anyway: one warning, the findings as notes.
  const bool emit_anyway = options.unchecked && valid.has_errors();
  if (emit_anyway) {
    Diagnostic w(DiagId::lower_unchecked_invalid_ptx,
                 "--unchecked: emitting PTX that breaks the PTX rules in the notes below",
                 Severity::warning);
    w.file = k.file;
    ds.add(std::move(w));
  }
  for (auto d : valid.items()) {
    if (d.file.empty())
      d.file = k.file;
    if (emit_anyway)
      d.severity = Severity::note;
    ds.add(std::move(d));
  }
  if (ds.has_errors())
    return Result<ptx::Module>::failure(std::move(ds));
  Result<ptx::Module> r;
  r.value = std::move(m);
  r.diagnostics = std::move(ds); // warnings, if any
  return r;
}

} // namespace ptxgen::lower
