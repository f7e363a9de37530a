// The cluster family (sm_90): kernels of `[kernel] cluster = [C, 1, 1]` (C = 2 or 4, 8
// sometimes; the grid a whole number of clusters), drawn among the shapes of specs/cluster/:
// a DSMEM exchange (each CTA writes its shared tile, cluster_sync, reads or writes a peer's
// through `S@rank`), a DSMEM ring in a `for` loop, a multicast bulk or 2-D tensor load (the
// barriers initialised, fenced and published by a cluster_sync; every CTA's expect_tx of the
// whole tile), a bulk_copy_peer into a peer with its barrier, and remote arrivals counted
// across the cluster, and a multicast ring whose `empty` barriers collect the consumers of
// every CTA the issuer multicasts into (remote arrivals, `empty@(rank)`). Every shape ends with a
// cluster_sync after its last peer access, so no CTA exits while a peer still uses its shared
// memory; the rank expressions are permutations of the cluster's ranks (xor, rotation, reversal),
// so every rank stays inside the cluster and every CTA receives exactly one peer's bytes. The
// mutants that undo each of these choices are mutate_cluster.cpp's.

#include "driver/fuzz/gen_build.hpp"
#include "driver/fuzz/gen_bulk.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace ptxgen::driver::fuzz {

namespace {

/// The launch of a cluster shape: C CTAs per cluster, n clusters, T threads per CTA.
struct ClusterLaunch {
  std::int64_t C = 2;
  std::int64_t n = 1;
  std::int64_t G() const { return C * n; }
};

/// C in {2, 4}, 8 one time in six (within the options' CTA cap, 2 at least), 1 or 2 clusters.
ClusterLaunch pick_cluster(Builder& b) {
  ClusterLaunch l;
  l.C = b.rng.chance(1, 6) ? 8 : (b.rng.chance(1, 2) ? 2 : 4);
  while (l.C > 2 && l.C > b.opt.max_ctas)
    l.C /= 2;
  l.n = b.rng.edge(1, std::max<std::int64_t>(1, std::min<std::int64_t>(2, b.opt.max_ctas / l.C)));
  b.use(l.C == 2 ? Feature::cluster_2 : l.C == 4 ? Feature::cluster_4 : Feature::cluster_8);
  b.use(Feature::multi_cta);
  b.m.cluster = {l.C, 1, 1};
  return l;
}

void launch(Builder& b, const ClusterLaunch& l, std::int64_t T) {
  b.m.grid = {l.G()};
  b.m.block = {T};
}

/// A permutation of the ranks 0..C-1 and the rank expression that computes it.
struct RankMap {
  std::string text;               ///< an expression of cluster_rank
  std::vector<std::int64_t> to;   ///< to[r]: the rank CTA r names
  std::vector<std::int64_t> from; ///< the inverse: from[to[r]] == r
};

RankMap pick_rank_map(Builder& b, std::int64_t C) {
  RankMap m;
  const std::int64_t k = b.rng.between(1, C - 1);
  m.to.resize(static_cast<std::size_t>(C));
  m.from.resize(m.to.size());
  const auto form = b.rng.below(3);
  for (std::int64_t r = 0; r < C; ++r)
    m.to[static_cast<std::size_t>(r)] = form == 0 ? (r ^ k) : form == 1 ? (r + k) % C : C - 1 - r;
  m.text = form == 0   ? "cluster_rank ^ " + std::to_string(k)
           : form == 1 ? "(cluster_rank + " + std::to_string(k) + ") % " + std::to_string(C)
                       : std::to_string(C - 1) + " - cluster_rank";
  for (std::int64_t r = 0; r < C; ++r)
    m.from[static_cast<std::size_t>(m.to[static_cast<std::size_t>(r)])] = r;
  return m;
}

/// `name@(rank)`: the view of a peer's copy of a shared tensor.
std::string peer(const std::string& name, const RankMap& r) {
  return name + "@(" + r.text + ")";
}

/// "X.sub[g:g+1] == Y.sub[s:s+1]" for each CTA g, Y's row `src(g)`.
template <class F>
void row_expectations(Builder& b, const ClusterLaunch& l, const std::string& out,
                      const std::string& in, F&& src) {
  if (!b.opt.expectations)
    return;
  for (std::int64_t g = 0; g < l.G(); ++g) {
    const std::int64_t s = src(g);
    b.m.expects.push_back(out + ".sub[" + std::to_string(g) + ":" + std::to_string(g + 1) +
                          "] == " + in + ".sub[" + std::to_string(s) + ":" + std::to_string(s + 1) +
                          "]");
  }
}

/// The barrier `name` (count arrivals): its init and the fence that makes the init visible to
/// the cluster at the caller's next cluster_sync.
void cluster_barrier_init(Builder& b, std::size_t u, const std::string& name, std::int64_t count) {
  b.op(u, ModelMbarrierInit{ViewText{name + ".sub[0]"}, count});
  b.op(u, ModelMbarrierInitFence{});
}

/// Each CTA writes its rows of A into its shared S, cluster_sync, then reads a peer's S into
/// its rows of B (and a last cluster_sync keeps S alive for the peer's read), or writes its
/// rows into a peer's S (push), cluster_sync, and copies its own S out.
void generate_dsmem_exchange(Builder& b) {
  b.use(Feature::dsmem_exchange);
  const ClusterLaunch l = pick_cluster(b);
  const std::int64_t T = warp_size * b.rng.edge(1, 4);
  launch(b, l, T);
  const std::int64_t es = std::int64_t{1} << b.rng.below(4);
  const ModelDtype dt = b.dtype(es);
  const std::int64_t cap = std::max<std::int64_t>(1, b.opt.max_tensor_bytes / (l.G() * T * es));
  const std::int64_t e = b.rng.edge(1, std::min<std::int64_t>(8, cap));
  b.tensor("A", false, {l.G(), T, e}, dt).init = b.init_for(dt);
  b.tensor("B", false, {l.G(), T, e}, dt).output = true;
  b.tensor("S", true, {T, e}, dt);
  const std::size_t u = b.unit({"A", "B", "S"});
  const RankMap r = pick_rank_map(b, l.C);
  const bool push = b.rng.chance(1, 3);
  if (push) {
    b.use(Feature::dsmem_push);
    b.op(u, ModelCopy{ViewText{peer("S", r) + ".sub[tid, :]"}, ViewText{"A.sub[bid, tid, :]"}});
    b.op(u, ModelClusterSync{});
    b.op(u, ModelCopy{ViewText{"B.sub[bid, tid, :]"}, ViewText{"S.sub[tid, :]"}});
  } else {
    b.op(u, ModelCopy{ViewText{"S.sub[tid, :]"}, ViewText{"A.sub[bid, tid, :]"}});
    b.op(u, ModelClusterSync{});
    b.op(u, ModelCopy{ViewText{"B.sub[bid, tid, :]"}, ViewText{peer("S", r) + ".sub[tid, :]"}});
    b.op(u, ModelClusterSync{});
  }
  const auto& rank_of = push ? r.from : r.to;
  row_expectations(b, l, "B", "A", [&](std::int64_t g) {
    return g - g % l.C + rank_of[static_cast<std::size_t>(g % l.C)];
  });
}

/// A ring of `steps` steps over two buffers per CTA: in step i each CTA copies its buffer
/// i % 2 into buffer (i + 1) % 2 of the peer it names, then cluster_sync.
void generate_dsmem_ring(Builder& b) {
  b.use(Feature::dsmem_ring);
  const ClusterLaunch l = pick_cluster(b);
  const std::int64_t T = warp_size * b.rng.edge(1, 2);
  launch(b, l, T);
  const std::int64_t es = std::int64_t{1} << b.rng.below(4);
  const ModelDtype dt = b.dtype(es);
  const std::int64_t e = b.rng.edge(1, 8);
  b.tensor("A", false, {l.G(), T, e}, dt).init = b.init_for(dt);
  b.tensor("B", false, {l.G(), T, e}, dt).output = true;
  b.tensor("P", true, {2, T, e}, dt);
  const std::size_t u = b.unit({"A", "B", "P"});
  const RankMap r = pick_rank_map(b, l.C);
  const std::int64_t steps = b.rng.edge(1, 4);
  b.op(u, ModelCopy{ViewText{"P.sub[0, tid, :]"}, ViewText{"A.sub[bid, tid, :]"}});
  b.op(u, ModelClusterSync{});
  b.op(u, ModelFor{"i", std::int64_t{0}, steps, std::nullopt, std::nullopt});
  b.op(u, ModelCopy{ViewText{peer("P", r) + ".sub[(i + 1) % 2, tid, :]"},
                    ViewText{"P.sub[i % 2, tid, :]"}});
  b.op(u, ModelClusterSync{});
  b.op(u, ModelEnd{});
  b.op(u, ModelCopy{ViewText{"B.sub[bid, tid, :]"},
                    ViewText{"P.sub[" + std::to_string(steps % 2) + ", tid, :]"}});
  row_expectations(b, l, "B", "A", [&](std::int64_t g) {
    std::int64_t rank = g % l.C;
    for (std::int64_t s = 0; s < steps; ++s)
      rank = r.from[static_cast<std::size_t>(rank)];
    return g - g % l.C + rank;
  });
}

/// The multicast's CTA mask: every rank of the cluster, a constant or an expression.
ExprText full_mask(Builder& b, std::int64_t C) {
  if (b.rng.chance(1, 3)) {
    b.use(Feature::multicast_mask_expr);
    return ExprText{"(1 << cluster_size) - 1"};
  }
  return ExprText{std::to_string((std::int64_t{1} << C) - 1)};
}

/// What the multicast shapes share after their load: every thread waits for phase 0, copies
/// its share of S out to its CTA's row of B, and a last cluster_sync keeps every CTA alive
/// until the copies into it are done.
void wait_copy_out(Builder& b, std::size_t u, const std::vector<std::int64_t>& tile, std::int64_t T,
                   const ModelDtype& dt, const ClusterLaunch& l) {
  b.op(u, ModelMbarrierWait{ViewText{"bar.sub[0]"}, std::int64_t{0}});
  std::vector<std::int64_t> out = tile;
  out.insert(out.begin(), l.G());
  b.tensor("B", false, out, dt).output = true;
  b.op(u, ModelCopy{bulk_gen::thread_share("B", out, 1, T, "bid"),
                    bulk_gen::thread_share("S", tile, 0, T, "")});
  b.op(u, ModelClusterSync{});
}

/// A 1-D multicast bulk load: every rank loads its part of the cluster's tile into every CTA
/// (mask: the whole cluster), or one rank loads the whole tile; every CTA's barrier expects
/// the whole tile.
void generate_multicast_bulk(Builder& b) {
  b.use(Feature::multicast_bulk);
  const ClusterLaunch l = pick_cluster(b);
  const std::int64_t es = std::int64_t{1} << b.rng.below(4);
  const ModelDtype dt = b.dtype(es);
  const bool one = b.rng.chance(1, 3);
  const std::int64_t bytes = one ? tile::kTensorMapGranule * b.rng.edge(1, 64)
                                 : tile::kTensorMapGranule * b.rng.edge(1, 16) * l.C;
  const std::int64_t N = bytes / es;
  const std::int64_t T = bulk_gen::sharing_threads(b, N);
  launch(b, l, T);
  b.tensor("A", false, {l.n, N}, dt).init = b.init_for(dt);
  b.tensor("S", true, {N}, dt);
  b.tensor("bar", true, {1}, barrier_dtype);
  const std::size_t u = b.unit({"A", "B", "S", "bar"});
  cluster_barrier_init(b, u, "bar", 1);
  b.op(u, ModelClusterSync{});
  const std::int64_t I = b.rng.edge(0, T - 1);
  const ViewText bar{"bar.sub[0]"};
  b.op(u, ModelExpectTx{bar, bytes, ExprText{bulk_gen::thread_is(I)}});
  ModelBulkLoad load;
  load.barrier = bar;
  load.multicast = full_mask(b, l.C);
  if (one) {
    b.use(Feature::multicast_one_issuer);
    const std::int64_t R = b.rng.between(0, l.C - 1);
    load.dst = ViewText{"S"};
    load.src = ViewText{"A.sub[cluster_id, :]"};
    load.pred = ExprText{bulk_gen::thread_is(I) + " && cluster_rank == " + std::to_string(R)};
  } else {
    const std::string C = std::to_string(l.C);
    load.dst = ViewText{"S.rearrange(\"(r e) -> r e\", r=" + C + ").sub[cluster_rank, :]"};
    load.src =
        ViewText{"A.rearrange(\"c (r e) -> c r e\", r=" + C + ").sub[cluster_id, cluster_rank, :]"};
    load.pred = ExprText{bulk_gen::thread_is(I)};
  }
  b.op(u, load);
  wait_copy_out(b, u, {N}, T, dt, l);
  row_expectations(b, l, "B", "A", [&](std::int64_t g) { return g / l.C; });
}

/// A 2-D tensor multicast: each rank loads an h x W box, its part of the cluster's C*h rows,
/// into the same rows of every CTA's S (each part 128-byte aligned).
void generate_multicast_tensor(Builder& b) {
  b.use(Feature::multicast_tensor);
  const ClusterLaunch l = pick_cluster(b);
  const std::int64_t es = std::int64_t{1} << b.rng.below(4);
  const ModelDtype dt = b.dtype(es);
  const std::int64_t row = tile::kTensorMapGranule * b.rng.edge(1, 8); // W * es bytes
  const std::int64_t W = row / es;
  const std::int64_t h_unit =
      tile::kTensorMapSharedAlign / std::gcd(tile::kTensorMapSharedAlign, row);
  const std::int64_t h = h_unit * b.rng.edge(1, std::max<std::int64_t>(1, 16 / h_unit));
  const std::int64_t rows = l.C * h; // the cluster's tile
  const std::int64_t T = bulk_gen::sharing_threads(b, rows * W);
  launch(b, l, T);
  ModelTensor& a = b.tensor("A", false, {l.n * rows, W}, dt);
  a.init = b.init_for(dt);
  a.map = ModelMap{{h, W}, {}, tile::TensorMapSwizzle::none, tile::TensorMapOobFill::zero};
  b.tensor("S", true, {rows, W}, dt);
  b.tensor("bar", true, {1}, barrier_dtype);
  const std::size_t u = b.unit({"A", "B", "S", "bar"});
  cluster_barrier_init(b, u, "bar", 1);
  b.op(u, ModelClusterSync{});
  const std::int64_t I = b.rng.edge(0, T - 1);
  const ViewText bar{"bar.sub[0]"};
  b.op(u, ModelExpectTx{bar, rows * row, ExprText{bulk_gen::thread_is(I)}});
  ModelTensorLoad load;
  load.tensor = "A";
  load.coords = {
      ExprText{"cluster_id * " + std::to_string(rows) + " + cluster_rank * " + std::to_string(h)},
      ExprText{"0"}};
  load.dst = ViewText{"S.rearrange(\"(r h) c -> r h c\", r=" + std::to_string(l.C) +
                      ").sub[cluster_rank, :, :]"};
  load.barrier = bar;
  load.pred = ExprText{bulk_gen::thread_is(I)};
  load.multicast = full_mask(b, l.C);
  b.op(u, load);
  wait_copy_out(b, u, {rows, W}, T, dt, l);
  if (b.opt.expectations)
    for (std::int64_t g = 0; g < l.G(); ++g) {
      const std::int64_t c = g / l.C;
      b.m.expects.push_back("B.sub[" + std::to_string(g) + ", :, :] == A.sub[" +
                            std::to_string(c * rows) + ":" + std::to_string((c + 1) * rows) +
                            ", :]");
    }
}

/// Each CTA writes its row of A into Src (generic writes, then the proxy fence for the copy's
/// async read), cluster_sync, and one thread copies Src into the S of the peer it names with
/// one bulk_copy_peer, completing on that peer's barrier; each CTA expects the bytes its one
/// sender sends, waits, copies S out, and a last cluster_sync.
void generate_peer_copy(Builder& b) {
  b.use(Feature::peer_bulk_copy);
  const ClusterLaunch l = pick_cluster(b);
  const std::int64_t es = std::int64_t{1} << b.rng.below(4);
  const ModelDtype dt = b.dtype(es);
  const std::int64_t bytes = tile::kTensorMapGranule * b.rng.edge(1, 32);
  const std::int64_t N = bytes / es;
  const std::int64_t T = bulk_gen::sharing_threads(b, N);
  launch(b, l, T);
  b.tensor("A", false, {l.G(), N}, dt).init = b.init_for(dt);
  b.tensor("B", false, {l.G(), N}, dt).output = true;
  b.tensor("Src", true, {N}, dt);
  b.tensor("S", true, {N}, dt);
  b.tensor("bar", true, {1}, barrier_dtype);
  const std::size_t u = b.unit({"A", "B", "Src", "S", "bar"});
  cluster_barrier_init(b, u, "bar", 1);
  b.op(u, ModelCopy{bulk_gen::thread_share("Src", {N}, 0, T, ""),
                    bulk_gen::thread_share("A", {l.G(), N}, 1, T, "bid")});
  b.op(u, ModelProxyFence{});
  b.op(u, ModelClusterSync{});
  const RankMap r = pick_rank_map(b, l.C);
  const auto [I, J] = bulk_gen::issuers(b, T);
  b.op(u, ModelExpectTx{ViewText{"bar.sub[0]"}, bytes, ExprText{bulk_gen::thread_is(I)}});
  b.op(u,
       ModelBulkCopyPeer{ViewText{peer("S", r)}, ViewText{"Src"},
                         ViewText{peer("bar", r) + ".sub[0]"}, ExprText{bulk_gen::thread_is(J)}});
  b.op(u, ModelMbarrierWait{ViewText{"bar.sub[0]"}, std::int64_t{0}});
  b.op(u, ModelCopy{bulk_gen::thread_share("B", {l.G(), N}, 1, T, "bid"),
                    bulk_gen::thread_share("S", {N}, 0, T, "")});
  b.op(u, ModelClusterSync{});
  row_expectations(b, l, "B", "A", [&](std::int64_t g) {
    return g - g % l.C + r.from[static_cast<std::size_t>(g % l.C)];
  });
}

/// Remote arrivals counted across the cluster: threads tid < C * m of every CTA arrive on the
/// barrier of CTA tid % C, whose count is C * m; each CTA waits for its phase, copies its rows,
/// and a last cluster_sync keeps its barrier alive for its peers' arrivals.
void generate_peer_arrive(Builder& b) {
  b.use(Feature::peer_arrive);
  const ClusterLaunch l = pick_cluster(b);
  const std::int64_t T = warp_size * b.rng.edge(1, 2);
  launch(b, l, T);
  const std::int64_t m = b.rng.edge(1, 2);
  const std::int64_t es = std::int64_t{1} << b.rng.below(4);
  const ModelDtype dt = b.dtype(es);
  b.tensor("A", false, {l.G(), T}, dt).init = b.init_for(dt);
  b.tensor("B", false, {l.G(), T}, dt).output = true;
  b.tensor("done", true, {1}, barrier_dtype);
  const std::size_t u = b.unit({"A", "B", "done"});
  cluster_barrier_init(b, u, "done", l.C * m);
  b.op(u, ModelClusterSync{});
  const std::string C = std::to_string(l.C);
  b.op(u, ModelMbarrierArrive{ViewText{"done@(tid % " + C + ").sub[0]"},
                              ExprText{"tid < " + std::to_string(l.C * m)}});
  b.op(u, ModelMbarrierWait{ViewText{"done.sub[0]"}, std::int64_t{0}});
  b.op(u, ModelCopy{ViewText{"B.sub[bid, tid]"}, ViewText{"A.sub[bid, tid]"}});
  b.op(u, ModelClusterSync{});
  if (b.opt.expectations)
    b.m.expects.push_back("B == A");
}

/// The ring's tile: a 1-D bulk part of 16 to 128 bytes per rank, or (tensor) an h x W box per
/// rank, each rank's part 128-byte aligned, within `budget` bytes where the draw allows.
struct RingTile {
  bool tensor = false;
  std::int64_t es = 1;
  std::int64_t h = 0, W = 0;       ///< tensor: the box of one rank
  std::vector<std::int64_t> shape; ///< of one stage: {N} or {C * h, W}
  std::int64_t elements() const {
    return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
  }
  std::int64_t bytes() const { return elements() * es; }
};

RingTile pick_ring_tile(Builder& b, std::int64_t C, std::int64_t budget) {
  RingTile t;
  t.tensor = b.rng.chance(1, 2);
  t.es = std::int64_t{1} << b.rng.below(4);
  if (!t.tensor) {
    std::int64_t part = tile::kTensorMapGranule * b.rng.edge(1, 8);
    while (part > tile::kTensorMapGranule && part * C > budget)
      part -= tile::kTensorMapGranule;
    t.shape = {part * C / t.es};
    return t;
  }
  const auto h_unit = [](std::int64_t row) {
    return tile::kTensorMapSharedAlign / std::gcd(tile::kTensorMapSharedAlign, row);
  };
  std::int64_t row = tile::kTensorMapGranule * b.rng.edge(1, 8); // W * es bytes
  while (row > tile::kTensorMapGranule && C * h_unit(row) * row > budget)
    row -= tile::kTensorMapGranule;
  t.h = h_unit(row) * (C * 2 * h_unit(row) * row <= budget ? b.rng.edge(1, 2) : 1);
  t.W = row / t.es;
  t.shape = {C * t.h, t.W};
  return t;
}

/// The ring's release of stage `k % P` in every CTA: G of its T threads (G the CTAs of a
/// mask), after the cta_sync, each arrive on the `empty` of another rank of the CTA's group,
/// all of them covered: threads 0..G-1 on rank tid (or rank tid ^ x), or the last G threads on
/// rank tid - (T - G); `base` (empty: the whole cluster) is the group's first rank.
ModelMbarrierArrive ring_arrival(Builder& b, std::int64_t T, std::int64_t G,
                                 const std::string& stage, const std::string& base) {
  const std::string Gs = std::to_string(G);
  const auto form = b.rng.below(3);
  const std::string x = std::to_string(b.rng.between(1, G - 1)), J = std::to_string(T - G);
  const std::string in_group = form == 0 ? "tid" : form == 1 ? "tid ^ " + x : "tid - " + J;
  const std::string rank = base.empty() ? in_group : base + " + (" + in_group + ")";
  const std::string pred = form == 2 ? "tid >= " + J : "tid < " + Gs;
  return ModelMbarrierArrive{ViewText{"empty@(" + rank + ").sub[" + stage + "]"}, ExprText{pred}};
}

/// The multicast ring whose empty barrier collects the consumers of the whole cluster
/// (CUTLASS's PipelineTmaAsync across a cluster; specs/cluster/multicast_ring_remote_empty_*):
/// P stages (2 to 4) with their `full` and `empty` barriers, K > P tiles so that every stage
/// is refilled. At tile k (stage k % P, its use k / P) thread I of each CTA waits for its
/// `empty` of the stage (the first use's parity 1 passes at once), expects the whole tile on
/// its `full` and multicasts its part (1-D bulk or a 2-D box) to every CTA of the cluster;
/// every thread waits for `full` and copies its share out; after a cta_sync C threads each
/// arrive on the `empty` of one rank (ring_arrival), so each `empty` counts C arrivals a phase,
/// one from the consumers of each CTA its issuer multicasts into (contract_multicast_refill).
void generate_multicast_ring(Builder& b) {
  b.use(Feature::multicast_ring);
  const ClusterLaunch l = pick_cluster(b);
  const std::int64_t P = b.rng.between(2, 4);
  const std::int64_t K =
      std::min(std::max<std::int64_t>(b.opt.max_tiles, P + 1), P + b.rng.edge(1, 4));
  // Masks of part of the cluster (a 2-D cluster's rows, in rank order): each group of G = C / 2
  // consecutive ranks shares its tile, G parts, one from each of its CTAs.
  const bool part = l.C >= 4 && b.rng.chance(1, 2);
  const std::int64_t G = part ? l.C / 2 : l.C;
  const std::string Gs = std::to_string(G);
  const std::string base = part ? "cluster_rank / " + Gs + " * " + Gs : "";
  const std::string share = part ? "cluster_rank % " + Gs : "cluster_rank";
  if (part)
    b.use(Feature::multicast_part_mask);
  const RingTile t = pick_ring_tile(b, G, b.opt.max_tensor_bytes / (l.G() * K));
  const ModelDtype dt = b.dtype(t.es);
  const std::int64_t T = bulk_gen::sharing_threads(b, t.elements());
  launch(b, l, T);
  std::vector<std::int64_t> stages = t.shape, out = t.shape;
  stages.insert(stages.begin(), P);
  out.insert(out.begin(), {l.G(), K});
  const std::string Ps = std::to_string(P);
  const std::string stage = "k % " + Ps;
  ModelTensor& a = b.tensor("A", false, {}, dt);
  a.init = b.init_for(dt);
  if (t.tensor) {
    b.use(Feature::multicast_tensor);
    a.shape = {l.n * K * G * t.h, t.W};
    a.map = ModelMap{{t.h, t.W}, {}, tile::TensorMapSwizzle::none, tile::TensorMapOobFill::zero};
  } else {
    b.use(Feature::multicast_bulk);
    a.shape = {l.n, K, t.shape[0]};
  }
  b.tensor("B", false, out, dt).output = true;
  b.tensor("S", true, stages, dt);
  b.tensor("full", true, {P}, barrier_dtype);
  b.tensor("empty", true, {P}, barrier_dtype);
  const std::size_t u = b.unit({"A", "B", "S", "full", "empty"});
  // `full` hears the issuer's arrival (its expect_tx), `empty` one arrival from each CTA of
  // the group.
  for (const auto& [name, count] : {std::pair{"full", std::int64_t{1}}, std::pair{"empty", G}})
    for (std::int64_t s = 0; s < P; ++s)
      b.op(u, ModelMbarrierInit{ViewText{std::string(name) + ".sub[" + std::to_string(s) + "]"},
                                count});
  b.op(u, ModelMbarrierInitFence{});
  b.op(u, ModelClusterSync{});
  const std::int64_t I = b.rng.edge(0, T - 1);
  const ExprText issuer{bulk_gen::thread_is(I)};
  const ViewText full{"full.sub[" + stage + "]"};
  // The group's ranks, G of them from its first: ((1 << G) - 1) << (first rank).
  const ExprText mask =
      part ? ExprText{std::to_string((std::int64_t{1} << G) - 1) + " << (" + base + ")"}
           : full_mask(b, l.C);
  b.op(u, ModelFor{"k", std::int64_t{0}, K, std::nullopt, std::nullopt});
  b.op(u, ModelMbarrierWait{ViewText{"empty.sub[" + stage + "]"},
                            ExprText{"(k / " + Ps + " + 1) % 2"}, issuer});
  b.op(u, ModelExpectTx{full, t.bytes(), issuer});
  if (t.tensor) {
    ModelTensorLoad load;
    load.tensor = "A";
    load.coords = {ExprText{"(cluster_id * " + std::to_string(K) + " + k) * " +
                            std::to_string(G * t.h) + " + " + share + " * " + std::to_string(t.h)},
                   ExprText{"0"}};
    load.dst = ViewText{"S.rearrange(\"s (r h) c -> s r h c\", r=" + Gs + ").sub[" + stage + ", " +
                        share + ", :, :]"};
    load.barrier = full;
    load.pred = issuer;
    load.multicast = mask;
    b.op(u, load);
  } else {
    ModelBulkLoad load;
    load.dst = ViewText{"S.rearrange(\"s (r e) -> s r e\", r=" + Gs + ").sub[" + stage + ", " +
                        share + ", :]"};
    load.src = ViewText{"A.rearrange(\"c k (r e) -> c k r e\", r=" + Gs + ").sub[cluster_id, k, " +
                        share + ", :]"};
    load.barrier = full;
    load.pred = issuer;
    load.multicast = mask;
    b.op(u, load);
  }
  b.op(u, ModelMbarrierWait{full, ExprText{"k / " + Ps + " % 2"}});
  b.op(u, ModelCopy{bulk_gen::thread_share("B", out, 2, T, "bid, k"),
                    bulk_gen::thread_share("S", stages, 1, T, stage)});
  b.op(u, ModelCtaSync{});
  b.op(u, ring_arrival(b, T, G, stage, base));
  b.op(u, ModelEnd{});
  b.op(u, ModelClusterSync{});
  if (!b.opt.expectations)
    return;
  const std::int64_t per_cluster = K * t.elements() / (t.tensor ? t.W : 1);
  for (std::int64_t g = 0; g < l.G(); ++g) {
    const std::int64_t c = g / l.C;
    const std::string gs = std::to_string(g);
    b.m.expects.push_back(t.tensor ? "B.sub[" + gs +
                                         ", :, :, :].rearrange(\"k r w -> (k r) w\") == A.sub[" +
                                         std::to_string(c * per_cluster) + ":" +
                                         std::to_string((c + 1) * per_cluster) + ", :]"
                                   : "B.sub[" + gs + ":" + std::to_string(g + 1) + "] == A.sub[" +
                                         std::to_string(c) + ":" + std::to_string(c + 1) + "]");
  }
}

} // namespace

void generate_cluster(Builder& b) {
  b.m.family = Family::cluster;
  switch (b.rng.below(7)) {
  case 0:
    generate_dsmem_exchange(b);
    break;
  case 1:
    generate_dsmem_ring(b);
    break;
  case 2:
    generate_multicast_bulk(b);
    break;
  case 3:
    generate_multicast_tensor(b);
    break;
  case 4:
    generate_peer_copy(b);
    break;
  case 5:
    generate_multicast_ring(b);
    break;
  default:
    generate_peer_arrive(b);
    break;
  }
  b.m.name = "cluster_" + std::to_string(b.m.seed);
}

} // namespace ptxgen::driver::fuzz
