// The loop lowering (emitter/lower/select_loops.cpp and the loop passes): what an expert's loop
// looks like, checked on the PTX of the specs in tests/data/lower_loops/
// (which sim.lower_loops runs against the reference): nothing invariant and
// no division inside a loop body, addresses advanced by adds, unroll copies.

#include "emitter/ptx/instruction.hpp"
#include "lower_harness.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

namespace ptxgen::unit_lower_loops {
namespace {

namespace fs = std::filesystem;
using namespace ptx;

const fs::path kLoopSpecs = fs::path(PTXGEN_SOURCE_DIR) / "tests/data/lower_loops";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<Instruction> lowered(const std::string& spec_file) {
  auto m = lower_test::lower_text(read(kLoopSpecs / spec_file));
  INFO(spec_file << ": " << m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  return m->entries.front().body;
}

/// Marks the instructions inside some loop: from a label to a branch back to it.
std::vector<bool> in_loop(const std::vector<Instruction>& body) {
  std::vector<bool> inside(body.size(), false);
  for (std::size_t j = 0; j < body.size(); ++j) {
    const auto* bra = std::get_if<Bra>(&body[j].body);
    if (!bra)
      continue;
    for (std::size_t i = 0; i < j; ++i) {
      const auto* label = std::get_if<Label>(&body[i].body);
      if (label && label->name == bra->target)
        for (std::size_t k = i; k <= j; ++k)
          inside[k] = true;
    }
  }
  return inside;
}

/// The loop-body instructions that `bad` flags, printed.
template <class Pred>
std::string offenders(const std::vector<Instruction>& body, Pred bad) {
  const auto inside = in_loop(body);
  std::string out;
  for (std::size_t i = 0; i < body.size(); ++i)
    if (inside[i] && bad(body[i]))
      out += print(body[i]) + "\n";
  return out;
}

bool is_div_or_rem(const Instruction& i) {
  const auto* b = std::get_if<Binary>(&i.body);
  return b && (b->op == BinaryOp::div || b->op == BinaryOp::rem);
}

/// What never changes in a loop: special registers, parameters, cvta, symbols.
bool is_launch_invariant(const Instruction& i) {
  if (const auto* ld = std::get_if<Ld>(&i.body))
    return ld->space == StateSpace::param;
  if (std::holds_alternative<Cvta>(i.body))
    return true;
  if (const auto* mov = std::get_if<Mov>(&i.body))
    return std::holds_alternative<SpecialRegister>(mov->src) ||
           std::holds_alternative<Symbol>(mov->src);
  return false;
}

/// Registers a loop advances: `add r, r, x` inside it.
std::vector<Register> advanced(const std::vector<Instruction>& body) {
  const auto inside = in_loop(body);
  std::vector<Register> out;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const auto* b = std::get_if<Binary>(&body[i].body);
    if (inside[i] && b && b->op == BinaryOp::add && b->a == Operand{b->dst})
      out.push_back(b->dst);
  }
  return out;
}

/// A multiply in a loop other than one mad.wide of an advanced register (a
/// counter) onto a base: the one instruction a 64-bit address costs.
auto is_multiply(const std::vector<Instruction>& body) {
  return [carried = advanced(body)](const Instruction& i) {
    if (const auto* m = std::get_if<Mad>(&i.body)) {
      const auto* a = std::get_if<Register>(&m->a);
      return !m->wide || !a || std::find(carried.begin(), carried.end(), *a) == carried.end();
    }
    const auto* b = std::get_if<Binary>(&i.body);
    return b && (b->op == BinaryOp::mul_lo || b->op == BinaryOp::mul_wide);
  };
}

template <class T>
std::size_t count(const std::vector<Instruction>& body) {
  std::size_t n = 0;
  for (const auto& i : body)
    n += std::holds_alternative<T>(i.body) ? 1 : 0;
  return n;
}

std::vector<std::string> loop_specs() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kLoopSpecs))
    if (e.path().extension() == ".toml")
      names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("loop specs: no division or remainder by a constant inside a loop body") {
  const auto names = loop_specs();
  REQUIRE(names.size() >= 8);
  for (const auto& name : names) {
    INFO(name);
    CHECK(offenders(lowered(name), is_div_or_rem) == "");
  }
}

TEST_CASE("loop specs: launch values, parameters and bases are computed before the loops") {
  for (const auto& name : loop_specs()) {
    INFO(name);
    CHECK(offenders(lowered(name), is_launch_invariant) == "");
  }
}

TEST_CASE("addresses affine in the loop variable: one instruction each per iteration") {
  // Every index in these specs is affine in the loop variables or a
  // remainder of one: induction and rotating registers (adds) for shared
  // addresses, one mad.wide of the counter for global ones; nothing else multiplies.
  for (std::string name : {"stage3_k7.toml", "loop_copy.toml", "nested.toml", "grid_stride.toml",
                           "unroll2_odd.toml", "grid2d_block3d.toml"}) {
    INFO(name);
    const auto body = lowered(name);
    CHECK(offenders(body, is_multiply(body)) == "");
  }
}

TEST_CASE("unroll: constant trips unroll without remainder code or branches where they can") {
  const auto body = lowered("const_unroll.toml");
  // Loop a: 4 straight copies; loop b (6 trips): one unrolled pass of 4 and two
  // straight copies; loop c (8 trips): two passes of 4, no remainder.
  CHECK(count<CpAsync>(body) == 4 + 4 + 2 + 4);
  // Only b's and c's back edges branch: a is straight-line, and trips known
  // to be at least the unroll need no skip.
  CHECK(count<Bra>(body) == 2);
}

TEST_CASE("unroll 2 over a runtime trip count: two copies per back edge and a remainder loop") {
  const auto body = lowered("unroll2_odd.toml");
  CHECK(count<CpAsync>(body) == 2 + 1);
  // Main loop: skip + back edge; remainder loop: skip + back edge.
  CHECK(count<Bra>(body) == 4);
  CHECK(count<Label>(body) == 4);
}

TEST_CASE("unroll 4 with a constant step: one address computation per pass, offsets in [reg+imm]") {
  // stage3_k7_unroll4: copy u reads and writes tile k + u, so A's and B's
  // global addresses are one mad.wide each per pass of 4 (and each per
  // iteration of the remainder loop): 2 + 2, with 8 + 4 copies between them.
  const auto body = lowered("stage3_k7_unroll4.toml");
  std::size_t wide = 0;
  const auto inside = in_loop(body);
  for (std::size_t i = 0; i < body.size(); ++i)
    if (const auto* m = std::get_if<Mad>(&body[i].body); m && m->wide && inside[i])
      ++wide;
  CHECK(wide == 2 + 2);
  CHECK(count<CpAsync>(body) == 2 + 4 + 1); // prologue, pass, remainder
}

TEST_CASE("a runtime trip count of at least 1 needs no skip before the loop") {
  // stage3_k7: k_tiles is declared in 1..64, so the loop always runs.
  const auto body = lowered("stage3_k7.toml");
  CHECK(count<Bra>(body) == 1);
  // grid_stride: bid may be >= n_tiles (3 CTAs, n_tiles from 1): a skip is needed.
  CHECK(count<Bra>(lowered("grid_stride.toml")) == 2);
}

} // namespace
} // namespace ptxgen::unit_lower_loops
