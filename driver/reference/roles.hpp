#pragma once
// Who runs each op of a kernel, for the reference's findings that name a thread: a
// warp-specialized kernel's threads are a producer and consumers, and "thread 32" alone does
// not say which (docs/spec-format.md, "Warp specialization").
//
//  - An op the user wrote with a pred on the thread's index ("warp >= 1", "tid == 0",
//    "warp / 4 == 1") runs on the threads for which the pred holds, evaluated for each thread
//    of the block as the contract's role rules evaluate it (tile::role_threads); of a pred
//    "A && B" whose B is not on the thread alone (the producer's guard "tid == 0 && k + 1 <
//    6"), the threads of A. Ops with the same threads are one role; a role that issues a bulk
//    or tensor load, an expect_tx or a cp.async is a producer, and a role that shares no
//    thread with any producer, in a kernel that has one, a consumer: "warp 1, the consumer
//    warps 1-2: pred 'warp >= 1'".
//  - An op a pipeline's mbarrier ring expanded into is named by its part in the ring: "the
//    pipeline's producer's refill of stage 1". Its stage is the index of the ring barrier the
//    op (or, for the consumer's own ops, the consumers' wait before them) names, which the
//    evaluator finds for the thread and iteration at hand (Evaluator::ring_stage).
//  - Any other op (no pred, a pred with no conjunct on the thread's index alone, a cp.async
//    pipeline's op, which every thread runs) has no role: its thread is named alone.

#include "emitter/tile/kernel.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver::ref {

/// Built at the first question: most launches find nothing and never ask one, and the
/// preds are evaluated for every thread of the block.
class Roles {
public:
  explicit Roles(const tile::Kernel& k) : k_(k) {}

  /// The role of thread `tid` in op `op`: "warp 1, the consumer warps 1-2: pred 'warp >= 1'",
  /// "the pipeline's producer's refill of stage 1" (`stage`: the ring stage, when known);
  /// empty when the op has none.
  std::string of(std::size_t op, std::int64_t tid, std::optional<std::int64_t> stage) const;

  /// The ring barrier whose index is op `op`'s stage (a ring op's own barrier, the consumers'
  /// wait's for the consumer's ops); nullptr for an op of no ring.
  const tile::Located<tile::View>* stage_barrier(std::size_t op) const;

private:
  /// Threads that run the same ops (a pred's).
  struct Group {
    std::vector<bool> threads;
    std::string text; ///< "the consumer warps 1-2", "warps 3-4", "the producer" (one thread)
    bool producer = false;
  };
  /// An op's role.
  struct OpRole {
    std::int32_t group = -1;                            ///< a pred's role, else -1
    const tile::Located<tile::View>* barrier = nullptr; ///< stage_barrier
    std::string ring;                                   ///< a ring op's name, else empty
    const tile::Located<tile::ExprPtr>* pred = nullptr; ///< the pred of a group's op
  };

  /// Every op's role, once.
  void build() const;
  void add_pred_role(std::size_t op, const tile::Located<tile::ExprPtr>& pred) const;
  void name_groups() const;

  const tile::Kernel& k_;
  mutable bool built_ = false;
  mutable std::vector<Group> groups_;
  mutable std::vector<OpRole> ops_;
};

} // namespace ptxgen::driver::ref
