// hoist_invariants() (emitter/lower/loop_form.hpp) on loop forms built here:
// an instruction tagged with a level below its depth ends up at the end of
// the preheader of the loop at that level, in selection order; the rest stay.

#include "emitter/lower/loop_form.hpp"

#include <memory>
#include <string>

#include <doctest/doctest.h>

namespace ptxgen::unit_lower_hoist {
namespace {

using namespace ptx;
using lower::FormInstruction;
using lower::FormItem;
using lower::Loop;
using lower::LoopForm;

/// `mov.u32 %r<id>, id` selected at `level`: the id names it in the result.
FormItem hoist_probe(std::uint32_t id, unsigned level) {
  return FormInstruction{
      Instruction{
          std::nullopt, Mov{ScalarType::u32, Register{RegClass::b32, id}, Immediate{id}}, {}},
      level};
}

std::unique_ptr<Loop> hoist_loop(std::string var) {
  auto l = std::make_unique<Loop>();
  l->var = std::move(var);
  return l;
}

/// The ids of the probes, in order, space-separated.
std::string probe_ids(const std::vector<Instruction>& is) {
  std::string s;
  for (const auto& i : is)
    s += (s.empty() ? "" : " ") + std::to_string(std::get<Mov>(i.body).dst.id);
  return s;
}

std::string probe_ids(const std::vector<FormItem>& items) {
  std::string s;
  for (const auto& item : items)
    if (const auto* i = std::get_if<FormInstruction>(&item))
      s += (s.empty() ? "" : " ") + std::to_string(std::get<Mov>(i->instruction.body).dst.id);
  return s;
}

TEST_CASE("hoist: an instruction moves to the preheader of the loop at its level") {
  // 1 (level 0); loop i { 2 (level 1), 3 (level 0), loop j { 4 (2), 5 (0), 6 (1) }, 7 (1) }
  LoopForm form;
  form.items.push_back(hoist_probe(1, 0));
  auto i = hoist_loop("i");
  i->body.push_back(hoist_probe(2, 1));
  i->body.push_back(hoist_probe(3, 0));
  auto j = hoist_loop("j");
  j->body.push_back(hoist_probe(4, 2));
  j->body.push_back(hoist_probe(5, 0));
  j->body.push_back(hoist_probe(6, 1));
  Loop* jp = j.get();
  i->body.push_back(std::move(j));
  i->body.push_back(hoist_probe(7, 1));
  Loop* ip = i.get();
  form.items.push_back(std::move(i));

  lower::hoist_invariants(form);
  // Level 0 from anywhere inside i: i's preheader, in selection order (3, then 5).
  CHECK(probe_ids(ip->preheader) == "3 5");
  // Level 1 from inside j: j's preheader; 2 and 7 are at i's depth already.
  CHECK(probe_ids(jp->preheader) == "6");
  CHECK(probe_ids(ip->body) == "2 7");
  CHECK(probe_ids(jp->body) == "4");
  // Flattened: before i its preheader, inside i before j j's preheader.
  CHECK(probe_ids(lower::flatten(std::move(form))) == "1 3 5 2 6 4 7");
}

TEST_CASE("hoist: nothing outside every loop or at its own depth moves") {
  LoopForm form;
  form.items.push_back(hoist_probe(1, 0));
  auto i = hoist_loop("i");
  i->body.push_back(hoist_probe(2, 1));
  form.items.push_back(std::move(i));
  form.items.push_back(hoist_probe(3, 0));
  lower::hoist_invariants(form);
  CHECK(probe_ids(lower::flatten(std::move(form))) == "1 2 3");
}

TEST_CASE("hoist: the dump shows a loop's preheader and body, and marks what is not hoisted") {
  LoopForm form;
  form.kernel = "k";
  auto i = hoist_loop("i");
  i->counter = Register{RegClass::b32, 9};
  i->start = Immediate{0};
  i->step = Immediate{1};
  i->body.push_back(hoist_probe(2, 0));
  i->body.push_back(hoist_probe(3, 1));
  form.items.push_back(std::move(i));
  const std::string before = lower::dump(form);
  CHECK(before.find("^0") != std::string::npos);
  lower::hoist_invariants(form);
  const std::string after = lower::dump(form);
  CHECK(after.find("^0") == std::string::npos);
  CHECK(after.find("loop i: counter %r9 from 0 step 1") != std::string::npos);
  CHECK(after.find("preheader:") < after.find("%r2"));
  CHECK(after.find("body:") < after.find("%r3"));
}

} // namespace
} // namespace ptxgen::unit_lower_hoist
