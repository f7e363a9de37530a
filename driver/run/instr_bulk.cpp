#include "driver/run/instr_bulk.hpp"

#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/mnemonic.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/support/overloaded.hpp"

#include <algorithm>
#include <utility>
#include <variant>

namespace ptxgen::driver {

namespace {

using namespace ptxgen::ptx;

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

  /// A size or transaction count: an immediate, or a .u32 register holding 16; absent
  /// (a form that does not read it) as 0.
  Operand count(const std::optional<BulkCount>& c) {
    const BulkCount given = c.value_or(BulkCount{0});
    if (given.immediate)
      return Immediate{*given.immediate};
    Register r = e_.registers.make(RegClass::b32);
    emit(Mov{ScalarType::u32, r, Immediate{16}});
    return r;
  }

  /// The tensor operand: the map's generic address (a `.u64` parameter holding it) and
  /// the requested number of coordinates, or the rank's.
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

  /// The cache policy: a plain 64-bit value (keeps createpolicy's own gate out of the kernel).
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

  /// The module with the instruction, guarded when asked, last before `ret`.
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

/// Fills the operands of the kind the opcode named.
InstructionBody with_bulk_operands(BulkKind kind, BulkKernel& k, const BulkInstrRequest& r) {
  std::visit(overloaded{
                 [&](CpAsyncBulkLoad& c) {
                   c.dst = k.smem();
                   c.src = k.global();
                   c.size = k.count(r.size);
                   c.mbar = k.mbar();
                   c.cache_policy = k.policy();
                 },
                 [&](CpAsyncBulkStore& c) {
                   c.dst = k.global();
                   c.src = k.smem();
                   c.size = k.count(r.size);
                   c.cache_policy = k.policy();
                 },
                 [&](CpAsyncBulkCommitGroup&) {},
                 [&](CpAsyncBulkWaitGroup& w) { w.n = r.groups; },
                 [&](CpAsyncBulkPrefetch& p) {
                   p.src = k.global();
                   p.size = k.count(r.size);
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
                   m.tx_count = k.count(r.tx_count);
                 },
                 [&](MbarrierArriveExpectTx& m) {
                   m.state = k.state();
                   m.address = k.mbar();
                   m.tx_count = k.count(r.tx_count);
                 },
                 [&](FenceProxyAsync&) {},
                 [&](FenceMbarrierInit&) {},
             },
             kind);
  return body_of(std::move(kind));
}

/// Which of size, tx_count, groups and coords the kind takes (sink: only arrive.expect_tx).
BulkOptionsGiven bulk_form_takes(const BulkKind& kind) {
  const BulkOptionsGiven none;
  BulkOptionsGiven size, tx, groups, coords;
  size.size = true;
  tx.tx_count = true;
  groups.groups = true;
  coords.coords = true;
  return std::visit(overloaded{
                        [&](const CpAsyncBulkLoad&) { return size; },
                        [&](const CpAsyncBulkStore&) { return size; },
                        [&](const CpAsyncBulkCommitGroup&) { return none; },
                        [&](const CpAsyncBulkWaitGroup&) { return groups; },
                        [&](const CpAsyncBulkPrefetch&) { return size; },
                        [&](const CpAsyncBulkTensorLoad&) { return coords; },
                        [&](const CpAsyncBulkTensorStore&) { return coords; },
                        [&](const CpAsyncBulkPrefetchTensor&) { return coords; },
                        [&](const MbarrierExpectTx&) { return tx; },
                        [&](const MbarrierArriveExpectTx&) {
                          BulkOptionsGiven arrive = tx;
                          arrive.sink = true;
                          return arrive;
                        },
                        [&](const FenceProxyAsync&) { return none; },
                        [&](const FenceMbarrierInit&) { return none; },
                    },
                    kind);
}

/// An option's name as `spelling` writes it.
std::string option_name(BulkOptionProblem::Option o, OptionSpelling spelling) {
  const bool cli = spelling == OptionSpelling::command_line;
  using Option = BulkOptionProblem::Option;
  switch (o) {
  case Option::size:
    return cli ? "--size" : "size";
  case Option::tx_count:
    return cli ? "--tx-count" : "tx_count";
  case Option::groups:
    return cli ? "--groups" : "groups";
  case Option::coords:
    return cli ? "--coords" : "coords";
  case Option::sink:
    return cli ? "--sink" : "sink";
  }
  return "";
}

} // namespace

bool is_bulk_opcode(const std::string& opcode) {
  const std::optional<MnemonicMatch> mnemonic = parse_mnemonic(opcode);
  return mnemonic && bulk_family(mnemonic->mnemonic);
}

std::optional<BulkCount> parse_bulk_count(const std::string& s) {
  if (s == "reg")
    return BulkCount{};
  const std::size_t digits = s.starts_with('-') ? 1 : 0;
  if (s.size() == digits || s.size() > digits + 12 ||
      s.find_first_not_of("0123456789", digits) != std::string::npos)
    return std::nullopt;
  return BulkCount{std::stoll(s)};
}

BulkOptionsGiven options_given(const BulkInstrRequest& r) {
  return BulkOptionsGiven{r.size.has_value(), r.tx_count.has_value(), r.groups != 0,
                          r.coords.has_value(), r.sink};
}

std::optional<BulkOptionProblem> bulk_option_problem(const BulkKind& form,
                                                     const BulkOptionsGiven& given) {
  using Option = BulkOptionProblem::Option;
  const BulkOptionsGiven takes = bulk_form_takes(form);
  if (takes.size != given.size)
    return BulkOptionProblem{Option::size, takes.size};
  if (takes.tx_count != given.tx_count)
    return BulkOptionProblem{Option::tx_count, takes.tx_count};
  if (!takes.coords && given.coords)
    return BulkOptionProblem{Option::coords, false};
  if (!takes.groups && given.groups)
    return BulkOptionProblem{Option::groups, false};
  if (!takes.sink && given.sink)
    return BulkOptionProblem{Option::sink, false};
  return std::nullopt;
}

std::string bulk_option_message(const BulkOptionProblem& p, OptionSpelling spelling) {
  using Option = BulkOptionProblem::Option;
  const std::string name = option_name(p.option, spelling);
  switch (p.option) {
  case Option::size:
    return name + (p.missing ? " is required: the byte count is never inferred; give a multiple "
                               "of 16, or `reg`"
                             : " is for bulk copies and the bulk prefetch; this form has no size");
  case Option::tx_count:
    return name + (p.missing ? " is required: the transaction bytes are never inferred; give a "
                               "count, or `reg`"
                             : " is for mbarrier.expect_tx and mbarrier.arrive.expect_tx");
  case Option::coords:
    return name + " is for the tensor forms (cp.async.bulk.tensor, .prefetch.tensor)";
  case Option::groups:
    return name + " is for cp.async.bulk.wait_group";
  case Option::sink:
    return name + " is for mbarrier.arrive.expect_tx";
  }
  return name;
}

std::optional<BulkKind> parse_bulk_form(const std::string& opcode, Diagnostics& parse_errors) {
  Result<BulkKind> parsed = parse_bulk_opcode(opcode);
  if (!parsed) {
    for (auto d : parsed.diagnostics.items()) {
      d.file = "opcode";
      parse_errors.add(d);
    }
    return std::nullopt;
  }
  return std::move(*parsed);
}

BulkInstr build_bulk_instr(BulkKind form, const BulkInstrRequest& r) {
  BulkInstr b;
  BulkKernel kernel(r);
  b.module = kernel.finish(with_bulk_operands(std::move(form), kernel, r), b.instruction);
  b.version = min_version_for_target(r.target);
  for (Feature f : features_used(b.instruction))
    b.version = std::max(b.version, info(f).min_version);
  if (r.version)
    b.version = *r.version;
  b.module.version = b.version;

  b.diagnostics = validate_target_version(r.target, b.version);
  for (Finding& f : check(b.instruction, r.target, b.version)) {
    f.diagnostic.file = "instr";
    b.diagnostics.add(std::move(f.diagnostic));
  }
  return b;
}

std::string instr_text(const BulkInstr& built, Target target) {
  return ".version " + built.version.str() + "\n.target " + target.str() + "\n" +
         print(built.instruction) + "\n";
}

} // namespace ptxgen::driver
