// The builder's cluster rules: `[kernel] cluster = [x, y, z]` and `cluster_non_portable`, the
// grid as a whole number of clusters, and the cluster names of expressions only where a
// cluster is declared.
#include "emitter/builder/builder.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr_walk.hpp"
#include "emitter/tile/op_table.hpp"

#include <array>
#include <optional>
#include <string>
#include <type_traits>

namespace ptxgen::build {

namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};

std::int64_t axis_of(const tile::Dim3& d, std::size_t i) {
  return i == 0 ? d.x : i == 1 ? d.y : d.z;
}

bool is_cluster_leaf(const tile::Expr& e) {
  return e.kind == tile::ExprKind::special && tile::of_cluster(e.special);
}

std::string undeclared(const tile::Expr& leaf) {
  return std::string(tile::spelling(leaf.special)) +
         " names the kernel's cluster, which it does not declare: add [kernel] cluster = "
         "[x, y, z] (sm_90) before it is used";
}

/// The first field of an op (ops.def) whose expressions name a cluster special, as text and
/// position; for kernels built in code, whose expressions reach the builder already parsed.
struct ClusterUse {
  const tile::Expr* hit = nullptr;
  const std::string* text = nullptr;
  const tile::SourcePos* pos = nullptr;

  template <class Op>
  void operator()(const Op& op) {
    tile::for_each_field(op, [&](const tile::FieldRow&, const auto& member) { find(member); });
  }
  void note(const tile::Expr* e, const std::string& t, const tile::SourcePos& p) {
    if (!hit && e) {
      hit = e;
      text = &t;
      pos = &p;
    }
  }
  void find(const tile::Located<tile::ExprPtr>& e) {
    note(tile::find_node(*e.value, is_cluster_leaf), e.text, e.pos);
  }
  void find(const std::optional<tile::Located<tile::ExprPtr>>& e) {
    if (e)
      find(*e);
  }
  void find(const std::vector<tile::Located<tile::ExprPtr>>& es) {
    for (const auto& e : es)
      find(e);
  }
  void find(const std::optional<std::vector<tile::Located<tile::ExprPtr>>>& es) {
    if (es)
      find(*es);
  }
  void find(const tile::Located<tile::View>& v) {
    for (const tile::RuntimeTerm& t : v.value.terms)
      note(tile::find_node(*t.index, is_cluster_leaf), v.text, v.pos);
    if (v.value.peer)
      note(tile::find_node(*v.value.peer, is_cluster_leaf), v.text, v.pos);
  }
  void find(const std::optional<tile::Located<tile::View>>& v) {
    if (v)
      find(*v);
  }
  // Fields that hold no expression.
  void find(const tile::Located<ptx::CpAsyncOpcode>&) {}
  void find(const tile::Located<std::int64_t>&) {}
  void find(const tile::Located<std::string>&) {}
  void find(const std::optional<tile::Located<tile::CachePolicy>>&) {}
  void find(const std::vector<std::uint8_t>&) {}
  void find(std::int64_t) {}
  void find(bool) {}
  void find(tile::Scope) {}
  void find(tile::FenceSpace) {}
  void find(tile::ReduceKind) {}
  void find(tile::TensormapField) {}
  void find(tile::TensormapSem) {}
  void find(const std::optional<tile::Located<std::string>>&) {}
  void find(tile::RegAction) {}
};

} // namespace

void Builder::cluster(const std::array<std::int64_t, 3>& d, bool non_portable, const At& at) {
  std::int64_t total = 1;
  for (std::size_t i = 0; i < 3; ++i) {
    if (d[i] < 1 || d[i] > ptx::max_cluster_ctas) {
      error(DiagId::spec_cluster_shape, at,
            std::string("cluster.") + kAxis[i] + " must be in 1.." +
                std::to_string(ptx::max_cluster_ctas) + "; got " + std::to_string(d[i]));
      return;
    }
    total *= d[i];
  }
  if (total > ptx::max_cluster_ctas) {
    error(DiagId::spec_cluster_shape, at,
          "a cluster of " + std::to_string(total) + " CTAs; at most " +
              std::to_string(ptx::max_cluster_ctas) + " (with cluster_non_portable = true)");
    return;
  }
  if (total > ptx::max_portable_cluster_ctas && !non_portable) {
    error(DiagId::spec_cluster_portable, at,
          "a cluster of " + std::to_string(total) + " CTAs is beyond the portable " +
              std::to_string(ptx::max_portable_cluster_ctas) +
              "; opt in with cluster_non_portable = true (the device must allow it)");
    return;
  }
  kernel_->cluster = tile::Kernel::Cluster{{d[0], d[1], d[2]}, non_portable, at.pos};
}

void Builder::non_portable_without_cluster(const At& at) {
  error(DiagId::spec_cluster_portable, at,
        "cluster_non_portable applies to a cluster: add cluster = [x, y, z]");
}

Diagnostics Builder::cluster_diagnostics() const {
  Diagnostics out = peer_view_diagnostics();
  if (!kernel_->cluster) {
    if (!kernel_->built_in_code)
      return out; // a spec's expressions were checked as they were parsed (cluster_names)
    ClusterUse use;
    for (const tile::Op& op : kernel_->ops)
      std::visit(use, op.body);
    if (use.hit)
      out.add(Text{*use.text, *use.pos, false, 1}.place(
          error_at(DiagId::spec_cluster_undeclared, *use.text, use.hit->offset, use.hit->length,
                   undeclared(*use.hit))));
    return out;
  }
  const tile::Dim3 grid = kernel_->grid_dim.or_x(kernel_->grid);
  const tile::Dim3 c = kernel_->cluster->dims;
  for (std::size_t i = 0; i < 3; ++i)
    if (axis_of(grid, i) % axis_of(c, i) != 0) {
      out.add(tile::diagnostic_at(DiagId::spec_cluster_grid, kernel_->cluster->pos,
                                  std::string("grid.") + kAxis[i] + " = " +
                                      std::to_string(axis_of(grid, i)) +
                                      " is not a whole number of clusters (cluster." + kAxis[i] +
                                      " = " + std::to_string(axis_of(c, i)) + ")"));
      break;
    }
  return out;
}

namespace {

/// The first view of a peer's shared tensor among an op's fields (ops.def), or nullptr.
struct PeerViewUse {
  const tile::Located<tile::View>* hit = nullptr;

  template <class Op>
  void operator()(const Op& op) {
    tile::for_each_field(op, [&](const tile::FieldRow&, const auto& member) { find(member); });
  }
  template <class T>
  void find(const T& member) {
    if constexpr (std::is_same_v<T, tile::Located<tile::View>>) {
      if (!hit && member.value.peer)
        hit = &member;
    }
  }
};

/// bulk_copy_peer's views: dst a peer's (`S@rank`), barrier that same peer's (`B@rank`, the
/// same rank: the copy completes on the destination CTA's mbarrier), src the CTA's own. The
/// first refusal, or nothing.
std::optional<Diagnostic> peer_copy_fault(const tile::BulkCopyPeerOp& c) {
  const auto refuse = [](DiagId id, const tile::Located<tile::View>& v, const std::string& why) {
    return tile::diagnostic_at(id, v.pos, "'" + v.text + "' " + why,
                               static_cast<std::uint32_t>(v.text.size()));
  };
  if (!c.dst.value.peer)
    return refuse(DiagId::spec_peer_copy_rank, c.dst,
                  "is the CTA's own shared memory: bulk_copy_peer's dst names a peer's, "
                  "S@rank (a copy into the CTA's own is bulk_load's or copy's)");
  if (c.src.value.peer)
    return refuse(DiagId::spec_peer_view_op, c.src,
                  "is a view of a peer CTA's shared memory: bulk_copy_peer reads the CTA's own");
  if (!c.barrier.value.peer || tile::print(*c.barrier.value.peer) != tile::print(*c.dst.value.peer))
    return refuse(DiagId::spec_peer_copy_rank, c.barrier,
                  "is not the mbarrier of dst's CTA: the copy completes on the barrier of the "
                  "CTA it writes, so name it " +
                      c.barrier.value.tensor->name + "@(" + tile::print(*c.dst.value.peer) +
                      ")...");
  return std::nullopt;
}

/// Whether op takes view v of a peer's shared tensor: copy and fill on either side, a
/// remote mbarrier_arrive's barrier and bulk_copy_peer's dst and barrier.
bool takes_peer_view(const tile::Op& op, const tile::Located<tile::View>& v) {
  if (std::holds_alternative<tile::CopyOp>(op.body) ||
      std::holds_alternative<tile::FillOp>(op.body))
    return true;
  if (const auto* a = std::get_if<tile::MbarrierArriveOp>(&op.body))
    return &a->barrier == &v;
  if (const auto* c = std::get_if<tile::BulkCopyPeerOp>(&op.body))
    return &c->src != &v;
  return false;
}

} // namespace

bool Builder::peer_names(const tile::View& v, const Text& at) {
  if (!cluster_names(*v.peer, at))
    return false;
  if (kernel_->cluster || kernel_->built_in_code)
    return true; // in code the cluster may come later: peer_view_diagnostics
  error_in(DiagId::spec_peer_view_undeclared, at, v.peer_offset, v.peer_length,
           "'" + v.tensor->name +
               "@...' names a peer CTA's shared memory, and the kernel declares no cluster: add "
               "[kernel] cluster = [x, y, z] (sm_90)");
  return false;
}

Diagnostics Builder::peer_view_diagnostics() const {
  Diagnostics out;
  for (const tile::Op& op : kernel_->ops) {
    if (const auto* c = std::get_if<tile::BulkCopyPeerOp>(&op.body))
      if (auto d = peer_copy_fault(*c)) {
        out.add(std::move(*d));
        return out;
      }
    PeerViewUse use;
    std::visit(use, op.body);
    if (!use.hit)
      continue;
    const auto& v = *use.hit;
    const auto length = static_cast<std::uint32_t>(v.text.size());
    if (!takes_peer_view(op, v)) {
      out.add(tile::diagnostic_at(
          DiagId::spec_peer_view_op, v.pos,
          "'" + v.text + "' is a view of a peer CTA's shared memory, which " +
              std::string(tile::op_kind(op.body)) +
              " does not take: copy and fill access a peer's shared memory, mbarrier_arrive "
              "its barrier and bulk_copy_peer both",
          length));
      return out;
    }
    if (!kernel_->cluster) {
      out.add(tile::diagnostic_at(DiagId::spec_peer_view_undeclared, v.pos,
                                  "'" + v.text +
                                      "' names a peer CTA's shared memory, and the kernel "
                                      "declares no cluster",
                                  length));
      return out;
    }
  }
  return out;
}

bool Builder::cluster_names(const tile::Expr& e, const Text& at) {
  if (kernel_->cluster)
    return true;
  const tile::Expr* hit = tile::find_node(e, is_cluster_leaf);
  if (!hit)
    return true;
  error_in(DiagId::spec_cluster_undeclared, at, hit->offset, hit->length, undeclared(*hit));
  return false;
}

} // namespace ptxgen::build
