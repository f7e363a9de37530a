// The sm_90 bulk-copy family (emitter/ptx/bulk.hpp): each form printed as the PTX ISA writes
// it, its gates, the validator's refusals and the opcode reader `ptxgen instr` uses. The
// expected texts are written by hand from the PTX ISA manual and ptxas 13.0's behaviour
// (docs/ptx-rules.md, "Bulk copies"); the agreement test checks every form against ptxas itself.

#include "emitter/ptx/bulk_opcode.hpp"
#include "emitter/ptx/printer.hpp"
#include "emitter/ptx/validator.hpp"

#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_ptx_bulk {

using namespace ptxgen::ptx;
using ptxgen::DiagId;

namespace {

const Register r1{RegClass::b32, 1}, r2{RegClass::b32, 2}, r3{RegClass::b32, 3};
const Register rd1{RegClass::b64, 1}, rd2{RegClass::b64, 2}, rd3{RegClass::b64, 3};
const Target sm90{90, false}, sm89{89, false};
const PtxVersion v80{8, 0}, v86{8, 6};

std::string p(InstructionBody b) {
  return print(Instruction{std::nullopt, std::move(b), ""});
}

ptxgen::Diagnostics check(InstructionBody b, Target t = sm90, PtxVersion v = v80) {
  return validate(Instruction{std::nullopt, std::move(b), ""}, t, v);
}

CpAsyncBulkLoad load(Operand size = Immediate{256}) {
  CpAsyncBulkLoad c;
  c.dst = Address{Symbol{"smem"}, 0};
  c.src = Address{rd1, 0};
  c.size = size;
  c.mbar = Address{r2, 0};
  return c;
}

CpAsyncBulkStore store(Operand size = Immediate{256}) {
  return CpAsyncBulkStore{false, Address{rd1, 16}, Address{r1, 0}, size, {}};
}

/// The tensor map in %rd2 and the first n of %r1..%r6 as coordinates.
TensorOperand coords(std::size_t n) {
  static const Operand regs[] = {Register{RegClass::b32, 1}, Register{RegClass::b32, 2},
                                 Register{RegClass::b32, 3}, Register{RegClass::b32, 4},
                                 Register{RegClass::b32, 5}, Register{RegClass::b32, 6}};
  return TensorOperand{rd2, std::vector<Operand>(regs, regs + n)};
}

/// The opcode text of a kind as printed: its line up to the first space or `;`.
std::string opcode_of(InstructionBody b) {
  const std::string line = p(std::move(b));
  return line.substr(0, line.find_first_of(" ;"));
}

/// Reads an opcode with parse_bulk_opcode and prints it back (operands left empty).
std::string reread(std::string_view text) {
  ptxgen::Result<BulkKind> k = parse_bulk_opcode(text);
  REQUIRE_MESSAGE(k, k.diagnostics.format_all());
  return opcode_of(body_of(*k));
}

/// The one diagnostic parse_bulk_opcode gives `text`: its id and 1-based column.
std::pair<DiagId, std::uint32_t> refusal(std::string_view text) {
  ptxgen::Result<BulkKind> k = parse_bulk_opcode(text);
  REQUIRE(!k);
  REQUIRE(k.diagnostics.items().size() == 1);
  const auto& d = k.diagnostics.items().front();
  return {d.id, d.column};
}

} // namespace

TEST_CASE("1-D bulk copies print as the PTX ISA writes them") {
  CHECK(p(load()) == "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                     "[smem], [%rd1], 256, [%r2];");
  auto hinted = load(r3);
  hinted.dst_space = BulkDst::shared_cta;
  hinted.cache_hint = true;
  hinted.cache_policy = rd3;
  CHECK(p(hinted) == "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes."
                     "L2::cache_hint [smem], [%rd1], %r3, [%r2], %rd3;");
  CHECK(p(store()) == "cp.async.bulk.global.shared::cta.bulk_group [%rd1+16], [%r1], 256;");
  CHECK(p(CpAsyncBulkStore{true, Address{rd1, 0}, Address{r1, 0}, Immediate{16}, rd2}) ==
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [%r1], 16, %rd2;");
  CHECK(p(CpAsyncBulkCommitGroup{}) == "cp.async.bulk.commit_group;");
  CHECK(p(CpAsyncBulkWaitGroup{2, false}) == "cp.async.bulk.wait_group 2;");
  CHECK(p(CpAsyncBulkWaitGroup{0, true}) == "cp.async.bulk.wait_group.read 0;");
  CHECK(p(CpAsyncBulkPrefetch{false, Address{rd1, 0}, Immediate{4096}, {}}) ==
        "cp.async.bulk.prefetch.L2.global [%rd1], 4096;");
  CHECK(p(CpAsyncBulkPrefetch{true, Address{rd1, 0}, r1, Immediate{0}}) ==
        "cp.async.bulk.prefetch.L2.global.L2::cache_hint [%rd1], %r1, 0;");
}

TEST_CASE("tensor tiles print with their rank, `.tile` and the tensor operand") {
  CHECK(p(CpAsyncBulkTensorLoad{TensorRank::d2,
                                BulkDst::shared_cluster,
                                false,
                                Address{Symbol{"smem"}, 0},
                                coords(2),
                                Address{r3, 0},
                                {}}) ==
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[smem], [%rd2, {%r1, %r2}], [%r3];");
  CHECK(p(CpAsyncBulkTensorLoad{TensorRank::d1, BulkDst::shared_cta, true, Address{r3, 0},
                                TensorOperand{rd2, {Immediate{-8}}}, Address{r3, 8}, rd3}) ==
        "cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes."
        "L2::cache_hint [%r3], [%rd2, {-8}], [%r3+8], %rd3;");
  CHECK(p(CpAsyncBulkTensorStore{TensorRank::d5, false, coords(5), Address{r1, 0}, {}}) ==
        "cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group "
        "[%rd2, {%r1, %r2, %r3, %r4, %r5}], [%r1];");
  CHECK(p(CpAsyncBulkPrefetchTensor{TensorRank::d3, true, coords(3), rd3}) ==
        "cp.async.bulk.prefetch.tensor.3d.L2.global.tile.L2::cache_hint [%rd2, {%r1, %r2, %r3}], "
        "%rd3;");
}

TEST_CASE("tensor reductions and prefetch.tensormap print as ptxas 13.0 assembles them") {
  // The tensor form names no type: the `.redOp` sits between the spaces and `.tile`.
  CHECK(p(CpReduceAsyncBulkTensor{
            TensorRank::d2, BulkRedOp::add, false, coords(2), Address{r1, 0}, {}}) ==
        "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group "
        "[%rd2, {%r1, %r2}], [%r1];");
  CHECK(p(CpReduceAsyncBulkTensor{TensorRank::d5, BulkRedOp::xor_, true, coords(5),
                                  Address{Symbol{"smem"}, 0}, rd3}) ==
        "cp.reduce.async.bulk.tensor.5d.global.shared::cta.xor.tile.bulk_group.L2::cache_hint "
        "[%rd2, {%r1, %r2, %r3, %r4, %r5}], [smem], %rd3;");
  CHECK(p(PrefetchTensormap{TensormapSpace::generic, Address{rd2, 0}}) ==
        "prefetch.tensormap [%rd2];");
  CHECK(p(PrefetchTensormap{TensormapSpace::param, Address{Symbol{"map"}, 0}}) ==
        "prefetch.param.tensormap [map];");
}

TEST_CASE("transaction counts and the async-proxy fences print as the PTX ISA writes them") {
  CHECK(p(MbarrierExpectTx{std::nullopt, SharedSpace::shared_cta, Address{r1, 0}, Immediate{64}}) ==
        "mbarrier.expect_tx.shared::cta.b64 [%r1], 64;");
  CHECK(p(MbarrierExpectTx{MbarrierScope::cluster, std::nullopt, Address{rd1, 0}, r2}) ==
        "mbarrier.expect_tx.relaxed.cluster.b64 [%rd1], %r2;");
  CHECK(p(MbarrierArriveExpectTx{MbarrierOrder{MbarrierSem::release, MbarrierScope::cta},
                                 SharedSpace::shared_cta, std::nullopt, Address{r1, 0},
                                 Immediate{4096}}) ==
        "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%r1], 4096;");
  CHECK(p(MbarrierArriveExpectTx{std::nullopt, SharedSpace::shared, rd2, Address{r1, 8}, r3}) ==
        "mbarrier.arrive.expect_tx.shared.b64 %rd2, [%r1+8], %r3;");
  CHECK(p(FenceProxyAsync{}) == "fence.proxy.async;");
  CHECK(p(FenceProxyAsync{ProxySpace::shared_cta}) == "fence.proxy.async.shared::cta;");
  CHECK(p(FenceProxyAsync{ProxySpace::global}) == "fence.proxy.async.global;");
  CHECK(p(FenceProxyAsync{ProxySpace::shared_cluster}) == "fence.proxy.async.shared::cluster;");
  CHECK(p(FenceMbarrierInit{}) == "fence.mbarrier_init.release.cluster;");
}

TEST_CASE("the bulk family's gates: sm_90 and PTX 8.0; 8.6 for `.shared::cta` loads and "
          "`.relaxed` arrivals") {
  const std::vector<InstructionBody> all = {
      load(),
      store(),
      CpAsyncBulkCommitGroup{},
      CpAsyncBulkWaitGroup{1, true},
      CpAsyncBulkPrefetch{false, Address{rd1, 0}, Immediate{16}, {}},
      CpAsyncBulkTensorLoad{TensorRank::d3,
                            BulkDst::shared_cluster,
                            false,
                            Address{r1, 0},
                            coords(3),
                            Address{r2, 0},
                            {}},
      CpAsyncBulkTensorStore{TensorRank::d1, false, coords(1), Address{r1, 0}, {}},
      CpAsyncBulkPrefetchTensor{TensorRank::d4, false, coords(4), {}},
      MbarrierExpectTx{MbarrierScope::cta, SharedSpace::shared_cta, Address{r1, 0}, Immediate{16}},
      MbarrierArriveExpectTx{std::nullopt, std::nullopt, rd2, Address{rd1, 0}, Immediate{16}},
      FenceProxyAsync{ProxySpace::shared_cta},
      FenceMbarrierInit{}};
  for (const InstructionBody& b : all) {
    CAPTURE(p(b));
    CHECK(check(b).empty());
    CHECK(check(b, sm89, v80).has(DiagId::ptx_feature_target));
    CHECK(check(b, sm90, {7, 8}).has(DiagId::ptx_feature_version));
    CHECK(check(b, {100, false}, v86).empty());
  }
  auto cta = load();
  cta.dst_space = BulkDst::shared_cta;
  CHECK(check(cta, sm90, {8, 5}).has(DiagId::ptx_feature_version));
  CHECK(check(cta, sm90, v86).empty());
  const CpAsyncBulkTensorLoad tensor_cta{TensorRank::d2, BulkDst::shared_cta, false, Address{r1, 0},
                                         coords(2),      Address{r2, 0},      {}};
  CHECK(check(tensor_cta, sm90, {8, 5}).has(DiagId::ptx_feature_version));
  CHECK(check(tensor_cta, sm90, v86).empty());
  const MbarrierArriveExpectTx relaxed{MbarrierOrder{MbarrierSem::relaxed, MbarrierScope::cta},
                                       SharedSpace::shared_cta, std::nullopt, Address{r1, 0},
                                       Immediate{16}};
  CHECK(check(relaxed, sm90, {8, 5}).has(DiagId::ptx_feature_version));
  CHECK(check(relaxed, sm90, v86).empty());
  // expect_tx takes `.relaxed` from 8.0 (ptxas 13.0; only the arrive form needs 8.6).
  CHECK(check(MbarrierExpectTx{MbarrierScope::cluster, SharedSpace::shared, Address{r1, 0},
                               Immediate{16}})
            .empty());
}

TEST_CASE("bulk sizes: whole 16-byte granules up to 1048560, as ptxas checks") {
  for (std::int64_t ok : {std::int64_t{0}, std::int64_t{16}, std::int64_t{1048560}}) {
    CAPTURE(ok);
    CHECK(check(load(Immediate{ok})).empty());
    CHECK(check(store(Immediate{ok})).empty());
    CHECK(check(CpAsyncBulkPrefetch{false, Address{rd1, 0}, Immediate{ok}, {}}).empty());
  }
  for (std::int64_t bad : {std::int64_t{8}, std::int64_t{17}, std::int64_t{1048552}}) {
    CAPTURE(bad);
    CHECK(check(load(Immediate{bad})).has(DiagId::ptx_bulk_size_multiple));
    CHECK(check(store(Immediate{bad})).has(DiagId::ptx_bulk_size_multiple));
    CHECK(check(CpAsyncBulkPrefetch{false, Address{rd1, 0}, Immediate{bad}, {}})
              .has(DiagId::ptx_bulk_size_multiple));
  }
  for (std::int64_t bad : {std::int64_t{-16}, std::int64_t{1048576}}) {
    CAPTURE(bad);
    CHECK(check(load(Immediate{bad})).has(DiagId::ptx_bulk_size_range));
    CHECK(check(store(Immediate{bad})).has(DiagId::ptx_bulk_size_range));
  }
  // A register size is checked at run time (the prover's job); a 64-bit one is refused.
  CHECK(check(load(r3)).empty());
  CHECK(check(load(rd3)).has(DiagId::ptx_register_class));
}

TEST_CASE("the validator's other refusals of the bulk family") {
  SUBCASE("a global address or a tensor map in 32 bits (ptxas takes both; ptxgen does not)") {
    auto c = load();
    c.src = Address{r1, 0};
    CHECK(check(c).has(DiagId::ptx_address_register));
    CHECK(check(CpAsyncBulkTensorStore{
                    TensorRank::d1, false, TensorOperand{r2, {r1}}, Address{r1, 0}, {}})
              .has(DiagId::ptx_address_register));
  }
  SUBCASE("a tensor map named by its symbol (ptxas: State space mismatch)") {
    for (const char* symbol : {"tmap", "smem"}) {
      CAPTURE(symbol);
      CHECK(check(CpAsyncBulkPrefetchTensor{
                      TensorRank::d1, false, TensorOperand{Symbol{symbol}, {r1}}, {}})
                .has(DiagId::ptx_tensor_map_operand));
    }
  }
  SUBCASE("the coordinate count is the rank") {
    for (std::size_t n : {1u, 2u, 4u}) {
      CAPTURE(n);
      CHECK(check(CpAsyncBulkTensorLoad{TensorRank::d3,
                                        BulkDst::shared_cluster,
                                        false,
                                        Address{r1, 0},
                                        coords(n),
                                        Address{r2, 0},
                                        {}})
                .has(DiagId::ptx_tensor_coordinate_count));
    }
    CHECK(check(CpAsyncBulkTensorStore{TensorRank::d2, false, coords(3), Address{r1, 0}, {}})
              .has(DiagId::ptx_tensor_coordinate_count));
    CHECK(check(CpAsyncBulkTensorStore{
                    TensorRank::d2, false, TensorOperand{rd2, {rd1, r1}}, Address{r1, 0}, {}})
              .has(DiagId::ptx_register_class));
  }
  SUBCASE("`.L2::cache_hint` and the policy come together") {
    auto hint = load();
    hint.cache_hint = true;
    CHECK(check(hint).has(DiagId::ptx_cache_hint_without_policy));
    auto policy = store();
    policy.cache_policy = rd2;
    CHECK(check(policy).has(DiagId::ptx_policy_without_cache_hint));
    CHECK(check(CpAsyncBulkPrefetchTensor{TensorRank::d1, true, coords(1), r2})
              .has(DiagId::ptx_register_class));
  }
  SUBCASE("wait_group N in 0..64 (ptxas takes any integer)") {
    CHECK(check(CpAsyncBulkWaitGroup{max_wait_group, true}).empty());
    CHECK(check(CpAsyncBulkWaitGroup{max_wait_group + 1, true}).has(DiagId::ptx_wait_group_range));
    CHECK(check(CpAsyncBulkWaitGroup{-1, false}).has(DiagId::ptx_wait_group_range));
  }
  SUBCASE("expect_tx counts in the manual's 0..2^20-1 (ptxas takes any immediate)") {
    const Address a{r1, 0};
    CHECK(check(MbarrierExpectTx{std::nullopt, SharedSpace::shared, a, Immediate{max_tx_count}})
              .empty());
    for (std::int64_t bad : {std::int64_t{-16}, max_tx_count + 1, std::int64_t{4294967295}}) {
      CAPTURE(bad);
      CHECK(check(MbarrierExpectTx{std::nullopt, SharedSpace::shared, a, Immediate{bad}})
                .has(DiagId::ptx_tx_count_range));
      CHECK(check(MbarrierArriveExpectTx{std::nullopt, SharedSpace::shared, std::nullopt, a,
                                         Immediate{bad}})
                .has(DiagId::ptx_tx_count_range));
    }
    CHECK(check(MbarrierArriveExpectTx{std::nullopt, SharedSpace::shared, r2, a, Immediate{16}})
              .has(DiagId::ptx_register_class));
  }
}

TEST_CASE("parse_bulk_opcode reads any qualifier order and prints it canonically") {
  CHECK(reread("cp.async.bulk.mbarrier::complete_tx::bytes.global.shared::cluster") ==
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
  CHECK(reread("cp.async.bulk.L2::cache_hint.bulk_group.shared::cta.global") ==
        "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint");
  CHECK(reread("cp.async.bulk.tensor.global.4d.shared::cta.bulk_group") ==
        "cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group");
  CHECK(reread("cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes.tile") ==
        "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes");
  CHECK(reread("cp.async.bulk.prefetch.tensor.5d.L2.global") ==
        "cp.async.bulk.prefetch.tensor.5d.L2.global.tile");
  CHECK(reread("cp.async.bulk.prefetch.global.L2") == "cp.async.bulk.prefetch.L2.global");
  CHECK(reread("cp.async.bulk.wait_group.read") == "cp.async.bulk.wait_group.read");
  CHECK(reread("cp.async.bulk.commit_group") == "cp.async.bulk.commit_group");
  CHECK(reread("mbarrier.expect_tx.shared::cta.cta.relaxed.b64") ==
        "mbarrier.expect_tx.relaxed.cta.shared::cta.b64");
  CHECK(reread("mbarrier.arrive.expect_tx.b64.cluster.release") ==
        "mbarrier.arrive.expect_tx.release.cluster.b64");
  CHECK(reread("fence.proxy.async.shared::cluster") == "fence.proxy.async.shared::cluster");
  CHECK(reread("fence.mbarrier_init.cluster.release") == "fence.mbarrier_init.release.cluster");
  CHECK(std::holds_alternative<CpAsyncBulkStore>(
      *parse_bulk_opcode("cp.async.bulk.global.shared::cta.bulk_group")));
}

TEST_CASE("parse_bulk_opcode refuses with a caret on the qualifier") {
  // Columns counted by hand: the 1-based column of the offending qualifier's dot.
  CHECK(refusal("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes."
                "multicast::cluster") == std::pair{DiagId::ptx_opcode_out_of_scope, 66u});
  CHECK(refusal("cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::"
                "bytes") == std::pair{DiagId::ptx_opcode_out_of_scope, 47u});
  CHECK(refusal("cp.async.bulk.global.shared::cluster.bulk_group") ==
        std::pair{DiagId::ptx_opcode_unknown_qualifier, 21u});
  CHECK(refusal("cp.async.bulk.tensor.2d.3d.global.shared::cta.bulk_group") ==
        std::pair{DiagId::ptx_opcode_duplicate_qualifier, 24u});
  CHECK(refusal("cp.async.bulk.wait_group.read.read") ==
        std::pair{DiagId::ptx_opcode_duplicate_qualifier, 30u});
  CHECK(refusal("cp.async.bulk.shared::cluster.global") ==
        std::pair{DiagId::ptx_opcode_missing_qualifier, 37u});
  CHECK(refusal("mbarrier.expect_tx.relaxed.shared::cta.b64") ==
        std::pair{DiagId::ptx_opcode_missing_qualifier, 43u});
  CHECK(refusal("mbarrier.expect_tx.shared::cluster.b64") ==
        std::pair{DiagId::ptx_opcode_out_of_scope, 19u});
  CHECK(refusal("fence.proxy.async..global") == std::pair{DiagId::ptx_opcode_empty_qualifier, 18u});
  CHECK(refusal("cp.async.cg.shared.global") == std::pair{DiagId::ptx_opcode_root, 1u});
  CHECK(bulk_family(Mnemonic::fence_proxy_async));
  CHECK(!bulk_family(Mnemonic::cp_async));
}

} // namespace unit_ptx_bulk
