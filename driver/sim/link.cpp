// The simulator's PTX parser: calls. `call` statements, and the linker that
// gives each entry the .funcs it calls: their ops appended after the entry's,
// registers and frame bytes renumbered, calls pointed at their targets.
//
// Frames: every function of a linked entry has its own fixed bytes in the
// thread's frame area (its parameters, results and call-sequence variables).
// Calls do not recurse (the linker refuses recursion), so one frame per
// function is a frame per active call.

#include "driver/sim/parser_impl.hpp"
#include "driver/sim/simulator.hpp"

#include <algorithm>
#include <functional>

namespace ptxgen::sim::detail {
namespace {

/// The CUDA runtime's device-side assert: declared `.extern`, called when an
/// assertion fails. A call of it is a `trap`.
constexpr std::string_view assert_fail = "__assertfail";

} // namespace

/// `( name, name... )`: call-sequence `.param` variables, as (frame offset, size).
std::vector<std::pair<std::uint32_t, std::uint32_t>> Parser::call_list(std::string_view what) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  expect("(", "to open the call's list");
  if (!is(")")) {
    do {
      const Token& nm = peek();
      if (nm.kind != Tok::ident)
        fail(DiagId::sim_syntax, nm, "expected " + std::string(what) + ", found " + describe(nm));
      next();
      auto it = locals_.find(std::string(nm.text));
      if (it == locals_.end()) {
        if (is_reg_name(nm.text))
          throw Unsupported{DiagId::sim_unsupported_operand,
                            "a register as a call operand is not simulated (only .param "
                            "variables)"};
        fail(DiagId::sim_undeclared, nm,
             "`" + std::string(nm.text) + "` is not a .param variable of this scope");
      }
      out.emplace_back(it->second.offset, it->second.size);
    } while (accept(","));
  }
  expect(")", "to close the call's list");
  return out;
}

void Parser::call(ir::Entry& e, ir::Op& op, const Token& opc) {
  std::optional<Unsupported> later; // reported once the statement is read
  const auto parts = split_dots(opc.text);
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const std::string_view q = parts[k];
    if (q != "uni")
      later = Unsupported{DiagId::sim_unsupported_form,
                          "`call." + std::string(q) + "` is not simulated"};
  }
  ir::Call c;
  auto rest = [&] {
    while (peek().kind != Tok::end && !is(";"))
      next();
    expect(";", "after the call");
  };
  try {
    if (is("("))
      c.rets = call_list("a result variable");
    if (!c.rets.empty() || toks_[i_ - 1].text == ")")
      expect(",", "after the call's results");
    const Token& f = expect_ident("the called function");
    c.callee = std::string(f.text);
    c.pos = f.pos;
    if (is_reg_name(f.text)) {
      c.indirect = true;
      c.callee.clear();
      Opnd callee;
      callee.pos = f.pos;
      callee.length = f.text.size();
      callee.name = f.text;
      op.src[0] = value(callee, 64, "the callee");
    }
    if (accept(","))
      c.args = call_list("an argument variable");
    if (accept(",")) {
      const Token& proto = expect_ident("the call's prototype");
      if (!c.indirect || is_reg_name(proto.text)) {
        rest();
        throw Unsupported{DiagId::sim_unsupported_form,
                          "a call with a prototype or jump table is not simulated"};
      }
    } else if (c.indirect) {
      rest();
      throw Unsupported{DiagId::sim_unsupported_form,
                        "an indirect call without a prototype is not simulated"};
    }
    expect(";", "after the call");
  } catch (const Unsupported&) {
    if (!is(";") && toks_[i_ - 1].text != ";")
      rest();
    throw;
  }
  if (later)
    throw *later;
  op.code = ir::Code::call;
  op.n = static_cast<std::int64_t>(e.calls.size());
  e.calls.push_back(std::move(c));
}

void Parser::link(ir::Module& m) {
  for (auto& e : m.entries) {
    if (!e.calls.empty())
      link_entry(m, e, true);
  }
  // Each defined .func that returns nothing can also run as an entry (ptxgen lint of a file
  // of device functions): a copy whose parameters are the launch's. A .func's parameters
  // are the first bytes of its frame, placed as an entry's are in the parameter space, so
  // its reads of them become parameter reads at the same offsets.
  std::vector<ir::Entry> as_entries;
  for (const ir::Entry& f : m.funcs) {
    if (!f.defined || !f.rets.empty())
      continue;
    ir::Entry e = f;
    e.is_func = false;
    e.from_func = true;
    e.param_bytes = 0;
    for (const ir::Param& p : e.params)
      e.param_bytes = std::max(e.param_bytes, p.offset + p.size);
    for (ir::Op& op : e.ops) {
      if ((op.code != ir::Code::ld && op.code != ir::Code::st) || op.space != ir::Space::frame ||
          op.addr.has_reg || op.addr.offset >= e.param_bytes)
        continue;
      op.space = ir::Space::param;
      if (op.code == ir::Code::st) { // an entry's parameters are read-only
        op.code = ir::Code::unsupported;
        op.n = static_cast<std::int64_t>(e.texts.size());
        e.texts.push_back("a store to a parameter of a .func run as an entry is not simulated");
      }
    }
    if (!e.calls.empty())
      link_entry(m, e, false);
    as_entries.push_back(std::move(e));
  }
  for (ir::Entry& e : as_entries)
    m.entries.push_back(std::move(e));
}

namespace {

/// Renumbers one op of a function appended at (reg, op, text, frame, call) bases.
struct Relocation {
  std::uint32_t reg = 0, op = 0, text = 0, frame = 0, call = 0;

  void val(ir::Val& v) const {
    if (v.kind == ir::Val::Kind::reg)
      v.reg += reg;
    if (v.kind == ir::Val::Kind::local)
      v.imm += frame;
  }
  void apply(ir::Op& o) const {
    for (auto& d : o.dst)
      d += reg;
    for (auto& v : o.src)
      val(v);
    for (auto& v : o.coords)
      val(v);
    for (auto& v : o.offsets)
      val(v);
    val(o.zval);
    val(o.cta_mask);
    if (o.guard >= 0)
      o.guard += static_cast<std::int32_t>(reg);
    if (o.pred_dst >= 0)
      o.pred_dst += static_cast<std::int32_t>(reg);
    for (ir::Addr* a : {&o.addr, &o.addr2, &o.addr3}) {
      if (a->has_reg)
        a->reg += reg;
    }
    o.text += text;
    switch (o.code) {
    case ir::Code::unsupported:
      o.n += text;
      break;
    case ir::Code::bra:
      o.n += op;
      break;
    case ir::Code::call:
      o.n += call;
      break;
    case ir::Code::ld:
    case ir::Code::st:
      if (o.space == ir::Space::frame || (o.space == ir::Space::local && !o.addr.has_reg))
        o.addr.offset += frame;
      break;
    default:
      break;
    }
  }
};

using ProblemFn = std::function<void(DiagId, std::size_t, std::size_t, std::string)>;

/// The defined functions `e` reaches (its calls, theirs, and the functions whose
/// address is taken: possible indirect callees), in the order first reached. A
/// call of an undeclared or undefined function, or a recursion, is a problem.
std::vector<const ir::Entry*> reached_functions(const ir::Module& m, const ir::Entry& e,
                                                const ProblemFn& problem) {
  auto find = [&](const std::string& name) -> const ir::Entry* {
    for (const auto& f : m.funcs) {
      if (f.name == name)
        return &f;
    }
    return nullptr;
  };
  std::vector<const ir::Entry*> order;
  std::vector<const ir::Entry*> stack;
  std::function<void(const ir::Entry&)> visit = [&](const ir::Entry& fn) {
    stack.push_back(&fn);
    for (const std::string& name : fn.address_taken) { // possible indirect callees
      const ir::Entry* f = find(name);
      if (f != nullptr && f->defined && std::find(order.begin(), order.end(), f) == order.end() &&
          std::find(stack.begin(), stack.end(), f) == stack.end()) {
        order.push_back(f);
        visit(*f);
      }
    }
    for (const auto& c : fn.calls) {
      if (c.indirect)
        continue; // its callees are the functions whose address is taken
      const ir::Entry* callee = find(c.callee);
      if (callee != nullptr && !callee->defined && c.callee == assert_fail)
        continue; // a trap, placed below
      if (callee == nullptr || !callee->defined) {
        problem(DiagId::sim_undeclared, c.pos, c.callee.size(),
                "call of `" + c.callee + "`, which the module " +
                    (callee == nullptr ? "does not declare" : "declares but does not define"));
        continue;
      }
      if (std::find(stack.begin(), stack.end(), callee) != stack.end()) {
        problem(DiagId::sim_unsupported_construct, c.pos, c.callee.size(),
                "recursive call of `" + c.callee + "` is not simulated");
        continue;
      }
      if (std::find(order.begin(), order.end(), callee) == order.end()) {
        order.push_back(callee);
        visit(*callee);
      }
    }
    stack.pop_back();
  };
  visit(e);
  return order;
}

/// A call of __assertfail (which no module defines): a trap op appended to `e`
/// with the line of the call `index` (searched from op `from`); returns its index.
std::uint32_t place_assert_trap(ir::Entry& e, std::uint32_t from, std::uint32_t index) {
  ir::Op trap;
  trap.code = ir::Code::trap;
  trap.line = e.ops[from].line;
  for (std::size_t j = from; j < e.ops.size(); ++j) {
    if (e.ops[j].code == ir::Code::call && e.ops[j].n == static_cast<std::int64_t>(index)) {
      trap.line = e.ops[j].line;
      break;
    }
  }
  trap.text = static_cast<std::uint32_t>(e.texts.size());
  e.texts.push_back("call of __assertfail (a device-side assertion failed)");
  e.ops.push_back(trap);
  return static_cast<std::uint32_t>(e.ops.size() - 1);
}

/// A function placed in a linked entry: where its registers, ops, texts, frame and calls went.
struct Placed {
  const ir::Entry* fn;
  Relocation r;
  std::size_t calls; ///< the function's own calls
};

/// An indirect call: one direct alternative per function whose address is taken (`taken`),
/// appended to e.calls. Returns the alternatives with their caller's relocation.
std::vector<std::pair<Relocation, std::uint32_t>>
add_alternatives(const ir::Module& m, ir::Entry& e, const std::vector<Placed>& placed,
                 const std::vector<std::string>& taken) {
  std::vector<std::pair<Relocation, std::uint32_t>> extra;
  for (const Placed& p : placed) {
    for (std::size_t k = 0; k < p.calls; ++k) {
      if (!e.calls[p.r.call + k].indirect)
        continue;
      for (std::size_t f = 0; f < m.funcs.size(); ++f) {
        const auto at = std::find_if(placed.begin() + 1, placed.end(), [&](const Placed& q) {
          return q.fn->name == m.funcs[f].name;
        });
        if (at == placed.end() ||
            std::find(taken.begin(), taken.end(), m.funcs[f].name) == taken.end())
          continue;
        ir::Call alt = e.calls[p.r.call + k];
        alt.indirect = false;
        alt.alternatives.clear();
        alt.callee = m.funcs[f].name;
        alt.address = function_address_base + f;
        e.calls[p.r.call + k].alternatives.push_back(static_cast<std::uint32_t>(e.calls.size()));
        e.calls.push_back(std::move(alt));
        extra.push_back({p.r, static_cast<std::uint32_t>(e.calls.size() - 1)});
      }
    }
  }
  return extra;
}

} // namespace

void Parser::link_entry(ir::Module& m, ir::Entry& e, bool report) {
  auto problem = [&](DiagId id, std::size_t pos, std::size_t len, std::string msg) {
    ir::Entry* saved = e_;
    e_ = &e;
    add(Severity::error, id, pos, len, std::move(msg));
    e_ = saved;
    if (report)
      link_problems_.push_back(e.problems.back());
  };
  const std::vector<const ir::Entry*> order = reached_functions(m, e, problem);
  std::vector<std::string> taken = e.address_taken;
  for (const ir::Entry* f : order)
    taken.insert(taken.end(), f->address_taken.begin(), f->address_taken.end());
  // A thread that runs off the end of the entry must not fall into a function.
  ir::Op end;
  end.code = ir::Code::ret;
  end.line = e.ops.empty() ? e.line : e.ops.back().line;
  end.text = static_cast<std::uint32_t>(e.texts.size());
  e.texts.push_back("ret;");
  e.ops.push_back(end);
  std::vector<Placed> placed = {{&e, Relocation{}, e.calls.size()}};
  for (const ir::Entry* f : order) {
    e.problems.insert(e.problems.end(), f->problems.begin(), f->problems.end());
    e.frame_bytes = (e.frame_bytes + 15) / 16 * 16; // each function's frame 16-byte aligned
    Relocation r{static_cast<std::uint32_t>(e.reg_mask.size()),
                 static_cast<std::uint32_t>(e.ops.size()),
                 static_cast<std::uint32_t>(e.texts.size()), e.frame_bytes,
                 static_cast<std::uint32_t>(e.calls.size())};
    e.reg_mask.insert(e.reg_mask.end(), f->reg_mask.begin(), f->reg_mask.end());
    e.reg_names.insert(e.reg_names.end(), f->reg_names.begin(), f->reg_names.end());
    e.texts.insert(e.texts.end(), f->texts.begin(), f->texts.end());
    for (ir::Op o : f->ops) {
      r.apply(o);
      e.ops.push_back(o);
    }
    ir::Op ret = end;
    ret.line = f->ops.empty() ? f->line : f->ops.back().line;
    e.ops.push_back(ret);
    e.calls.insert(e.calls.end(), f->calls.begin(), f->calls.end());
    e.frame_bytes += f->frame_bytes;
    placed.push_back({f, r, f->calls.size()});
  }
  const auto extra = add_alternatives(m, e, placed, taken);
  // Point every call at its callee, with its argument and result copies.
  std::vector<std::pair<Relocation, std::uint32_t>> calls; // (caller's relocation, index)
  for (const Placed& p : placed) {
    for (std::size_t k = 0; k < p.calls; ++k)
      calls.emplace_back(p.r, static_cast<std::uint32_t>(p.r.call + k));
  }
  calls.insert(calls.end(), extra.begin(), extra.end());
  for (const auto& call : calls) {
    // Not a structured binding: the lambdas below capture these (clang 14 refuses).
    const Relocation& r = call.first;
    const std::uint32_t index = call.second;
    {
      ir::Call& c = e.calls[index];
      if (c.indirect)
        continue;
      auto at = std::find_if(placed.begin() + 1, placed.end(),
                             [&](const Placed& q) { return q.fn->name == c.callee; });
      if (at == placed.end()) {
        if (c.callee == assert_fail) // the assertion failed: a trap with the call's line
          c.target = place_assert_trap(e, r.op, index);
        continue; // else reported above
      }
      const ir::Entry& callee = *at->fn;
      const Relocation& cr = at->r;
      c.target = cr.op;
      if (c.args.size() != callee.params.size() || c.rets.size() != callee.rets.size()) {
        problem(DiagId::sim_operand_count, c.pos, c.callee.size(),
                "the call passes " + std::to_string(c.args.size()) + " argument(s) and " +
                    std::to_string(c.rets.size()) + " result(s); `" + c.callee + "` takes " +
                    std::to_string(callee.params.size()) + " and " +
                    std::to_string(callee.rets.size()));
        continue;
      }
      auto moves = [&](const auto& mine, const std::vector<ir::Param>& theirs, bool in) {
        for (std::size_t j = 0; j < mine.size(); ++j) {
          const std::uint32_t caller_at = r.frame + mine[j].first;
          const std::uint32_t callee_at = cr.frame + theirs[j].offset;
          const std::uint32_t bytes = std::min(mine[j].second, theirs[j].size);
          if (mine[j].second != theirs[j].size)
            problem(DiagId::sim_operand_width, c.pos, c.callee.size(),
                    "a " + std::to_string(mine[j].second) + "-byte variable passed for `" +
                        theirs[j].name + "` of " + std::to_string(theirs[j].size) + " bytes");
          (in ? c.in : c.out)
              .push_back(in ? ir::Move{caller_at, callee_at, bytes}
                            : ir::Move{callee_at, caller_at, bytes});
        }
      };
      moves(c.args, callee.params, true);
      moves(c.rets, callee.rets, false);
    }
  }
}

} // namespace ptxgen::sim::detail
