#include "driver/sim/simulator.hpp"

#include "driver/sim/ir.hpp"
#include "driver/sim/parser.hpp"
#include "emitter/support/enum_names.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>

namespace ptxgen::sim {

std::string_view name(FaultKind k) {
  static constexpr auto names = enum_names<FaultKind::trap>(
      "misaligned address", "illegal address", "race", "barrier divergence", "undefined behavior",
      "unsupported", "instruction limit", "invalid PTX", "invalid launch", "deadlock", "trap");
  return name_of(names, k);
}

std::string_view name(RaceKind k) {
  static constexpr auto names = enum_names<RaceKind::multicast_without_expect_tx>(
      "read before wait", "read in flight", "read after write", "write after read",
      "write after write", "pending copies", "write in flight", "refill before bulk read",
      "read before bulk write", "missing proxy fence", "bulk wait scope", "write before bulk write",
      "missing global proxy fence", "cross CTA", "cross CTA same value",
      "write after write same value", "write before wgmma read", "wgmma register in flight",
      "missing wgmma fence", "cross CTA shared", "cluster peer exit", "remote before init",
      "multicast without expect tx");
  return name_of(names, k);
}

FaultOrigin origin(FaultKind k) {
  switch (k) {
  case FaultKind::misaligned_address:
  case FaultKind::illegal_address:
  case FaultKind::race:
  case FaultKind::barrier_divergence:
  case FaultKind::undefined_behavior:
  case FaultKind::deadlock:
  case FaultKind::trap:
    return FaultOrigin::kernel;
  case FaultKind::unsupported:
  case FaultKind::instruction_limit:
    return FaultOrigin::simulator;
  case FaultKind::invalid_ptx:
  case FaultKind::invalid_launch:
    return FaultOrigin::caller;
  }
  unreachable("origin(): not a FaultKind value");
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

std::vector<UnsupportedLine> Program::unsupported(std::string_view entry) const {
  std::vector<UnsupportedLine> out;
  for (const auto& e : module_->entries) {
    if (e.name != entry)
      continue;
    for (const auto& d : e.problems)
      out.push_back({d.line, d.source_line, d.message});
    for (const auto& op : e.ops) {
      if (op.code == ir::Code::unsupported)
        out.push_back({op.line, e.texts[op.text], e.texts[static_cast<std::size_t>(op.n)]});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const UnsupportedLine& a, const UnsupportedLine& b) {
    return a.line < b.line;
  });
  return out;
}

std::vector<std::string> Program::entries() const {
  std::vector<std::string> out;
  for (const auto& e : module_->entries) {
    if (!e.from_func)
      out.push_back(e.name);
  }
  return out;
}

std::vector<std::string> Program::functions() const {
  std::vector<std::string> out;
  for (const auto& e : module_->entries) {
    if (e.from_func)
      out.push_back(e.name);
  }
  return out;
}

const ir::Entry* Program::find(std::string_view name) const {
  for (const auto& e : module_->entries) {
    if (e.name == name)
      return &e;
  }
  return nullptr;
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
    const auto& items = p.diagnostics.items();
    bool all_unsupported = std::all_of(items.begin(), items.end(), [](const Diagnostic& d) {
      return d.severity != Severity::error || d.id == DiagId::sim_unsupported_construct;
    });
    f.kind = all_unsupported ? FaultKind::unsupported : FaultKind::invalid_ptx;
    auto first_error = std::find_if(items.begin(), items.end(), [](const Diagnostic& d) {
      return d.severity == Severity::error;
    });
    if (first_error != items.end())
      f.ptx_line = first_error->line;
    f.message = p.diagnostics.format_all();
    r.fault = std::move(f);
    return r;
  }
  return run(*p, entry, launch, memory);
}

} // namespace ptxgen::sim
