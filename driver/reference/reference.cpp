#include "driver/reference/reference.hpp"

#include "driver/reference/evaluator.hpp"

#include <utility>

namespace ptxgen::driver {

namespace {

/// The launch. `take`: where the caller's global bytes may be taken instead of copied
/// (nullptr: none).
ReferenceOutput launch(const ReferenceInput& in, ReferenceInput* take) {
  if (in.kernel == nullptr) {
    ReferenceOutput out;
    out.problems.push_back("kernel: no kernel given");
    out.problem_ops.push_back(ReferenceOutput::kernel_problem);
    out.findings.push_back(
        {DiagId::check_no_kernel, ReferenceOutput::kernel_problem, "no kernel given"});
    return out;
  }
  evaluation::Evaluator ev(in, take);
  return ev.run();
}

} // namespace

ReferenceOutput evaluate_reference(const ReferenceInput& in) {
  return launch(in, nullptr);
}

ReferenceOutput evaluate_reference(ReferenceInput&& in) {
  return launch(in, &in);
}

Diagnostics findings_as_diagnostics(const tile::Kernel& k, const ReferenceOutput& out) {
  Diagnostics ds;
  for (const ReferenceFinding& f : out.findings) {
    Diagnostic d(f.id,
                 (k.built_in_code ? "running the kernel's ops: " : "running the spec's ops: ") +
                     f.message,
                 f.severity);
    d.file = k.file;
    if (f.op != ReferenceOutput::kernel_problem && f.op < k.ops.size()) {
      const tile::SourcePos& pos = k.ops[f.op].pos;
      d.line = pos.line;
      d.column = pos.column;
      d.source_line = pos.source_line;
      if (!pos.file.empty()) {
        d.file = pos.file;
      }
    }
    ds.add(std::move(d));
  }
  return ds;
}

} // namespace ptxgen::driver
