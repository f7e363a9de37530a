// The simulator's form table (driver/sim/forms.def): every row
// decodes, unknown and unsupported instructions are reported by DiagId with
// their line, malformed instructions are errors with a DiagId, and faults
// keep their kind apart from their message.

#include "driver/sim/forms.hpp"
#include "driver/sim/simulator.hpp"
#include "driver/sim/tensor_core.hpp"
#include "emitter/ptx/opcode_words.hpp"
#include "emitter/ptx/operand.hpp"
#include "emitter/ptx/printer.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_decode {

using namespace ptxgen::sim;
using ptxgen::DiagId;
using ptxgen::Severity;

namespace {

/// One entry `k(.param .u64 k_out)` with `body` after the register declarations.
std::string one_thread(const std::string& body) {
  return ".version 8.0\n.target sm_80\n.address_size 64\n" // 1-3
         ".visible .entry k(\n\t.param .u64 k_out\n)\n{\n" // 4-7
         "\t.reg .pred %p<4>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n" // 8-11
         "\t.shared .align 16 .b8 s[64];\n"  // 12
         "\tld.param.u64 %rd1, [k_out];\n" + // 13
         body +
         "\tret;\n}\n";
}

constexpr std::uint32_t first_body_line = 14;

/// The ir::Code spelled as in forms.def ("mul_hi").
std::optional<ir::Code> code_named(std::string_view text) {
  static const std::pair<std::string_view, ir::Code> codes[] = {
#define SIM_CODE(code, family) {#code, ir::Code::code},
#define SIM_FORM(mnemonic, code, qualifiers, types, o1, o2, o3, o4)
#include "driver/sim/forms.def"
#undef SIM_FORM
#undef SIM_CODE
  };
  for (const auto& [name, code] : codes)
    if (name == text)
      return code;
  return std::nullopt;
}

/// A line of tests/data/sim/decoder_samples.ptx: `instruction; // code`.
struct Sample {
  std::uint32_t line = 0;
  std::string text;
  ir::Code code = ir::Code::unsupported;
};

/// The sample files: tests/data/sim/decoder_samples.ptx (sm_80), and the rows that need
/// sm_90 in tests/data/sim_mbarrier/decoder_samples.ptx.
const char* const sample_files[] = {
    "sim/decoder_samples.ptx", "sim_mbarrier/decoder_samples.ptx", "sim_sync/decoder_samples.ptx",
    "sim_kernel/decoder_samples.ptx", "sim_tensor_core/decoder_samples.ptx"};

std::string read_samples_file(const std::string& name) {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/tests/data/" + name);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<Sample> samples_of(const std::string& ptx) {
  std::vector<Sample> out;
  std::istringstream in(ptx);
  std::string line;
  for (std::uint32_t n = 1; std::getline(in, line); ++n) {
    auto semi = line.find("; // ");
    if (line.starts_with("//") || semi == std::string::npos)
      continue;
    auto code = code_named(line.substr(semi + 5));
    INFO("line " << n << ": " << line);
    REQUIRE(code.has_value());
    std::size_t start = line.find_first_not_of('\t');
    out.push_back({n, line.substr(start, semi + 1 - start), *code});
  }
  return out;
}

std::string opcode_of(const std::string& sample) {
  std::size_t start = sample.starts_with("@") ? sample.find(' ') + 1 : 0;
  return sample.substr(start, sample.find_first_of(" ;", start) - start);
}

/// The first diagnostic with `id`, or nullptr.
const ptxgen::Diagnostic* find(const ptxgen::Diagnostics& ds, DiagId id) {
  for (const auto& d : ds.items())
    if (d.id == id)
      return &d;
  return nullptr;
}

/// Parses `body` in one_thread; it must fail with an error `id` at the first body line.
void expect_error(const std::string& body, DiagId id) {
  INFO(body);
  auto p = Program::parse(one_thread(body));
  REQUIRE(!p);
  INFO(p.diagnostics.format_all());
  const auto* d = find(p.diagnostics, id);
  REQUIRE(d != nullptr);
  CHECK(d->severity == Severity::error);
  CHECK(d->line == first_body_line);
}

/// Parses `body`: it parses, warns with `id` at the first body line, and running it is
/// `unsupported`.
void expect_unsupported(const std::string& body, DiagId id) {
  INFO(body);
  auto p = Program::parse(one_thread(body));
  REQUIRE_MESSAGE(p, p.diagnostics.format_all());
  INFO(p.diagnostics.format_all());
  const auto* d = find(p.diagnostics, id);
  REQUIRE(d != nullptr);
  CHECK(d->severity == Severity::warning);
  CHECK(d->line == first_body_line);
  CHECK(d->column == 2); // the caret is on the opcode, after the tab
  std::vector<std::uint8_t> out(8, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SimResult r = run(*p, "k", l, mem);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == FaultKind::unsupported);
  CHECK(origin(r.fault->kind) == FaultOrigin::simulator);
  CHECK(r.fault->ptx_line == first_body_line);
  CHECK(r.instructions_executed == 0);
}

} // namespace

TEST_CASE("every row of forms.def has a sample in decoder_samples.ptx, decoded to its code") {
  const auto rows = detail::forms();
  std::vector<int> covered(rows.size(), 0);
  for (const char* file : sample_files) {
    INFO(file);
    const std::string ptx = read_samples_file(file);
    const std::vector<Sample> samples = samples_of(ptx);
    auto p = Program::parse(ptx);
    REQUIRE_MESSAGE(p, p.diagnostics.format_all());
    CHECK_MESSAGE(p.diagnostics.empty(), p.diagnostics.format_all()); // no unsupported warnings
    const auto& ops = p->module().entries.at(0).ops;
    REQUIRE(ops.size() == samples.size());
    for (std::size_t k = 0; k < samples.size(); ++k) {
      INFO("line " << samples[k].line << ": " << samples[k].text);
      const detail::Form* form = detail::find_form(opcode_of(samples[k].text));
      REQUIRE(form != nullptr);
      ++covered[static_cast<std::size_t>(form - rows.data())];
      // cp.async.bulk's row decodes the store to bulk_store and the copy to a peer to bulk_peer
      // by their qualifiers, and cp.async.bulk.tensor's to tensor_store
      const bool by_qualifiers =
          (form->code == ir::Code::bulk_copy &&
           (samples[k].code == ir::Code::bulk_store || samples[k].code == ir::Code::bulk_peer)) ||
          (form->code == ir::Code::tensor_load && samples[k].code == ir::Code::tensor_store) ||
          (form->code == ir::Code::prefetch && samples[k].code == ir::Code::prefetch_tensormap);
      CHECK((form->code == samples[k].code || by_qualifiers));
      CHECK(ops[k].code == samples[k].code);
      CHECK(ops[k].line == samples[k].line);
    }
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    INFO("row " << r << " `" << ptxgen::ptx::spelling(rows[r].mnemonic) << "` has no sample");
    CHECK(covered[r] > 0);
  }
}

TEST_CASE("forms.def: every code but those the parser makes itself has a form; optional operands "
          "come last") {
  // `call` (its own statement grammar); mov_pack / mov_unpack (mov with a vector); bulk_store and
  // bulk_peer (cp.async.bulk's row, by its qualifiers); tensor_store (cp.async.bulk.tensor's row,
  // likewise); prefetch_tensormap (prefetch's row, by `.tensormap`). `unsupported` is the
  // parser's too.
  const std::vector<ir::Code> formless = {ir::Code::call,
                                          ir::Code::mov_pack,
                                          ir::Code::mov_unpack,
                                          ir::Code::bulk_store,
                                          ir::Code::bulk_peer,
                                          ir::Code::tensor_store,
                                          ir::Code::prefetch_tensormap};
  const std::vector<ir::Code> codes = {
#define SIM_CODE(code, family) ir::Code::code,
#define SIM_FORM(mnemonic, code, qualifiers, types, o1, o2, o3, o4)
#include "driver/sim/forms.def"
#undef SIM_FORM
#undef SIM_CODE
  };
  const auto rows = detail::forms();
  for (ir::Code c : codes) {
    if (c == ir::Code::unsupported)
      continue;
    bool has_form =
        std::any_of(rows.begin(), rows.end(), [&](const detail::Form& f) { return f.code == c; });
    CHECK(has_form == (std::find(formless.begin(), formless.end(), c) == formless.end()));
  }
  for (const auto& f : rows) {
    INFO(ptxgen::ptx::spelling(f.mnemonic));
    bool optional_seen = false;
    for (detail::Shape s : f.operands) {
      bool optional = s == detail::Shape::thread_count || s == detail::Shape::fraction ||
                      s == detail::Shape::cp_extra;
      if (s == detail::Shape::none)
        continue;
      CHECK(!(optional_seen && !optional));
      optional_seen = optional_seen || optional;
    }
  }
}

TEST_CASE("special registers: one vocabulary, the emitter's, which the simulator reads") {
  namespace ptx = ptxgen::ptx;
  // Spellings from the PTX ISA, written here by hand.
  CHECK(ptx::parse_special_register("%tid.y") == ptx::SpecialRegister::tid_y);
  CHECK(ptx::parse_special_register("%clock64") == ptx::SpecialRegister::clock64);
  CHECK(ptx::parse_special_register("%lanemask_lt") == ptx::SpecialRegister::lanemask_lt);
  CHECK(ptx::parse_special_register("%reserved_smem_offset_1") ==
        ptx::SpecialRegister::reserved_smem_1);
  CHECK(!ptx::parse_special_register("%envreg0"));
  CHECK(!ptx::parse_special_register("tid.x"));
  std::vector<std::uint8_t> out(8, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  for (std::size_t k = 0; k < ptx::special_register_count; ++k) {
    const auto r = static_cast<ptx::SpecialRegister>(k);
    const std::string text(ptx::name(r));
    INFO(text);
    CHECK(ptx::parse_special_register(text) == r);
    // %is_explicit_cluster is the one predicate among them (PTX ISA)
    auto p = Program::parse(one_thread(r == ptx::SpecialRegister::is_explicit_cluster
                                           ? "\tmov.pred %p1, " + text + ";\n"
                                           : "\tmov.u64 %rd2, " + text + ";\n"));
    REQUIRE_MESSAGE(p, p.diagnostics.format_all());
    CHECK(p.diagnostics.items().empty());
    CHECK(!run(*p, "k", l, mem).fault);
  }
}

TEST_CASE("every instruction kind the emitter prints, the simulator decodes without a word") {
  namespace ptx = ptxgen::ptx;
  using ptx::Address, ptx::Immediate, ptx::Register, ptx::RegClass, ptx::ScalarType;
  const Register r1{RegClass::b32, 1}, r2{RegClass::b32, 2}, rd1{RegClass::b64, 1},
      rd2{RegClass::b64, 2}, rd3{RegClass::b64, 3}, p1{RegClass::pred, 1};
  const ptx::Symbol smem{"s"};
  std::vector<ptx::InstructionBody> kinds;
  for (const ptx::CpAsyncOpcode& o :
       {ptx::CpAsyncOpcode{ptx::CacheOp::cg, ptx::SharedSpace::shared, false,
                           ptx::L2Prefetch::none},
        ptx::CpAsyncOpcode{ptx::CacheOp::ca, ptx::SharedSpace::shared_cta, true,
                           ptx::L2Prefetch::b256}}) {
    ptx::CpAsync c;
    c.opcode = o;
    c.dst = Address{smem, 16};
    c.src = Address{rd1, 0};
    if (o.cache_hint)
      c.cache_policy = rd2;
    kinds.push_back(c);
  }
  kinds.push_back(ptx::CpAsyncCommitGroup{});
  kinds.push_back(ptx::CpAsyncWaitGroup{1});
  kinds.push_back(ptx::CpAsyncWaitAll{});
  kinds.push_back(ptx::CpAsyncMbarrierArrive{true, ptx::SharedSpace::shared, Address{smem, 0}});
  kinds.push_back(ptx::MbarrierInit{ptx::SharedSpace::shared_cta, Address{smem, 0}, Immediate{32}});
  kinds.push_back(ptx::MbarrierArrive{std::nullopt, rd3, Address{rd2, 0}});
  kinds.push_back(ptx::MbarrierWait{ptx::MbarrierWaitKind::test, false, ptx::SharedSpace::shared,
                                    p1, Address{smem, 0}, rd3});
  kinds.push_back(ptx::MbarrierWait{ptx::MbarrierWaitKind::test, true, std::nullopt, p1,
                                    Address{rd2, 0}, Immediate{1}});
  // The bulk family: the 1-D load, expect_tx and the fences are simulated.
  ptx::CpAsyncBulkLoad bulk_load;
  bulk_load.dst = Address{smem, 16};
  bulk_load.src = Address{rd1, 0};
  bulk_load.size = Immediate{32};
  bulk_load.mbar = Address{smem, 0};
  kinds.push_back(bulk_load);
  kinds.push_back(ptx::MbarrierExpectTx{ptx::MbarrierScope::cta, ptx::SharedSpace::shared_cta,
                                        Address{smem, 0}, Immediate{64}});
  kinds.push_back(ptx::MbarrierArriveExpectTx{
      ptx::MbarrierOrder{ptx::MbarrierSem::release, ptx::MbarrierScope::cta},
      ptx::SharedSpace::shared_cta, rd3, Address{smem, 0}, r2});
  kinds.push_back(ptx::FenceProxyAsync{ptx::ProxySpace::shared_cta});
  kinds.push_back(ptx::FenceMbarrierInit{});
  kinds.push_back(ptx::CreatePolicyFractional{rd2, ptx::EvictionPriority::evict_first,
                                              ptx::EvictionPriority::evict_unchanged, 0.5f});
  kinds.push_back(ptx::Mov{ScalarType::u32, r1, ptx::SpecialRegister::tid_x});
  kinds.push_back(
      ptx::Ld{ptx::StateSpace::param, ScalarType::u64, {rd1}, Address{ptx::Symbol{"k_out"}, 0}});
  kinds.push_back(ptx::Ld{ptx::StateSpace::shared, ScalarType::u32, {r1, r2}, Address{smem, 8}});
  kinds.push_back(ptx::St{ptx::StateSpace::global, ScalarType::u32, Address{rd1, 4}, {r1}});
  kinds.push_back(ptx::Cvta{ptx::StateSpace::global, ScalarType::u64, rd2, rd1});
  kinds.push_back(ptx::Unary{ptx::UnaryOp::not_, ScalarType::pred, p1, p1});
  kinds.push_back(ptx::Unary{ptx::UnaryOp::neg, ScalarType::s32, r1, r2});
  for (ptx::BinaryOp op :
       {ptx::BinaryOp::add, ptx::BinaryOp::sub, ptx::BinaryOp::mul_lo, ptx::BinaryOp::div,
        ptx::BinaryOp::rem, ptx::BinaryOp::min, ptx::BinaryOp::max})
    kinds.push_back(ptx::Binary{op, ScalarType::u32, r1, r2, Immediate{3}});
  for (ptx::BinaryOp op : {ptx::BinaryOp::shl, ptx::BinaryOp::shr, ptx::BinaryOp::and_,
                           ptx::BinaryOp::or_, ptx::BinaryOp::xor_})
    kinds.push_back(ptx::Binary{op, ScalarType::b32, r1, r2, Immediate{3}});
  kinds.push_back(ptx::Binary{ptx::BinaryOp::mul_wide, ScalarType::u32, rd2, r1, Immediate{4}});
  kinds.push_back(ptx::Mad{false, ScalarType::u32, r1, r2, Immediate{3}, r1});
  kinds.push_back(ptx::Mad{true, ScalarType::u32, rd2, r2, Immediate{3}, rd1});
  kinds.push_back(ptx::Cvt{ScalarType::u64, ScalarType::u32, rd1, r1});
  for (ptx::CompareOp c :
       {ptx::CompareOp::eq, ptx::CompareOp::ne, ptx::CompareOp::lt, ptx::CompareOp::le,
        ptx::CompareOp::gt, ptx::CompareOp::ge, ptx::CompareOp::lo, ptx::CompareOp::ls,
        ptx::CompareOp::hi, ptx::CompareOp::hs})
    kinds.push_back(ptx::Setp{c, ScalarType::u32, p1, r1, Immediate{7}});
  kinds.push_back(ptx::Selp{ScalarType::u32, r2, Immediate{16}, Immediate{0}, p1});
  kinds.push_back(ptx::BarSync{0});
  kinds.push_back(ptx::Bra{"$L_end", true});
  kinds.push_back(ptx::Label{"$L_end"});
  kinds.push_back(
      ptx::CpAsyncBulkStore{false, Address{rd1, 0}, Address{smem, 0}, Immediate{16}, {}});
  kinds.push_back(ptx::CpReduceAsyncBulk{ptx::BulkRedOp::add,
                                         ptx::BulkRedType::bf16,
                                         false,
                                         Address{rd1, 0},
                                         Address{smem, 0},
                                         Immediate{16},
                                         {}});
  kinds.push_back(ptx::CpAsyncBulkCommitGroup{});
  kinds.push_back(ptx::CpAsyncBulkWaitGroup{0, true});
  kinds.push_back(ptx::CpAsyncBulkWaitGroup{1, false});
  const ptx::TensorOperand tensor{rd2, {r1, r2}};
  kinds.push_back(ptx::CpAsyncBulkTensorLoad{ptx::TensorRank::d2,
                                             ptx::BulkDst::shared_cluster,
                                             false,
                                             Address{smem, 0},
                                             tensor,
                                             Address{smem, 8},
                                             {}});
  kinds.push_back(
      ptx::CpAsyncBulkTensorStore{ptx::TensorRank::d2, false, tensor, Address{smem, 0}, {}});
  kinds.push_back(ptx::CpAsyncBulkPrefetch{false, Address{rd1, 0}, Immediate{16}, {}});
  kinds.push_back(ptx::CpAsyncBulkPrefetchTensor{ptx::TensorRank::d2, false, tensor, {}});
  kinds.push_back(ptx::CpReduceAsyncBulkTensor{
      ptx::TensorRank::d2, ptx::BulkRedOp::min, false, tensor, Address{smem, 0}, {}});
  kinds.push_back(ptx::PrefetchTensormap{ptx::TensormapSpace::generic, Address{rd2, 0}});
  kinds.push_back(ptx::BarrierClusterArrive{false});
  kinds.push_back(ptx::BarrierClusterWait{});
  // A peer view's access (S@rank): mapa, then ld/st.shared::cluster.
  kinds.push_back(ptx::Mapa{r2, r1, Immediate{1}});
  kinds.push_back(ptx::Ld{ptx::StateSpace::shared_cluster, ScalarType::b32, {r1}, Address{r2, 4}});
  kinds.push_back(ptx::St{ptx::StateSpace::shared_cluster, ScalarType::b32, Address{r2, 4}, {r1}});
  kinds.push_back(ptx::TensormapReplace{ptx::TensormapField::global_dim, false, Address{rd1, 0},
                                        Immediate{1}, r1});
  kinds.push_back(ptx::FenceProxyTensormap{true, Address{rd1, 0}});
  kinds.push_back(ptx::TensormapCpFenceproxy{Address{rd1, 0}, Address{smem, 0}});
  // A bulk copy into a peer and a remote arrival (bulk_copy_peer, mbarrier_arrive on B@rank).
  kinds.push_back(
      ptx::CpAsyncBulkPeer{Address{r2, 0}, Address{smem, 16}, Immediate{16}, Address{r1, 0}});
  kinds.push_back(ptx::MbarrierArriveRemote{Address{r1, 0}});
  // The warps' roles: named barriers with a thread count, setmaxnreg (decoded, no effect).
  kinds.push_back(ptx::NamedBarrier{1, 64, false});
  kinds.push_back(ptx::NamedBarrier{2, 128, true});
  kinds.push_back(ptx::Setmaxnreg{true, 232});
  kinds.push_back(ptx::Ret{});
  std::set<std::size_t> seen;
  std::string body;
  for (const auto& k : kinds) {
    seen.insert(k.index());
    body += "\t" + ptx::print(ptx::Instruction{std::nullopt, k, ""}) + "\n";
  }
  INFO(body);
  CHECK(seen.size() == std::variant_size_v<ptx::InstructionBody>); // every kind has a sample
  auto p = Program::parse(one_thread(body));
  REQUIRE_MESSAGE(p, p.diagnostics.format_all());
  CHECK_MESSAGE(p.diagnostics.items().empty(), p.diagnostics.format_all());
}

TEST_CASE("the longest mnemonic prefix wins") {
  REQUIRE(detail::find_form("cp.async.wait_group") != nullptr);
  CHECK(detail::find_form("cp.async.wait_group")->code == ir::Code::wait_group);
  CHECK(detail::find_form("cp.async.cg.shared.global")->code == ir::Code::cp_async);
  CHECK(detail::find_form("mul.wide.s32")->code == ir::Code::mul_wide);
  CHECK(detail::find_form("mad.lo.s32")->code == ir::Code::mad_lo);
  CHECK(detail::find_form("mad.rn.f32")->code == ir::Code::fma); // the float "mad" row
  CHECK(detail::find_form("testp.finite.f32") == nullptr);
}

TEST_CASE("one table of mnemonics: each of the emitter's mnemonics names exactly one simulated "
          "form, and each form one mnemonic") {
  namespace ptx = ptxgen::ptx;
  const auto rows = detail::forms();
  std::size_t mnemonics = 0;
#define PTXGEN_PTX_MNEMONIC(id, text)                                                              \
  ++mnemonics;                                                                                     \
  CHECK_MESSAGE(                                                                                   \
      std::count_if(rows.begin(), rows.end(),                                                      \
                    [](const detail::Form& f) { return f.mnemonic == ptx::Mnemonic::id; }) == 1,   \
      text);                                                                                       \
  CHECK(ptx::spelling(ptx::Mnemonic::id) == text);
#include "emitter/ptx/mnemonics.def"
#undef PTXGEN_PTX_MNEMONIC
  CHECK(rows.size() == mnemonics);
  // Spellings and prefixes from the PTX ISA, written here by hand.
  CHECK(ptx::parse_mnemonic("mbarrier.try_wait.parity.shared.b64")->mnemonic ==
        ptx::Mnemonic::mbarrier_try_wait_parity);
  CHECK(ptx::parse_mnemonic("mbarrier.try_wait.parity.shared.b64")->words == 3);
  CHECK(ptx::parse_mnemonic("mul.f32")->mnemonic == ptx::Mnemonic::mul);
  CHECK(!ptx::parse_mnemonic("mull.lo.s32"));
  CHECK(ptx::known_root("mad"));
  CHECK(!ptx::known_root("testp"));
}

TEST_CASE("one table of qualifier words: each word of every decoder sample is the emitter's") {
  namespace ptx = ptxgen::ptx;
  for (std::size_t k = 0; k < std::size(ptx::detail::qualifier_rows); ++k) {
    const auto q = static_cast<ptx::Qualifier>(k);
    INFO(ptx::spelling(q));
    CHECK(ptx::parse_qualifier(ptx::spelling(q)) == q); // one row per spelling
    CHECK(!ptx::parse_scalar_type(ptx::spelling(q)));   // types are ScalarType's
  }
  // Spellings from the PTX ISA, written here by hand.
  CHECK(ptx::parse_qualifier("shared::cluster") == ptx::Qualifier::shared_cluster);
  CHECK(ptx::parse_rounding("rzi") == ptx::Rounding::rzi);
  CHECK(!ptx::parse_rounding("ftz"));
  CHECK(ptx::parse_compare_op("gtu") == ptx::CompareOp::gtu);
  const auto ld = ptx::read_opcode("ld.global.L2::128B.v2.u32");
  REQUIRE(ld);
  CHECK(ld->mnemonic == ptx::Mnemonic::ld);
  REQUIRE(ld->qualifiers.size() == 4);
  CHECK(ld->qualifiers[0].qualifier == ptx::Qualifier::global);
  CHECK(ld->qualifiers[1].qualifier == ptx::Qualifier::L2_128B);
  CHECK(ld->qualifiers[2].qualifier == ptx::Qualifier::v2);
  CHECK(ld->qualifiers[3].text == "u32");
  CHECK(!ld->qualifiers[3].qualifier);
  CHECK(ptx::read_opcode("mul.lo")->qualifiers.empty());
  CHECK(ptx::read_opcode("mov..u32")->qualifiers.size() == 2); // the empty word is kept
  CHECK(!ptx::read_opcode("testp.finite.f32"));
  CHECK(ptx::float_only(ptx::CompareOp::nan));
  CHECK(!ptx::float_only(ptx::CompareOp::hs));
  // Every qualifier the simulator decodes in its samples is a word of the emitter's
  // vocabulary: a qualifier word, a type, a comparison or an eviction priority; or, of a
  // tensor-core form, one of the tensor-core reader's words (driver/sim/tensor_core.hpp: shapes
  // and element types are families, the layout words are to move into qualifiers.def).
  for (const char* file : sample_files) {
    for (const Sample& s : samples_of(read_samples_file(file))) {
      const std::string opcode = opcode_of(s.text);
      const auto m = ptx::parse_mnemonic(opcode);
      REQUIRE(m);
      std::vector<std::string> words;
      std::istringstream in(opcode);
      for (std::string w; std::getline(in, w, '.');)
        words.push_back(w);
      for (std::size_t w = m->words; w < words.size(); ++w) {
        INFO(s.text << ": `." << words[w] << "`");
        const std::string_view q = words[w];
        const bool tensor = s.code == ir::Code::mma || s.code == ir::Code::wgmma ||
                            s.code == ir::Code::wmma_load || s.code == ir::Code::wmma_store ||
                            s.code == ir::Code::wmma_mma;
        CHECK((ptx::parse_qualifier(q) || ptx::parse_scalar_type(q) || ptx::parse_compare_op(q) ||
               (q.starts_with("L2::") && ptx::parse_eviction_priority(q.substr(4))) ||
               (tensor && tc::is_tensor_word(q))));
      }
    }
  }
}

TEST_CASE("instructions outside the subset parse with a warning DiagId and fault `unsupported`") {
  SUBCASE("unknown mnemonic") {
    expect_unsupported("\ttestp.finite.f32 %p1, %r1;\n", DiagId::sim_unknown_instruction);
  }
  SUBCASE("known mnemonic, unsimulated form") {
    expect_unsupported("\tmad.hi.s32 %r1, %r2, %r3, %r4;\n", DiagId::sim_unsupported_form);
  }
  SUBCASE("float form with an unsimulated qualifier") {
    expect_unsupported("\tmin.xorsign.abs.f32 %r1, %r2, %r3;\n", DiagId::sim_unsupported_form);
  }
  SUBCASE("packed float comparison") {
    expect_unsupported("\tsetp.lt.f16x2 %p1, %r2, %r3;\n", DiagId::sim_unsupported_form);
  }
  SUBCASE("packed 16-bit integer pairs beyond add / min / max (sm_90's add.u16x2 runs)") {
    expect_unsupported("\tsub.u16x2 %r1, %r2, %r3;\n", DiagId::sim_unsupported_form);
    expect_unsupported("\tneg.s16x2 %r1, %r2;\n", DiagId::sim_unsupported_form);
  }
  SUBCASE("bulk forms the simulator does not run yet") {
    for (const char* body :
         {"\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes "
          "[s], [%rd1, {%r1, %r2, %r3}], [s+8], {%rs1};\n",
          "\tcp.async.bulk.global.shared::cluster.bulk_group [%rd1], [s], 16;\n"})
      expect_unsupported(body, DiagId::sim_unsupported_form);
  }
  SUBCASE("unsimulated special register") {
    expect_unsupported("\tmov.u32 %r1, %envreg0;\n", DiagId::sim_unsupported_operand);
  }
}

TEST_CASE("malformed instructions are errors with a DiagId") {
  SUBCASE("operand shape: an address where a value goes") {
    expect_error("\tadd.s32 %r1, [%rd1], 2;\n", DiagId::sim_operand_kind);
  }
  SUBCASE("operand shape: a number where a label goes") {
    expect_error("\tbra 5;\n", DiagId::sim_operand_kind);
  }
  SUBCASE("operand shape: a value where an address goes") {
    expect_error("\tld.global.u32 %r1, %rd1;\n", DiagId::sim_operand_kind);
  }
  SUBCASE("operand count") {
    expect_error("\tadd.s32 %r1, %r2;\n", DiagId::sim_operand_count);
  }
  SUBCASE("operand width") {
    expect_error("\tadd.u32 %r1, %rd2, 1;\n", DiagId::sim_operand_width);
  }
  SUBCASE("qualifier") {
    expect_error("\tret.foo;\n", DiagId::sim_qualifier);
  }
  SUBCASE("not a type") {
    expect_error("\tadd.q32 %r1, %r2, 1;\n", DiagId::sim_qualifier);
  }
  SUBCASE(".pred where it is not taken") {
    expect_error("\tadd.pred %p1, %p2, %p3;\n", DiagId::sim_qualifier);
  }
  SUBCASE("range") {
    expect_error("\tbar.sync 16;\n", DiagId::sim_operand_range);
  }
  SUBCASE("undeclared label") {
    expect_error("\tbra $L_nowhere;\n", DiagId::sim_undeclared);
  }
  SUBCASE("undeclared register") {
    expect_error("\tmov.u32 %r99, 1;\n", DiagId::sim_undeclared);
  }
  SUBCASE("syntax") {
    expect_error("\tadd.s32 %r1 %r2, 1;\n", DiagId::sim_syntax);
  }
}

TEST_CASE(
    "cp.async's qualifiers are read by the emitter's grammar: errors point at the qualifier") {
  struct Case {
    const char* opcode;
    std::uint32_t column; ///< of the offending qualifier's dot (the opcode starts at column 2)
  };
  const Case cases[] = {
      {"cp.async.ca.cg.shared.global", 13},      // a second cache operator
      {"cp.async.ca.global.shared", 13},         // the source space before the destination
      {"cp.async.cs.shared.global", 10},         // not a cp.async cache operator
      {"cp.async.cg.shared.global.L2::96B", 27}, // not a prefetch size
  };
  for (const Case& c : cases) {
    const std::string body = "\t" + std::string(c.opcode) + " [%r1], [%rd1], 16;\n";
    INFO(body);
    auto p = Program::parse(one_thread(body));
    REQUIRE(!p);
    const auto* d = find(p.diagnostics, DiagId::sim_qualifier);
    REQUIRE(d != nullptr);
    CHECK(d->line == first_body_line);
    CHECK(d->column == c.column);
  }
  auto ok = Program::parse(one_thread("\tcp.async.shared.global.cg.L2::128B [%r1], [%rd1], 16;\n"));
  CHECK_MESSAGE(ok, ok.diagnostics.format_all());
}

TEST_CASE(
    "unsupported declarations are errors sim_unsupported_construct; run() calls them unsupported") {
  std::string ptx =
      ".version 8.0\n.target sm_80\n.address_size 32\n.visible .entry f()\n{\n\tret;\n}\n";
  auto p = Program::parse(ptx);
  REQUIRE(!p);
  REQUIRE(find(p.diagnostics, DiagId::sim_unsupported_construct) != nullptr);
  std::vector<GlobalBuffer> mem;
  SimResult r = run(ptx, "f", Launch{}, mem);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == FaultKind::unsupported);
  CHECK(r.fault->ptx_line == 3);
  SimResult bad = run(one_thread("\tmov.u32 %r99, 1;\n"), "k", Launch{}, mem);
  REQUIRE(bad.fault);
  CHECK(bad.fault->kind == FaultKind::invalid_ptx);
  CHECK(origin(bad.fault->kind) == FaultOrigin::caller);
}

TEST_CASE("a fault's message does not repeat its kind") {
  std::vector<std::uint8_t> out(8, 0);
  std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
  Launch l;
  l.params = {0x1000};
  SUBCASE("a kernel fault") {
    SimResult r = run(one_thread("\tst.global.u32 [%rd1+2], %r1;\n"), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::misaligned_address);
    CHECK(origin(r.fault->kind) == FaultOrigin::kernel);
    CHECK(r.fault->message.find(name(r.fault->kind)) == std::string::npos);
  }
  SUBCASE("unsupported") {
    SimResult r = run(one_thread("\ttestp.finite.f32 %p1, %r1;\n"), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->message.find(name(FaultKind::unsupported)) == std::string::npos);
  }
  SUBCASE("invalid PTX") {
    SimResult r = run(one_thread("\tmov.u32 %r1, %r77;\n"), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::invalid_ptx);
    CHECK(r.fault->message.find(name(FaultKind::invalid_ptx)) == std::string::npos);
  }
  SUBCASE("a runaway loop is an instruction_limit, not an unsupported instruction") {
    l.max_instructions = 1000;
    SimResult r = run(one_thread("$L_spin:\n\tbra $L_spin;\n"), "k", l, mem);
    REQUIRE(r.fault);
    CHECK(r.fault->kind == FaultKind::instruction_limit);
    CHECK(origin(r.fault->kind) == FaultOrigin::simulator);
  }
}

TEST_CASE("setp: each comparison, signed and unsigned, worked out by hand for a = -1, b = 1") {
  struct Case {
    const char* cmp;
    bool s32; ///< -1 < 1
    bool u32; ///< 0xFFFFFFFF > 1
  };
  const Case cases[] = {{"eq", false, false}, {"ne", true, true},   {"lt", true, false},
                        {"le", true, false},  {"gt", false, true},  {"ge", false, true},
                        {"lo", false, false}, {"ls", false, false}, {"hi", true, true},
                        {"hs", true, true}};
  for (const auto& c : cases) {
    for (bool is_signed : {true, false}) {
      std::string type = is_signed ? "s32" : "u32";
      INFO("setp." << c.cmp << "." << type);
      std::vector<std::uint8_t> out(4, 0xEE);
      std::vector<GlobalBuffer> mem = {{0x1000, &out, "out"}};
      Launch l;
      l.params = {0x1000};
      SimResult r = run(one_thread("\tmov.u32 %r1, -1;\n\tmov.u32 %r2, 1;\n\tsetp." +
                                   std::string(c.cmp) + "." + type +
                                   " %p1, %r1, %r2;\n\tselp.u32 %r3, 1, 0, %p1;\n"
                                   "\tst.global.u32 [%rd1], %r3;\n"),
                        "k", l, mem);
      REQUIRE_MESSAGE(!r.fault, r.fault->message);
      CHECK(out[0] == ((is_signed ? c.s32 : c.u32) ? 1 : 0));
    }
  }
}

} // namespace unit_sim_decode
