// The feature table and per-target minimum versions, checked against docs/ptx-rules.md by hand.

#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/instruction.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_ptx_feature {

using namespace ptxgen::ptx;

TEST_CASE("feature table rows match docs/ptx-rules.md") {
  struct Row {
    Feature f;
    PtxVersion v;
    bool stricter;
    int sm = 80;
  };
  const Row rows[] = {
      {Feature::cp_async, {7, 0}, false},
      {Feature::cp_async_cache_hint, {7, 4}, false},
      {Feature::cp_async_prefetch, {7, 4}, false},
      {Feature::cp_async_ignore_src, {7, 5}, false},
      {Feature::shared_cta, {7, 8}, true},
      {Feature::cp_async_mbarrier_arrive, {7, 0}, false},
      {Feature::createpolicy, {7, 4}, false},
      {Feature::mbarrier_init, {7, 0}, false},
      // Issue 11, from ptxas 13.0's own messages ("Feature 'mbarrier.try_wait.parity'
      // requires PTX ISA .version 7.8", "... requires .target sm_90"); the agreement test
      // checks every form against ptxas.
      {Feature::mbarrier_arrive, {7, 0}, false},
      {Feature::mbarrier_arrive_sink, {7, 1}, false},
      {Feature::mbarrier_test_wait, {7, 0}, false},
      {Feature::mbarrier_test_wait_parity, {7, 1}, false},
      {Feature::mbarrier_try_wait, {7, 8}, false, 90},
      {Feature::mbarrier_try_wait_parity, {7, 8}, false, 90},
      // The bulk-copy family, from ptxas 13.0's messages one version below each ("Feature
      // 'cp.async.bulk' requires PTX ISA .version 8.0", "... with destination state space
      // as .shared::cta' requires ... 8.6", "Modifier '.relaxed' on
      // 'mbarrier.arrive.expect_tx' requires ... 8.6") and on sm_89.
      {Feature::bulk_copy, {8, 0}, false, 90},
      {Feature::bulk_shared_cta_dst, {8, 6}, false, 90},
      {Feature::bulk_commit_group, {8, 0}, false, 90},
      {Feature::bulk_wait_group, {8, 0}, false, 90},
      {Feature::bulk_prefetch, {8, 0}, false, 90},
      {Feature::bulk_tensor, {8, 0}, false, 90},
      {Feature::bulk_prefetch_tensor, {8, 0}, false, 90},
      {Feature::mbarrier_expect_tx, {8, 0}, false, 90},
      {Feature::mbarrier_arrive_expect_tx, {8, 0}, false, 90},
      {Feature::mbarrier_arrive_relaxed, {8, 6}, false, 90},
      {Feature::fence_proxy_async, {8, 0}, false, 90},
      {Feature::fence_mbarrier_init, {8, 0}, false, 90},
      {Feature::cvta_param, {7, 7}, false, 70},
      // docs/ptx-rules.md, "Clusters": ptxas 13.0 refuses barrier.cluster below PTX 7.8 and
      // sm_90, and `.relaxed` on its arrive below PTX 8.0.
      {Feature::barrier_cluster, {7, 8}, false, 90},
      {Feature::barrier_cluster_relaxed, {8, 0}, false, 90},
      // The same table: mapa.shared::cluster and ld/st.shared::cluster at PTX 7.8, sm_90
      // (ptxas 13.0 refuses each at 7.7 and on sm_89).
      {Feature::dsmem, {7, 8}, false, 90},
      // docs/ptx-bulk.md, "Bulk reductions": "Feature 'cp.reduce.async.bulk' requires PTX ISA
      // .version 8.0" at 7.8, "requires .target sm_90 or higher" on sm_80.
      {Feature::bulk_reduce, {8, 0}, false, 90},
      // ptxas 13.0: "Modifier '.multicast::cluster' requires PTX ISA .version 8.0" and
      // "... requires .target sm_90 or higher" (with an advisory warning there naming sm_90a).
      {Feature::bulk_multicast, {8, 0}, false, 90},
      // docs/ptx-rules.md: ptxas 13.0 "Feature 'fence.proxy with unidirection proxy fence'
      // requires PTX ISA .version 8.3" (and 'tensormap.cp_fenceproxy'); "Instruction
      // 'tensormap.replace' not supported on .target 'sm_90'" (sm_90a only, below).
      {Feature::tensormap_replace, {8, 3}, false, 90},
      {Feature::tensormap_fence, {8, 3}, false, 90},
      // docs/ptx-bulk.md, "Bulk reductions": at 7.8 ptxas 13.0 says "Feature
      // 'cp.reduce.async.bulk.tensor' requires PTX ISA .version 8.0" and "Modifier '.tensormap'
      // requires PTX ISA .version 8.0".
      {Feature::bulk_reduce_tensor, {8, 0}, false, 90},
      {Feature::prefetch_tensormap, {8, 0}, false, 90},
      // ptxas 13.0 at 7.8: "Feature '.shared::cluster' requires PTX ISA .version 8.0", "Modifier
      // '.release' on 'mbarrier.arrive' ..."; on sm_89: "... requires .target sm_90 or higher".
      {Feature::mbarrier_remote_arrive, {8, 0}, false, 90},
      // ptxas 13.0: "Feature 'setmaxnreg.dec' requires PTX ISA .version 8.0" at 7.8 and
      // "Instruction 'setmaxnreg.dec' not supported on .target 'sm_90'" (sm_90a only: the
      // validator's rule, warp_roles.cpp's unit test).
      {Feature::setmaxnreg, {8, 0}, false, 90},
  };
  CHECK(info(Feature::tensormap_replace).arch_specific);
  CHECK_FALSE(info(Feature::tensormap_fence).arch_specific);
  CHECK(feature_table().size() == std::size(rows));
  for (const auto& r : rows) {
    const FeatureInfo& i = info(r.f);
    CAPTURE(i.name);
    CHECK(i.feature == r.f);
    CHECK(i.min_version == r.v);
    CHECK(i.min_sm == r.sm);
    CHECK(i.stricter_than_ptxas == r.stricter);
    CHECK(!i.name.empty());
  }
}

TEST_CASE("minimum .version per target") {
  struct Row {
    const char* target;
    PtxVersion v;
  };
  const Row rows[] = {
      {"sm_75", {7, 0}},  {"sm_80", {7, 0}},   {"sm_86", {7, 1}},  {"sm_87", {7, 4}},
      {"sm_88", {7, 3}},  {"sm_89", {7, 8}},   {"sm_90", {7, 8}},  {"sm_90a", {8, 0}},
      {"sm_100", {8, 6}}, {"sm_100a", {8, 6}}, {"sm_120", {8, 7}}, {"sm_120a", {8, 7}},
      {"sm_103", {8, 8}}, {"sm_121", {8, 8}},  {"sm_110", {9, 0}},
  };
  for (const auto& r : rows) {
    CAPTURE(r.target);
    auto t = Target::parse(r.target);
    REQUIRE(t);
    CHECK(is_known_target(*t));
    CHECK(min_version_for_target(*t) == r.v);
  }
  CHECK_FALSE(is_known_target(Target{70, false}));
  CHECK_FALSE(is_known_target(Target{72, false}));
  CHECK_FALSE(is_known_target(Target{101, false}));
  CHECK_FALSE(is_known_target(Target{80, true}));
}

TEST_CASE("known PTX ISA versions") {
  for (int minor = 0; minor <= 8; ++minor) {
    CHECK(is_known_version({7, minor}));
    CHECK(is_known_version({8, minor}));
  }
  CHECK(is_known_version({9, 0}));
  CHECK_FALSE(is_known_version({7, 9}));
  CHECK_FALSE(is_known_version({8, 9}));
  CHECK_FALSE(is_known_version({9, 1}));
  CHECK_FALSE(is_known_version({6, 5}));
}

TEST_CASE("features_used lists exactly the features of an instruction") {
  CpAsync cp;
  cp.opcode = {CacheOp::cg, SharedSpace::shared, false, L2Prefetch::none};
  CHECK(features_used({std::nullopt, cp, ""}) == std::vector<Feature>{Feature::cp_async});

  cp.opcode = {CacheOp::ca, SharedSpace::shared_cta, true, L2Prefetch::b256};
  cp.zero_fill = IgnoreSrc{Register{RegClass::pred, 1}, true};
  cp.cache_policy = Register{RegClass::b64, 2};
  CHECK(features_used({std::nullopt, cp, ""}) ==
        std::vector<Feature>{Feature::cp_async, Feature::cp_async_cache_hint,
                             Feature::cp_async_prefetch, Feature::cp_async_ignore_src,
                             Feature::shared_cta});

  cp.zero_fill = SrcSize{4u};
  CHECK(features_used({std::nullopt, cp, ""}).size() == 4);

  CHECK(features_used({std::nullopt, CpAsyncWaitGroup{0}, ""}) ==
        std::vector<Feature>{Feature::cp_async});
  CHECK(features_used({std::nullopt, CpAsyncCommitGroup{}, ""}) ==
        std::vector<Feature>{Feature::cp_async});
  CHECK(features_used({std::nullopt, CpAsyncWaitAll{}, ""}) ==
        std::vector<Feature>{Feature::cp_async});
  CpAsyncMbarrierArrive mb{true, SharedSpace::shared_cta, Address{Register{RegClass::b32, 1}, 0}};
  CHECK(features_used({std::nullopt, mb, ""}) ==
        std::vector<Feature>{Feature::cp_async_mbarrier_arrive, Feature::shared_cta});
  CHECK(features_used({std::nullopt, CreatePolicyFractional{}, ""}) ==
        std::vector<Feature>{Feature::createpolicy});
  CHECK(features_used({std::nullopt, Ret{}, ""}).empty());
}

TEST_CASE("PtxVersion and Target parse and print") {
  CHECK(PtxVersion::parse("7.8") == PtxVersion{7, 8});
  CHECK(PtxVersion{8, 0}.str() == "8.0");
  CHECK_FALSE(PtxVersion::parse("7"));
  CHECK_FALSE(PtxVersion::parse("7.10"));
  CHECK_FALSE(PtxVersion::parse("7.x"));
  CHECK_FALSE(PtxVersion::parse("-7.0"));
  CHECK_FALSE(PtxVersion::parse(""));
  CHECK(PtxVersion{7, 8} < PtxVersion{8, 0});
  auto t = Target::parse("sm_90a");
  REQUIRE(t);
  CHECK(t->sm == 90);
  CHECK(t->arch_specific);
  CHECK(t->str() == "sm_90a");
  CHECK(Target{120, false}.str() == "sm_120");
  CHECK_FALSE(Target::parse("sm90"));
  CHECK_FALSE(Target::parse("sm_"));
  CHECK_FALSE(Target::parse("sm_a"));
  CHECK_FALSE(Target::parse("compute_80"));
  CHECK_FALSE(Target::parse("sm_8"));
}

} // namespace unit_ptx_feature
