// `ptxgen instr` for the sm_90 bulk-copy family: reads the opcode (any qualifier order),
// puts the instruction in a minimal kernel whose registers hold every operand it reads,
// validates it for the target and PTX version, and prints it in canonical form.

#include "driver/cli/instr_bulk.hpp"

#include "driver/cli/command.hpp"
#include "emitter/ptx/bulk_opcode.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/support/overloaded.hpp"

#include <algorithm>
#include <iostream>
#include <variant>

namespace ptxgen::cli {

namespace {

using namespace ptxgen::ptx;

/// A byte count of the command line: an integer (negative ones too, to show the refusal),
/// or `reg` for a .u32 register.
struct Count {
  std::optional<std::int64_t> immediate; ///< none: a register
};

std::optional<Count> parse_count(const std::string& s) {
  if (s == "reg")
    return Count{};
  const std::size_t digits = s.starts_with('-') ? 1 : 0;
  if (s.size() == digits || s.size() > digits + 12 ||
      s.find_first_not_of("0123456789", digits) != std::string::npos)
    return std::nullopt;
  return Count{std::stoll(s)};
}

/// The kernel around the instruction. Shared operands name the arrays `smem` and `mbar`;
/// global ones come from the `src` parameter, the tensor map's generic address from `tmap`.
class BulkKernel {
public:
  explicit BulkKernel(const BulkInstrRequest& r) : r_(r) {
    e_.name = "ptxgen_instr";
    e_.params = {{"src", ScalarType::u64}, {"tmap", ScalarType::u64}};
    e_.shared = {{"smem", 1024, 1024, SharedKind::fixed}, {"mbar", 8, 8, SharedKind::fixed}};
  }

  Address smem() const { return Address{Symbol{"smem"}, 0}; }
  Address mbar() const { return Address{Symbol{"mbar"}, 0}; }

  /// A global address: the `src` parameter in the .global window.
  Address global() {
    Register g = e_.registers.make(RegClass::b64);
    emit(Ld{StateSpace::param, ScalarType::u64, {g}, Address{Symbol{"src"}, 0}});
    emit(Cvta{StateSpace::global, ScalarType::u64, g, g});
    return Address{g, 0};
  }

  /// `--size` or `--tx-count`: an immediate, or a .u32 register holding 16.
  Operand count(const Count& c) {
    if (c.immediate)
      return Immediate{*c.immediate};
    Register r = e_.registers.make(RegClass::b32);
    emit(Mov{ScalarType::u32, r, Immediate{16}});
    return r;
  }

  /// The tensor operand: the map's generic address (a `.u64` parameter holding it) and
  /// `--coords` coordinates, or the rank's.
  TensorOperand tensor(TensorRank rank) {
    Register map = e_.registers.make(RegClass::b64);
    emit(Ld{StateSpace::param, ScalarType::u64, {map}, Address{Symbol{"tmap"}, 0}});
    TensorOperand t{map, {}};
    for (std::size_t k = 0; k < r_.coords.value_or(coordinates(rank)); ++k) {
      Register c = e_.registers.make(RegClass::b32);
      emit(Mov{ScalarType::u32, c, Immediate{static_cast<std::int64_t>(16 * k)}});
      t.coords.push_back(c);
    }
    return t;
  }

  /// `--cache-policy`: a plain 64-bit value (keeps createpolicy's own gate out of the kernel).
  CachePolicy policy() {
    if (!r_.cache_policy)
      return std::nullopt;
    Register p = e_.registers.make(RegClass::b64);
    emit(Mov{ScalarType::b64, p, Immediate{0}});
    return p;
  }

  std::optional<Register> state() {
    if (r_.sink)
      return std::nullopt;
    return e_.registers.make(RegClass::b64);
  }

  /// The module with the instruction, guarded with `--pred`, last before `ret`.
  Module finish(InstructionBody body, Instruction& instruction) {
    std::optional<Guard> guard;
    if (r_.pred) {
      Register tid = e_.registers.make(RegClass::b32);
      Register p = e_.registers.make(RegClass::pred);
      emit(Mov{ScalarType::u32, tid, SpecialRegister::tid_x});
      emit(Setp{CompareOp::eq, ScalarType::u32, p, tid, Immediate{0}});
      guard = Guard{p, false};
    }
    instruction = Instruction{guard, std::move(body), ""};
    e_.body.push_back(instruction);
    emit(Ret{});
    Module m;
    m.header_comments.push_back("ptxgen instr: one instruction in a minimal kernel");
    m.target = r_.target;
    m.entries.push_back(std::move(e_));
    return m;
  }

private:
  void emit(InstructionBody b) { e_.body.push_back({std::nullopt, std::move(b), ""}); }

  const BulkInstrRequest& r_;
  Entry e_;
};

/// Fills the operands of the kind the opcode named; `size` and `tx` as the command line gave.
InstructionBody with_operands(BulkKind kind, BulkKernel& k, const Count& size, const Count& tx,
                              std::int64_t groups) {
  std::visit(overloaded{
                 [&](CpAsyncBulkLoad& c) {
                   c.dst = k.smem();
                   c.src = k.global();
                   c.size = k.count(size);
                   c.mbar = k.mbar();
                   c.cache_policy = k.policy();
                 },
                 [&](CpAsyncBulkStore& c) {
                   c.dst = k.global();
                   c.src = k.smem();
                   c.size = k.count(size);
                   c.cache_policy = k.policy();
                 },
                 [&](CpAsyncBulkCommitGroup&) {},
                 [&](CpAsyncBulkWaitGroup& w) { w.n = groups; },
                 [&](CpAsyncBulkPrefetch& p) {
                   p.src = k.global();
                   p.size = k.count(size);
                   p.cache_policy = k.policy();
                 },
                 [&](CpAsyncBulkTensorLoad& c) {
                   c.dst = k.smem();
                   c.tensor = k.tensor(c.rank);
                   c.mbar = k.mbar();
                   c.cache_policy = k.policy();
                 },
                 [&](CpAsyncBulkTensorStore& c) {
                   c.tensor = k.tensor(c.rank);
                   c.src = k.smem();
                   c.cache_policy = k.policy();
                 },
                 [&](CpAsyncBulkPrefetchTensor& p) {
                   p.tensor = k.tensor(p.rank);
                   p.cache_policy = k.policy();
                 },
                 [&](MbarrierExpectTx& m) {
                   m.address = k.mbar();
                   m.tx_count = k.count(tx);
                 },
                 [&](MbarrierArriveExpectTx& m) {
                   m.state = k.state();
                   m.address = k.mbar();
                   m.tx_count = k.count(tx);
                 },
                 [&](FenceProxyAsync&) {},
                 [&](FenceMbarrierInit&) {},
             },
             kind);
  return body_of(std::move(kind));
}

/// Which of `--size`, `--tx-count`, `--groups`, `--coords` the kind takes.
struct Takes {
  bool size = false, tx = false, groups = false, coords = false;
};

Takes takes(const BulkKind& kind) {
  return std::visit(overloaded{
                        [](const CpAsyncBulkLoad&) { return Takes{true}; },
                        [](const CpAsyncBulkStore&) { return Takes{true}; },
                        [](const CpAsyncBulkCommitGroup&) { return Takes{}; },
                        [](const CpAsyncBulkWaitGroup&) {
                          return Takes{false, false, true};
                        },
                        [](const CpAsyncBulkPrefetch&) { return Takes{true}; },
                        [](const CpAsyncBulkTensorLoad&) {
                          return Takes{false, false, false, true};
                        },
                        [](const CpAsyncBulkTensorStore&) {
                          return Takes{false, false, false, true};
                        },
                        [](const CpAsyncBulkPrefetchTensor&) {
                          return Takes{false, false, false, true};
                        },
                        [](const MbarrierExpectTx&) {
                          return Takes{false, true};
                        },
                        [](const MbarrierArriveExpectTx&) {
                          return Takes{false, true};
                        },
                        [](const FenceProxyAsync&) { return Takes{}; },
                        [](const FenceMbarrierInit&) { return Takes{}; },
                    },
                    kind);
}

/// An option the form does not take, or a required one missing: the message, else "".
std::string option_problem(const BulkInstrRequest& r, const BulkKind& kind) {
  const Takes t = takes(kind);
  if (t.size != r.size.has_value())
    return t.size ? "--size is required: the byte count is never inferred; give a multiple of "
                    "16, or `reg`"
                  : "--size is for bulk copies and the bulk prefetch; this form has no size";
  if (t.tx != r.tx_count.has_value())
    return t.tx ? "--tx-count is required: the transaction bytes are never inferred; give a "
                  "count, or `reg`"
                : "--tx-count is for mbarrier.expect_tx and mbarrier.arrive.expect_tx";
  if (!t.coords && r.coords)
    return "--coords is for the tensor forms (cp.async.bulk.tensor, .prefetch.tensor)";
  if (!t.groups && r.groups != 0)
    return "--groups is for cp.async.bulk.wait_group";
  if (r.sink && !std::holds_alternative<MbarrierArriveExpectTx>(kind))
    return "--sink is for mbarrier.arrive.expect_tx";
  return "";
}

} // namespace

int run_bulk_instr(const BulkInstrRequest& r, driver::DiagnosticsPrinter& printer) {
  Result<BulkKind> parsed = parse_bulk_opcode(r.opcode);
  if (!parsed) {
    for (auto d : parsed.diagnostics.items()) {
      d.file = "opcode";
      printer.print(d);
    }
    printer.finish();
    return exit_input;
  }
  if (const std::string problem = option_problem(r, *parsed); !problem.empty()) {
    std::cerr << "ptxgen instr: " << problem << "\n";
    return exit_usage;
  }
  const std::optional<Count> size = r.size ? parse_count(*r.size) : Count{0};
  const std::optional<Count> tx = r.tx_count ? parse_count(*r.tx_count) : Count{0};
  if (!size || !tx) {
    std::cerr << "ptxgen instr: --size and --tx-count expect an integer or `reg`\n";
    return exit_usage;
  }
  BulkKernel kernel(r);
  Instruction instruction;
  Module module =
      kernel.finish(with_operands(std::move(*parsed), kernel, *size, *tx, r.groups), instruction);
  PtxVersion version = min_version_for_target(r.target);
  for (Feature f : features_used(instruction))
    version = std::max(version, info(f).min_version);
  if (r.version)
    version = *r.version;
  module.version = version;

  Diagnostics diags = validate_target_version(r.target, version);
  for (Finding& f : check(instruction, r.target, version)) {
    f.diagnostic.file = "instr";
    diags.add(std::move(f.diagnostic));
  }
  const bool valid = !diags.has_errors();
  if (valid) {
    std::cout << ".version " << version.str() << "\n.target " << r.target.str() << "\n"
              << print(instruction) << "\n";
  } else {
    printer.print(diags);
    printer.finish();
  }
  if (!r.ptxas)
    return valid ? exit_ok : exit_input;
  return compare_with_ptxas(*r.ptxas, module, r.target, version, valid);
}

} // namespace ptxgen::cli
