#pragma once
// The loop form: what instruction selection produces and the loop passes work
// on before the PTX entry's flat body is printed from it.
//
//   selection (Lowerer)     ops -> instructions in a tree of loops; each
//                           instruction tagged with the loop level its operands
//                           are defined at; loops carry their induction and
//                           rotating registers and their unroll plan
//   hoist_invariants()      moves each instruction tagged below its loop depth
//                           into the preheader of the loop at that level (LICM)
//   advance_instructions()  a loop's counter, induction and rotating updates
//                           (strength reduction)
//   plan_unroll()           full unrolling, passes of n copies with a constant
//                           remainder, or a tail loop
//   flatten()               the tree as the entry's instruction list
//   dump()                  the tree as text (`ptxgen emit --dump-loops`)
//
// Registers are numbered in the order selection asks for them, which is why
// unrolling and the advance code are driven from selection (each copy of a body
// is selected with its own constant offsets folded into [reg+imm]) rather than
// rewritten after it.

#include "emitter/lower/linear.hpp"
#include "emitter/ptx/instruction.hpp"
#include "emitter/ptx/register.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ptxgen::lower {

/// A selected instruction and the loop level it belongs at: 0 before every
/// loop, n in the body of the n-th enclosing loop (outermost first).
struct FormInstruction {
  ptx::Instruction instruction;
  unsigned level = 0;
};

/// A register that holds an address (or, for a wrap32 global form, its 32-bit
/// offset) at the loop variable's current value, advanced by `delta` per iteration.
struct Induction {
  std::string tensor; ///< with `form`, what it holds (tensor names are unique)
  Linear form;
  ptx::Register r;
  ptx::Operand delta;
  ptx::ScalarType type = ptx::ScalarType::u32; ///< u32 (32-bit) or s64 (a global address)
};

/// m * (x % s) for x = inv + a*k (a >= 1, inv invariant in the loop, x in
/// 0..2^31-1), and optionally x / s, advanced per iteration by d = m *
/// ((a*step) % s): `p = r >= m*s - d; r += p ? d - m*s : d` (and the
/// quotient by (a*step) / s, plus 1 where p), no predicated write; for
/// powers of two `r = (r + d) & (m*s - 1)`.
struct Rotating {
  tile::ExprPtr x;
  std::int64_t s = 0;
  std::int64_t m = 1;
  tile::ExprPtr growth; ///< x's increase per iteration (a*step)
  ptx::Register r;
  tile::ExprPtr delta;        ///< d, as an expression (constant when the step is)
  ptx::Operand delta_op;      ///< d
  ptx::Operand wrap_at;       ///< m*s - d
  ptx::Operand wrapped_delta; ///< d - m*s (modulo 2^32)
  std::optional<ptx::Register> quotient;
  ptx::Operand quotient_delta; ///< (a*step) / s
  ptx::Operand quotient_carry; ///< (a*step) / s + 1
  bool mask = false;           ///< m*s is a power of two: `and` instead of compare and select
};

/// How a loop with a trip count that is not fully known, or an unroll below
/// it, is laid out (plan_unroll()).
struct UnrollPlan {
  /// The whole loop as `copies` straight-line bodies (a constant trip count
  /// at most the unroll); no loop is emitted.
  bool full = false;
  std::int64_t copies = 0;
  /// Bodies per pass of the counted loop (1: not unrolled).
  std::int64_t factor = 1;
  /// The counted loop is known to run at least once (a constant trip count >= factor).
  bool runs = false;
  /// Straight-line bodies after the unrolled loop (a constant trip count % factor).
  std::int64_t remainder = 0;
  /// A second counted loop, one body per pass, finishes the iterations the
  /// unrolled one left (the trip count is not constant).
  bool tail = false;
};

/// `unroll` copies per pass for a loop of `trip` iterations (nullopt: not
/// constant) whose step is at most `step_max` (nullopt: unbounded). The
/// unroll is dropped (factor 1) where (unroll-1)*step could leave 0..2^31-1,
/// the loop variable's proven range.
UnrollPlan plan_unroll(std::optional<std::int64_t> trip, std::int64_t unroll,
                       std::optional<std::int64_t> step_max);

struct Loop;
using FormItem = std::variant<FormInstruction, std::unique_ptr<Loop>>;

struct Loop {
  std::string var;
  ptx::Register counter;
  ptx::Operand start;
  ptx::Operand step;
  UnrollPlan plan;
  /// Computed before the loop (filled by hoist_invariants()).
  std::vector<ptx::Instruction> preheader;
  /// The counter's initialisation, the loop's branches and labels and its bodies.
  std::vector<FormItem> body;
  std::vector<Induction> inductions;
  std::vector<Rotating> rotating;
};

struct LoopForm {
  std::string kernel;
  std::vector<FormItem> items;
};

/// Moves every instruction whose level is below the depth it was selected at
/// to the end of the preheader of the loop at that level, in selection order
/// (loop-invariant code motion; the levels come from selection, which knows
/// which loop variables an expression depends on).
void hoist_invariants(LoopForm& form);

/// The instructions that advance `loop` by `mult` iterations: the counter
/// by mult*step, each induction register by mult*delta, each rotating
/// register (and its quotient) as for a step of mult*step, or, where it is
/// another's value of the iteration before (mult 1) or that value with one bit
/// flipped, by a copy of it (a mov, an xor). mult > 1 needs a constant step
/// (and constant growths). New registers come from `regs`.
std::vector<ptx::Instruction> advance_instructions(const Loop& loop, std::int64_t mult,
                                                   ptx::RegisterFile& regs);

/// The form's instructions in order: a loop's preheader, then its body.
std::vector<ptx::Instruction> flatten(LoopForm&& form);

/// The form as indented text: loops with their plan, induction and rotating
/// registers, preheader and body; an instruction still tagged with a lower
/// level than its place (not yet hoisted) is marked `^level`.
std::string dump(const LoopForm& form);

} // namespace ptxgen::lower
