// The warp-specialized ring pipeline (`producer_warps`, emitter/tile/pipeline.hpp). The
// oracle is the ring written out by hand: specs/ws/*_by_hand.toml are the expansions of
// specs/ws/pipeline_ws_*.toml as a user writes them op by op (the shape of
// specs/ws/ring_producer_warp.toml and tma_ring_warpgroups.toml with a prologue), and both
// must emit the same PTX. The C++ door must build the TOML's kernel, and the keys that do not
// fit the block are refused at their line:col.
#include "driver/run/to_toml.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/api/api.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_pipeline_ws {

namespace {

using namespace ptxgen::api;
using ptxgen::DiagId;
namespace tile = ptxgen::tile;

/// specs/`dir`/`name`.toml, loaded.
std::unique_ptr<tile::Kernel> load_corpus(const std::string& name, const std::string& dir = "ws") {
  auto k = ptxgen::driver::load_spec_file(std::string(PTXGEN_SOURCE_DIR) + "/specs/" + dir + "/" +
                                          name + ".toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k);
  return std::move(*k);
}

/// `ptx` without its `//` lines (they name the spec) and with `from` spelled `to` (the
/// kernel's name, also in its parameters' names).
std::string renamed_body(const std::string& ptx, const std::string& from, const std::string& to) {
  std::istringstream in(ptx);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.rfind("//", 0) == 0)
      continue;
    for (std::size_t at = from.empty() ? std::string::npos : line.find(from);
         at != std::string::npos; at = line.find(from, at)) {
      line.replace(at, from.size(), to);
      at += to.size();
    }
    out += line + "\n";
  }
  return out;
}

/// The PTX of `k` for the target its ops need (sm_90, sm_90a with setmaxnreg).
std::string ptx_of(const tile::Kernel& k) {
  const EmitResult r = emit_contract_only(k, tile::min_target(k));
  REQUIRE_MESSAGE(r.ok(), (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
  return *r.ptx;
}

/// The pipeline spec `name` and its hand-written expansion `name`_by_hand (both in specs/`dir`)
/// emit one PTX.
void check_same_as_by_hand(const std::string& name, const std::string& dir = "ws") {
  const std::string generated = renamed_body(ptx_of(*load_corpus(name, dir)), name, name);
  const std::string by_hand =
      renamed_body(ptx_of(*load_corpus(name + "_by_hand", dir)), name + "_by_hand", name);
  CHECK(generated.find("mbarrier.try_wait.parity") != std::string::npos);
  CHECK(generated == by_hand);
}

/// `k` emits the PTX of corpus spec `name` (names aside), and the TOML the printer writes of
/// it, read back, emits the same PTX again.
void check_builds_corpus_spec(const KernelBuilder& k, const std::string& name,
                              const std::string& dir = "ws") {
  const EmitResult r = emit_contract_only(k, tile::min_target(k.kernel()));
  REQUIRE_MESSAGE(r.ok(), (r.diagnostics.empty() ? "" : r.diagnostics[0].message));
  CHECK(renamed_body(*r.ptx, "", "") == renamed_body(ptx_of(*load_corpus(name, dir)), "", ""));
  auto again = ptxgen::driver::load_spec_text(to_spec_toml(k.kernel()), "written.toml");
  REQUIRE_MESSAGE(again, again.diagnostics.format_all());
  CHECK(ptx_of(**again) == *r.ptx);
}

/// The multicast ring of six tiles through three stages of `full` and `empty`, one producer
/// warp, named barrier 1 (the corpus's multicast ring specs).
PipelineOptions multicast_ring_options(const Tensor& full, const Tensor& empty) {
  return {.stop = 6,
          .stages = 3,
          .full = [full](const PipelineVars& v) { return full.sub({v.stage}); },
          .empty = [empty](const PipelineVars& v) { return empty.sub({v.stage}); },
          .producer_warps = 1,
          .consumer_barrier = 1,
          .multicast = true};
}

/// The kernel of pipeline_ws_multicast_bulk.toml and pipeline_multicast_bulk_2.toml in C++: 4
/// CTAs of `block` threads in clusters of 2; each rank loads half r of tile k of its cluster's
/// A and multicasts it (the ring's `options`, from its full and empty barriers), and consumer
/// thread `consumer` (0..63) copies 8 bytes of each tile to B.
void build_multicast_bulk(
    KernelBuilder& k, std::int64_t block, const Expr& consumer,
    const std::function<PipelineOptions(const Tensor&, const Tensor&)>& options) {
  k.launch({4}, {block});
  k.cluster({2});
  Tensor A = k.global("A", {2, 6, 512}, DType::uint8, {.init = random_init(17)});
  Tensor B = k.global("B", {4, 6, 512}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {3, 512}, DType::uint8);
  Tensor full = k.shared("full", {3}, DType::uint64);
  Tensor empty = k.shared("empty", {3}, DType::uint64);
  const Expr rank = special(tile::Special::cluster_rank);
  const Expr cluster = special(tile::Special::cluster_id);
  const auto part = [&](const View& v) {
    return v.rearrange("(t e) -> t e", {{"t", 64}}).sub({consumer, all});
  };
  k.pipeline(
      options(full, empty),
      [&](const PipelineVars& v) {
        k.bulk_load(
            S.rearrange("s (r e) -> s r e", {{"r", 2}}).sub({v.stage, rank, all}),
            A.rearrange("c k (r e) -> c k r e", {{"r", 2}}).sub({cluster, v.tile, rank, all}));
      },
      [&](const PipelineVars& v) {
        k.copy(part(B.sub({bid(), v.tile, all})), part(S.sub({v.stage, all})));
      });
}

/// specs/ws/`name`.toml's text with `from` replaced by `to` (once; it must be there).
std::string edited(const std::string& name, const std::string& from, const std::string& to) {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/specs/ws/" + name + ".toml");
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string edited_bulk(const std::string& from, const std::string& to) {
  return edited("pipeline_ws_bulk", from, to);
}

/// The first error of loading `text`, which must fail.
ptxgen::Diagnostic refused(const std::string& text) {
  auto k = ptxgen::driver::load_spec_text(text, "ws.toml");
  REQUIRE(!k);
  REQUIRE(!k.diagnostics.items().empty());
  return k.diagnostics.items().front();
}

} // namespace

TEST_CASE("ws pipeline: a bulk ring with a producer warp is the ring written out by hand") {
  check_same_as_by_hand("pipeline_ws_bulk");
}

TEST_CASE("ws pipeline: a TMA ring of warpgroups, setmaxnreg and a consumer named barrier is "
          "the ring written out by hand") {
  check_same_as_by_hand("pipeline_ws_tma_warpgroups");
}

TEST_CASE("ws pipeline: a multicast bulk ring in clusters of 2 is the ring written out by hand") {
  check_same_as_by_hand("pipeline_ws_multicast_bulk");
  // The form itself, not the plain ring's: the share is multicast, and a consumer thread per
  // CTA arrives on a peer's barrier (mapa, then the cluster-scope arrive).
  const std::string ptx = ptx_of(*load_corpus("pipeline_ws_multicast_bulk"));
  CHECK(ptx.find(".multicast::cluster") != std::string::npos);
  CHECK(ptx.find("barrier.cluster.arrive") != std::string::npos);
  CHECK(ptx.find("mapa.shared::cluster") != std::string::npos);
}

TEST_CASE("ws pipeline: a multicast TMA ring of warpgroups in clusters of 4 is the ring written "
          "out by hand") {
  check_same_as_by_hand("pipeline_ws_multicast_tma");
}

TEST_CASE("ws pipeline: a TMA ring whose loads multicast to a 2 x 2 cluster's row and column is "
          "the ring written out by hand") {
  check_same_as_by_hand("pipeline_ws_multicast_rows_cols");
}

TEST_CASE("ws pipeline: the multicast ring of thread 0 and every thread (no producer_warps) is "
          "the ring written out by hand") {
  check_same_as_by_hand("pipeline_multicast_bulk_2", "cluster");
}

TEST_CASE("ws pipeline: the C++ KernelBuilder builds pipeline_multicast_bulk_2.toml's kernel, "
          "a multicast ring without producer warps") {
  KernelBuilder k("pipeline_multicast_bulk_2");
  build_multicast_bulk(k, 64, tid(), [](const Tensor& full, const Tensor& empty) {
    return PipelineOptions{.stop = 6,
                           .stages = 3,
                           .full = [full](const PipelineVars& v) { return full.sub({v.stage}); },
                           .empty = [empty](const PipelineVars& v) { return empty.sub({v.stage}); },
                           .multicast = true};
  });
  check_builds_corpus_spec(k, "pipeline_multicast_bulk_2", "cluster");
}

TEST_CASE("ws pipeline: a multicast ring inside a loop closes with one cluster_sync, after the "
          "outermost loop") {
  const auto k = load_corpus("pipeline_ws_multicast_outer_loop");
  std::vector<std::size_t> exits, ends;
  for (std::size_t i = 0; i < k->ops.size(); ++i) {
    if (std::holds_alternative<tile::ClusterSyncOp>(k->ops[i].body) &&
        k->ops[i].origin.role == tile::OpOrigin::Role::ring_exit)
      exits.push_back(i);
    if (std::holds_alternative<tile::EndOp>(k->ops[i].body))
      ends.push_back(i);
  }
  REQUIRE(exits.size() == 1);
  REQUIRE(ends.size() == 2); // the steady loop's and the outer loop's
  CHECK(exits.front() == ends.back() + 1);
}

TEST_CASE("ws pipeline: the C++ KernelBuilder builds pipeline_ws_multicast_rows_cols.toml's "
          "kernel, each load with its own mask") {
  KernelBuilder k("pipeline_ws_multicast_rows_cols");
  k.launch({4, 2}, {160});
  k.cluster({2, 2});
  const auto tile_map = TensorMap{.box = {8, 64}};
  Tensor A = k.global("A", {64, 384}, DType::float16, {.init = random_init(41), .map = tile_map});
  Tensor B = k.global("B", {64, 384}, DType::float16, {.init = random_init(42), .map = tile_map});
  Tensor OA = k.global("OA", {8, 6, 16, 64}, DType::float16, {.output = true});
  Tensor OB = k.global("OB", {8, 6, 16, 64}, DType::float16, {.output = true});
  Tensor SA = k.shared("SA", {3, 16, 64}, DType::float16);
  Tensor SB = k.shared("SB", {3, 16, 64}, DType::float16);
  Tensor full = k.shared("full", {3}, DType::uint64);
  Tensor empty = k.shared("empty", {3}, DType::uint64);
  const Expr rank = special(tile::Special::cluster_rank);
  const Expr cluster = special(tile::Special::cluster_id);
  const Expr column = rank % 2;
  const Expr row = rank / 2;
  const auto half = [](const View& stage, const Expr& h) {
    return stage.rearrange("(h r) c -> h r c", {{"h", 2}}).sub({h, all, all});
  };
  const auto consumer_part = [](const View& v) {
    return v.rearrange("r c -> (r c)", {})
        .rearrange("(t e) -> t e", {{"t", 128}})
        .sub({max(tid(), 32) - 32, all});
  };
  k.pipeline(
      multicast_ring_options(full, empty),
      [&](const PipelineVars& v) {
        k.tensor_load(A, {(cluster * 2 + row) * 16 + column * 8, v.tile * 64},
                      half(SA.sub({v.stage, all, all}), column),
                      {.multicast = Expr(3) << (Expr(2) * row)});
        k.tensor_load(B, {(cluster * 2 + column) * 16 + row * 8, v.tile * 64},
                      half(SB.sub({v.stage, all, all}), row), {.multicast = Expr(5) << column});
      },
      [&](const PipelineVars& v) {
        k.copy(consumer_part(OA.sub({bid(), v.tile, all, all})),
               consumer_part(SA.sub({v.stage, all, all})));
        k.copy(consumer_part(OB.sub({bid(), v.tile, all, all})),
               consumer_part(SB.sub({v.stage, all, all})));
      });
  check_builds_corpus_spec(k, "pipeline_ws_multicast_rows_cols");
}

TEST_CASE("ws pipeline: multicast is refused at the key without a cluster or, with producer "
          "warps, a named barrier; so is a named barrier without producer warps, and a load's "
          "own mask without multicast") {
  const auto multicast = [](const std::string& from, const std::string& to) {
    return refused(edited("pipeline_ws_multicast_bulk", from, to));
  };
  // pipeline_ws_bulk.toml (no cluster) with the multicast form's keys: line 49 is then
  // `multicast = true`, its value at column 13.
  const auto no_cluster = refused(edited_bulk(
      "producer_warps = 1", "producer_warps = 1\nconsumer_barrier = 1\nmulticast = true"));
  CHECK(no_cluster.id == DiagId::spec_cluster_undeclared);
  CHECK(no_cluster.line == 49);
  CHECK(no_cluster.column == 13);
  // Line 56 is `multicast = true` in pipeline_ws_multicast_bulk.toml; each edit below removes
  // one line before it.
  const auto no_barrier = multicast("consumer_barrier = 1\n", "");
  CHECK(no_barrier.id == DiagId::spec_missing_key);
  CHECK(no_barrier.line == 55);
  CHECK(no_barrier.column == 13);
  CHECK(no_barrier.message.find("consumer_barrier") != std::string::npos);
  // consumer_barrier belongs to the warp-specialized ring, multicast or not.
  const auto no_roles = multicast("producer_warps = 1\n", "");
  CHECK(no_roles.id == DiagId::spec_pipeline_producer_warps);
  CHECK(no_roles.line == 54);
  // A mask on the load of a pipeline without multicast = true.
  const auto own_mask = refused(
      edited("pipeline_ws_bulk", "src = 'A.sub[k, :]'", "src = 'A.sub[k, :]'\nmulticast = 1"));
  CHECK(own_mask.id == DiagId::spec_pipeline_ring_barrier);
  CHECK(own_mask.line == 53);
}

TEST_CASE("ws pipeline: the C++ KernelBuilder builds pipeline_ws_multicast_bulk.toml's kernel") {
  KernelBuilder k("pipeline_ws_multicast_bulk");
  build_multicast_bulk(k, 96, max(tid(), 32) - 32, multicast_ring_options);
  // The printer writes the expansion's ops (the peer's barrier, the masks, the cluster_syncs).
  check_builds_corpus_spec(k, "pipeline_ws_multicast_bulk");
}

TEST_CASE("ws pipeline: the C++ KernelBuilder builds pipeline_ws_bulk.toml's kernel") {
  KernelBuilder k("pipeline_ws_bulk");
  k.launch({1}, {96});
  Tensor A = k.global("A", {6, 512}, DType::uint8, {.init = random_init(7)});
  Tensor B = k.global("B", {6, 512}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {3, 512}, DType::uint8);
  Tensor full = k.shared("full", {3}, DType::uint64);
  Tensor empty = k.shared("empty", {3}, DType::uint64);
  const auto consumer_part = [](const View& v) {
    return v.rearrange("(t e) -> t e", {{"t", 64}}).sub({max(tid(), 32) - 32, all});
  };
  k.pipeline(
      {.stop = 6,
       .stages = 3,
       .full = [&](const PipelineVars& v) { return full.sub({v.stage}); },
       .empty = [&](const PipelineVars& v) { return empty.sub({v.stage}); },
       .producer_warps = 1},
      [&](const PipelineVars& v) {
        k.bulk_load(S.sub({v.stage, all}), A.sub({v.tile, all}));
      },
      [&](const PipelineVars& v) {
        k.copy(consumer_part(B.sub({v.tile, all})), consumer_part(S.sub({v.stage, all})));
      });
  k.expect_equal(B, A);
  check_builds_corpus_spec(k, "pipeline_ws_bulk");
}

TEST_CASE("ws pipeline: producer_warps must leave a consumer warp in a block of whole warps") {
  // Line 47 is `producer_warps = 1` in pipeline_ws_bulk.toml; its value starts at column 18.
  const auto all_warps = refused(edited_bulk("producer_warps = 1", "producer_warps = 3"));
  CHECK(all_warps.id == DiagId::spec_pipeline_producer_warps);
  CHECK(all_warps.message.find("1..2") != std::string::npos);
  CHECK(all_warps.line == 47);
  CHECK(all_warps.column == 18);
  CHECK(refused(edited_bulk("producer_warps = 1", "producer_warps = 0")).id ==
        DiagId::spec_pipeline_producer_warps);
  CHECK(refused(edited_bulk("block = 96", "block = 80")).id ==
        DiagId::spec_pipeline_producer_warps);
  // The role keys need producer_warps.
  CHECK(refused(edited_bulk("producer_warps = 1", "consumer_barrier = 1")).id ==
        DiagId::spec_pipeline_producer_warps);
}

TEST_CASE("ws pipeline: the contract's setmaxnreg findings point at the key that gave them") {
  // pipeline_ws_tma_warpgroups.toml without ctas_per_sm (ptxas would ignore setmaxnreg): line
  // 53 is then `producer_regs = 40`, the producer's setmaxnreg.dec, the first to need it.
  auto k = ptxgen::driver::load_spec_text(
      edited("pipeline_ws_tma_warpgroups", "ctas_per_sm = 2\n", ""), "ws.toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k);
  const EmitResult r = emit_contract_only(**k, tile::min_target(**k));
  REQUIRE(!r.ok());
  CHECK(r.diagnostics[0].id == DiagId::contract_setmaxnreg_budget);
  CHECK(r.diagnostics[0].line == 53);
  CHECK(r.diagnostics[0].column == 17);
}

} // namespace unit_pipeline_ws
