// The simulator runs the CTAs of a launch on several host threads (Launch::workers) and must
// give what one after the other gives: the same instruction count, fault (kind, CTA, thread,
// line, message), warnings and, when nothing faults, global bytes, on the multi-CTA specs of the
// corpus, on a launch whose instruction limit runs out in a middle CTA, and on one where several
// CTAs fault (the first CTA's fault is the launch's).

#include "driver/run/binding.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/sim/simulator.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_parallel {

namespace {

using namespace ptxgen;
namespace fs = std::filesystem;

struct Outcome {
  std::map<std::string, std::vector<std::uint8_t>> bytes;
  sim::SimResult result;
};

/// Runs spec `e`'s PTX on the simulator with `workers` host threads.
Outcome run_spec(const driver::EmittedSpec& e, const sim::Program& program, unsigned workers,
                 std::uint64_t max_instructions) {
  const tile::Kernel& k = *e.kernel;
  const driver::Binding binding = driver::own_binding(k);
  Outcome o;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      o.bytes[t->tensor.name] = driver::initial_bytes(*t);
  std::vector<sim::GlobalBuffer> memory;
  std::map<std::string, std::uint64_t> address;
  std::uint64_t next = 0x10'0000'0000ull;
  for (auto& [name, b] : o.bytes) {
    address[name] = next;
    memory.push_back({next, &b, name});
    next += (b.size() + (2u << 20)) & ~((std::uint64_t{1} << 20) - 1);
  }
  sim::Launch launch;
  launch.grid_dim = {static_cast<std::uint32_t>(k.grid_dim.x),
                     static_cast<std::uint32_t>(k.grid_dim.y),
                     static_cast<std::uint32_t>(k.grid_dim.z)};
  launch.block_dim = {static_cast<std::uint32_t>(k.block_dim.x),
                      static_cast<std::uint32_t>(k.block_dim.y),
                      static_cast<std::uint32_t>(k.block_dim.z)};
  launch.dynamic_shared_bytes = binding.dynamic_shared_bytes;
  launch.workers = workers;
  launch.max_instructions = max_instructions;
  for (const auto& b : binding.params)
    launch.params.push_back(b.kind == lower::ParamBinding::Kind::tensor
                                ? address.at(b.name)
                                : k.find_param(b.name)->value);
  o.result = sim::run(program, binding.entry, launch, memory);
  return o;
}

void check_same(const Outcome& a, const Outcome& b, const std::string& what) {
  CAPTURE(what);
  if (!a.result.fault)
    CHECK(a.bytes == b.bytes); // after a fault, CTAs after the faulting one may have run

  CHECK(a.result.instructions_executed == b.result.instructions_executed);
  CHECK(a.result.warnings == b.result.warnings);
  REQUIRE(a.result.fault.has_value() == b.result.fault.has_value());
  if (a.result.fault) {
    CHECK(a.result.fault->kind == b.result.fault->kind);
    CHECK(a.result.fault->bid == b.result.fault->bid);
    CHECK(a.result.fault->tid == b.result.fault->tid);
    CHECK(a.result.fault->ptx_line == b.result.fault->ptx_line);
    CHECK(a.result.fault->message == b.result.fault->message);
  }
}

std::vector<fs::path> multi_cta_specs() {
  std::vector<fs::path> specs;
  for (const char* dir : {"multi_cta", "launch", "pipeline", "large"}) {
    auto found = driver::expand_spec_arguments({PTXGEN_SOURCE_DIR "/specs/" + std::string(dir)});
    REQUIRE_MESSAGE(found, found.error());
    specs.insert(specs.end(), found->begin(), found->end());
  }
  return specs;
}

} // namespace

TEST_CASE("sim: CTAs on several host threads == one after the other, multi-CTA specs") {
  std::size_t compared = 0;
  for (const fs::path& spec : multi_cta_specs()) {
    if (spec.filename() == "copy_1024x1024_f32.toml")
      continue; // seconds under the sanitizers; the benchmark's smoke runs it
    const driver::EmittedSpec e = driver::emit_spec(spec, lower::LowerOptions{});
    REQUIRE_MESSAGE(e.ok(), spec.string() << "\n" << e.diagnostics.format_all());
    if (e.kernel->grid < 2)
      continue;
    auto program = sim::Program::parse(e.ptx);
    REQUIRE(program);
    const Outcome one = run_spec(e, *program.value, 1, 200'000'000);
    CHECK_MESSAGE(!one.result.fault, spec.string());
    for (unsigned workers : {2u, 3u, 8u})
      check_same(one, run_spec(e, *program.value, workers, 200'000'000),
                 spec.string() + " workers " + std::to_string(workers));
    ++compared;
  }
  CHECK(compared >= 8);
}

TEST_CASE("sim: an instruction limit that runs out in a middle CTA faults where one at a time "
          "does") {
  const driver::EmittedSpec e =
      driver::emit_spec(PTXGEN_SOURCE_DIR "/specs/multi_cta/bid_rows.toml", lower::LowerOptions{});
  REQUIRE(e.ok());
  REQUIRE(e.kernel->grid >= 3);
  auto program = sim::Program::parse(e.ptx);
  REQUIRE(program);
  const std::uint64_t total =
      run_spec(e, *program.value, 1, 200'000'000).result.instructions_executed;
  for (std::uint64_t limit : {total / 2, total / 2 + 1, total - 1, total / 3}) {
    const Outcome one = run_spec(e, *program.value, 1, limit);
    REQUIRE(one.result.fault);
    CHECK(one.result.fault->kind == sim::FaultKind::instruction_limit);
    CHECK(one.result.fault->bid > 0); // a middle CTA: those before it ran to their end
    for (unsigned workers : {2u, 4u})
      check_same(one, run_spec(e, *program.value, workers, limit),
                 "limit " + std::to_string(limit) + " workers " + std::to_string(workers));
  }
  // At exactly the total, nothing faults either way.
  check_same(run_spec(e, *program.value, 1, total), run_spec(e, *program.value, 4, total),
             "limit = total");
}

TEST_CASE("sim: of several CTAs that fault, the first one's fault is the launch's") {
  // CTAs 3, 5, 7, ... trap (bid odd and > 1); CTA 1 and the even ones return.
  const char* ptx = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry k()
{
  .reg .b32 %r<3>;
  .reg .pred %p<3>;
  mov.u32 %r1, %ctaid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  setp.gt.u32 %p2, %r1, 1;
  and.pred %p1, %p1, %p2;
  @%p1 trap;
  ret;
}
)";
  auto program = sim::Program::parse(ptx);
  REQUIRE_MESSAGE(program, program.diagnostics.format_all());
  sim::Launch launch;
  launch.grid_dim = {16, 1, 1};
  launch.block_dim = {32, 1, 1};
  std::vector<sim::GlobalBuffer> memory;
  launch.workers = 1;
  const sim::SimResult one = sim::run(*program.value, "k", launch, memory);
  REQUIRE(one.fault);
  CHECK(one.fault->kind == sim::FaultKind::trap);
  CHECK(one.fault->bid == 3);
  for (unsigned workers : {2u, 5u, 16u}) {
    launch.workers = workers;
    const sim::SimResult many = sim::run(*program.value, "k", launch, memory);
    REQUIRE(many.fault);
    CHECK(many.fault->bid == 3);
    CHECK(many.fault->message == one.fault->message);
    CHECK(many.instructions_executed == one.instructions_executed);
  }
}

} // namespace unit_sim_parallel
