#include "driver/sim/simulator.hpp"

#include "driver/sim/ir.hpp"
#include "driver/sim/parser.hpp"

namespace ptxgen::sim {

std::string_view name(FaultKind k) {
  switch (k) {
  case FaultKind::misaligned_address:
    return "misaligned address";
  case FaultKind::illegal_address:
    return "illegal address";
  case FaultKind::race:
    return "race";
  case FaultKind::barrier_divergence:
    return "barrier divergence";
  case FaultKind::unsupported:
    return "unsupported";
  case FaultKind::invalid_ptx:
    return "invalid PTX";
  case FaultKind::undefined_behavior:
    return "undefined behavior";
  }
  return "fault";
}

ptxgen::Result<Program> Program::parse(std::string_view ptx_text) {
  auto m = parse_module(ptx_text);
  if (!m)
    return ptxgen::Result<Program>::failure(std::move(m.diagnostics));
  Program p;
  p.module_ = std::move(*m.value);
  auto r = ptxgen::Result<Program>::success(std::move(p));
  r.diagnostics = std::move(m.diagnostics);
  return r;
}

std::vector<std::string> Program::entries() const {
  std::vector<std::string> out;
  for (const auto& e : module_->entries)
    out.push_back(e.name);
  return out;
}

const std::string& Program::version() const {
  return module_->version;
}
const std::string& Program::target() const {
  return module_->target;
}

SimResult run(std::string_view ptx_text, std::string_view entry, const Launch& launch,
              std::vector<GlobalBuffer>& memory) {
  auto p = Program::parse(ptx_text);
  if (!p) {
    SimResult r;
    Fault f;
    f.kind = FaultKind::invalid_ptx;
    const auto& items = p.diagnostics.items();
    if (!items.empty())
      f.ptx_line = items.front().line;
    f.message = std::string(name(f.kind)) + ": " + p.diagnostics.format_all();
    r.fault = std::move(f);
    return r;
  }
  return run(*p, entry, launch, memory);
}

} // namespace ptxgen::sim
