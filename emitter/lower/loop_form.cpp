// The loop form's passes that need no selection: hoisting, flattening, the dump.

#include "emitter/lower/loop_form.hpp"

#include "emitter/ptx/printer.hpp"
#include "emitter/support/unreachable.hpp"

namespace ptxgen::lower {

namespace {

/// Walks `items` at `depth` (the loops enclosing them, outermost first, in
/// `open`), moving hoistable instructions to their loop's preheader.
void hoist_items(std::vector<FormItem>& items, std::vector<Loop*>& open) {
  std::vector<FormItem> kept;
  kept.reserve(items.size());
  for (auto& item : items) {
    if (auto* loop = std::get_if<std::unique_ptr<Loop>>(&item)) {
      open.push_back(loop->get());
      hoist_items((*loop)->body, open);
      open.pop_back();
      kept.push_back(std::move(item));
      continue;
    }
    auto& i = std::get<FormInstruction>(item);
    if (i.level < open.size()) {
      open[i.level]->preheader.push_back(std::move(i.instruction));
      continue;
    }
    kept.push_back(std::move(item));
  }
  items = std::move(kept);
}

void flatten_items(std::vector<FormItem>& items, std::vector<ptx::Instruction>& out) {
  for (auto& item : items) {
    if (auto* i = std::get_if<FormInstruction>(&item)) {
      out.push_back(std::move(i->instruction));
      continue;
    }
    Loop& loop = *std::get<std::unique_ptr<Loop>>(item);
    for (auto& i : loop.preheader)
      out.push_back(std::move(i));
    flatten_items(loop.body, out);
  }
}

std::string plan_text(const UnrollPlan& p) {
  if (p.factor == 1)
    return "not unrolled";
  std::string s = "unrolled " + std::to_string(p.factor) + " per pass";
  if (p.runs)
    s += ", runs";
  if (p.tail)
    s += ", tail loop";
  else
    s += ", remainder " + std::to_string(p.remainder);
  return s;
}

std::string operand_text(const ptx::Operand& o) {
  if (const auto* r = std::get_if<ptx::Register>(&o))
    return ptx::to_string(*r);
  if (const auto* imm = std::get_if<ptx::Immediate>(&o))
    return std::to_string(imm->value);
  return "?";
}

void dump_loop(const Loop& loop, unsigned depth, std::string& out);

void dump_items(const std::vector<FormItem>& items, unsigned depth, std::string& out) {
  const std::string pad(4 * depth + 2, ' ');
  for (const auto& item : items) {
    if (const auto* i = std::get_if<FormInstruction>(&item)) {
      out += pad + ptx::print(i->instruction);
      if (i->level < depth)
        out += "  ^" + std::to_string(i->level);
      out += "\n";
      continue;
    }
    dump_loop(*std::get<std::unique_ptr<Loop>>(item), depth, out);
  }
}

void dump_loop(const Loop& loop, unsigned depth, std::string& out) {
  const std::string pad(4 * depth + 2, ' ');
  out += pad + "loop " + loop.var + ": counter " + ptx::to_string(loop.counter) + " from " +
         operand_text(loop.start) + " step " + operand_text(loop.step) + ", " +
         plan_text(loop.plan) + "\n";
  for (const auto& iv : loop.inductions)
    out += pad + "  induction " + ptx::to_string(iv.r) + " += " + operand_text(iv.delta) + "\n";
  for (const auto& rot : loop.rotating) {
    out += pad + "  rotating " + ptx::to_string(rot.r) + " = " + std::to_string(rot.m) + " * ((" +
           tile::print(*rot.x) + ") % " + std::to_string(rot.s) + ")";
    if (rot.quotient)
      out += ", quotient " + ptx::to_string(*rot.quotient);
    out += rot.mask ? ", masked" : ", wraps at " + operand_text(rot.wrap_at);
    out += "\n";
  }
  if (!loop.preheader.empty()) {
    out += pad + "  preheader:\n";
    for (const auto& i : loop.preheader)
      out += pad + "    " + ptx::print(i) + "\n";
  }
  out += pad + "  body:\n";
  dump_items(loop.body, depth + 1, out);
  out += pad + "end loop " + loop.var + "\n";
}

} // namespace

void hoist_invariants(LoopForm& form) {
  std::vector<Loop*> open;
  hoist_items(form.items, open);
}

std::vector<ptx::Instruction> flatten(LoopForm&& form) {
  std::vector<ptx::Instruction> out;
  flatten_items(form.items, out);
  return out;
}

std::string dump(const LoopForm& form) {
  std::string out = "loop form of " + form.kernel + ":\n";
  dump_items(form.items, 0, out);
  return out;
}

} // namespace ptxgen::lower
