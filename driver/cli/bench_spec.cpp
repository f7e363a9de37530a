#include "driver/cli/bench_spec.hpp"

#include "driver/run/binding.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/tensor_data.hpp"
#include "emitter/ptx/target.hpp"

namespace ptxgen::cli {

namespace {

/// The launch request of a spec's own kernel: its inputs' initial bytes, its parameters.
cuda::LaunchRequest spec_request(const std::string& spec, const tile::Kernel& k,
                                 ptx::Target run_target, std::vector<std::uint8_t> cubin) {
  std::vector<cuda::HostBuffer> buffers;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      buffers.push_back({t->tensor.name, driver::initial_bytes(*t)});
  cuda::LaunchRequest req =
      driver::launch_request(k, driver::own_binding(k, run_target), std::move(buffers));
  req.case_name = spec;
  req.cubin = std::move(cubin);
  return req;
}

} // namespace

SpecBench bench_spec(const std::string& spec, const cuda::BenchOptions& bench,
                     const std::string& target, const cuda::DeviceInfo& device,
                     const driver::PtxasLocation& ptxas, driver::DiagnosticsPrinter* printer) {
  SpecBench r{spec, {}, {}};
  const auto arch = ptx::Target::parse(device.arch());
  lower::LowerOptions lo;
  lo.target = target.empty() ? driver::emitted_target : *ptx::Target::parse(target);
  lo.raise_target = target.empty(); // as emit: sm_90 for the bulk copies without --target
  lo.run_target = arch;
  auto e = driver::emit_checked_spec(spec, lo); // refuses what check refuses
  if (!e.kernel || !e.ok()) {
    r.problem = e.diagnostics.format_all(); // the table's and the JSON's text
    if (printer && printer->format() != driver::DiagnosticsFormat::text)
      printer->print(e.diagnostics); // as data on standard error
    return r;
  }
  driver::AssembleOptions ao;
  ao.target = arch.value_or(lo.target);
  ao.verbose = false;
  auto as = driver::assemble(ptxas.path, e.ptx, ao);
  if (as.status != driver::AssembleResult::Status::ok) {
    r.problem = as.describe();
    return r;
  }
  r.outcome = cuda::run_bench(spec_request(spec, *e.kernel, ao.target, std::move(as.cubin)),
                              cuda::spec_bytes_moved(*e.kernel), bench);
  if (r.outcome.status != cuda::BenchOutcome::Status::ok)
    r.problem = r.outcome.message;
  return r;
}

} // namespace ptxgen::cli
