// Copies and fills through a view of a peer CTA's shared tensor (`S@rank`, distributed shared
// memory), and the races between a cluster's CTAs on one CTA's shared bytes. The peer's bytes
// are those of its CTA as it stands between its turns (evaluator_cluster.cpp); the accesses of
// the peer's side are recorded for the races between CTAs (grid_races.hpp, one buffer per owner
// and tensor), as are the owner's own accesses of a tensor that some op views in a peer
// (note_shared): two CTAs' accesses of one byte in one cluster phase, one writing, race.

#include "driver/reference/evaluator.hpp"
#include "driver/reference/ref_walk.hpp"

#include <cstring>

namespace ptxgen::driver::evaluation {

void Evaluator::step_peer_copy(std::size_t op, const tile::CopyOp& c) {
  const NaivePlan& dp = plan(c.dst.value);
  const NaivePlan& sp = plan(c.src.value);
  if (dp.shape() != sp.shape() || dp.element_bytes() != sp.element_bytes()) {
    problems_.add(op, DiagId::check_views_do_not_fit, "dst and src do not fit together",
                  [] { return std::string(); });
    return;
  }
  const Slot ds = *slot(c.dst.value);
  const Slot ss = *slot(c.src.value);
  const std::int64_t bid = cta_;
  const auto& shape = dp.shape();
  const std::int64_t n = shape.empty() ? 1 : shape.back();
  tile::ExprEnv e = env(bid, 0);
  std::vector<std::uint8_t> value;
  std::vector<std::uint8_t> defined;
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    e.tid = tid;
    std::int64_t downer = bid;
    std::int64_t sowner = bid;
    Buffer* db = side_buffer(op, c.dst, ds, e, downer);
    Buffer* sb = side_buffer(op, c.src, ss, e, sowner);
    if (db == nullptr || sb == nullptr) {
      continue;
    }
    const bool dpeer = c.dst.value.peer != nullptr;
    const bool speer = c.src.value.peer != nullptr;
    auto element = [&](const std::vector<std::int64_t>& x) {
      Runs so;
      Runs dO;
      if (!locate(op, c.src, *sb, e, x, std::nullopt, so) ||
          !locate(op, c.dst, *db, e, x, std::nullopt, dO)) {
        return;
      }
      // ld, then st: the whole element is read before it is written.
      value.clear();
      defined.clear();
      so.each([&](Run r) {
        const std::size_t at = value.size();
        if (sb->holds_values()) {
          value.insert(value.end(), &sb->bytes[r.off], &sb->bytes[r.off] + r.len);
        } else {
          value.insert(value.end(), static_cast<std::size_t>(r.len), 0);
        }
        if (sb->defined.empty()) {
          defined.insert(defined.end(), r.len, 1);
        } else {
          defined.insert(defined.end(), &sb->defined[r.off], &sb->defined[r.off] + r.len);
        }
        if (speer) {
          note_shared(op, tid, *sb, sowner, r, false);
          return;
        }
        read_run(op, cta_state_, bid, tid, *sb, r, 0, [&](std::int64_t from, std::int64_t len) {
          std::fill_n(defined.begin() + static_cast<std::ptrdiff_t>(at + from), len, 1);
        });
      });
      std::size_t at = 0;
      dO.each([&](Run r) {
        if (db->holds_values()) {
          std::memcpy(&db->bytes[r.off], &value[at], r.len);
        }
        put_defined(*db, r.off, &defined[at], r.len);
        at += r.len;
        if (dpeer) {
          note_shared(op, tid, *db, downer, r, true);
        } else {
          write_run(op, cta_state_, bid, tid, *db, r, 0);
        }
      });
    };
    for_each_row(shape, [&](const std::vector<std::int64_t>& x) {
      std::vector<std::int64_t> y = x;
      for (std::int64_t i = 0; i < n; ++i) {
        if (!shape.empty()) {
          y.back() = i;
        }
        element(y);
      }
    });
  }
}

/// A fill of a peer's view; step(FillOp) has refused an empty pattern.
void Evaluator::step_peer_fill(std::size_t op, const tile::FillOp& f) {
  const NaivePlan& p = plan(f.dst.value);
  const Slot s = *slot(f.dst.value);
  const std::int64_t eb = p.element_bytes();
  const auto& shape = p.shape();
  const std::int64_t n = shape.empty() ? 1 : shape.back();
  tile::ExprEnv e = env(cta_, 0);
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    e.tid = tid;
    std::int64_t owner = cta_;
    Buffer* b = side_buffer(op, f.dst, s, e, owner);
    if (b == nullptr) {
      continue;
    }
    std::int64_t element = 0;
    for_each_row(shape, [&](const std::vector<std::int64_t>& x) {
      std::vector<std::int64_t> y = x;
      for (std::int64_t i = 0; i < n; ++i, ++element) {
        if (!shape.empty()) {
          y.back() = i;
        }
        Runs runs;
        if (!locate(op, f.dst, *b, e, y, std::nullopt, runs)) {
          continue;
        }
        // Byte k of the thread's view gets pattern[k % size], as fill's own CTA path.
        std::int64_t k = element * eb;
        runs.each([&](Run r) {
          put_pattern(*b, r, k, f.pattern);
          put_defined(*b, r.off, nullptr, r.len);
          note_shared(op, tid, *b, owner, r, true);
          k += r.len;
        });
      }
    });
  }
}

void Evaluator::report_shared_race(const ref::GridRace& r) {
  const std::size_t per_owner = peer_shared_.size();
  const std::size_t at = r.access.buffer - globals_.size();
  const auto owner = static_cast<std::int64_t>(at / per_owner);
  const Buffer& b = shared_template_[at % per_owner];
  const bool both = r.access.write && r.other.write;
  const std::string kind = both ? "two CTAs of a cluster write the same shared bytes of one CTA, "
                                  "with no cluster_sync between them"
                                : "one CTA of a cluster reads shared bytes of one CTA that another "
                                  "writes, with no cluster_sync between them";
  problems_.add(
      r.access.op, DiagId::check_cluster_shared_race, kind,
      [&] {
        const auto who = [&](std::int64_t bid, const ref::GlobalAccess& a) {
          return cta_text(bid) + " thread " + std::to_string(a.tid) + role(a.op, a.tid) +
                 (bid == owner ? std::string(" (its own tensor)")
                               : std::string(" (through a peer view)"));
        };
        const std::string other_op = r.other.op == r.access.op
                                         ? std::string("the same op")
                                         : tile::op_label(k_, r.other.op) + " (" +
                                               std::string(tile::op_kind(k_.ops[r.other.op].body)) +
                                               ")";
        return who(r.bid, r.access) + (r.access.write ? " writes " : " reads ") +
               byte_text(b, r.byte) + " of " + cta_text(owner) + ", which " +
               who(r.other_bid, r.other) + (r.other.write ? " writes" : " reads") + " at " +
               other_op +
               ": order them with a cluster_sync (not relaxed) of both CTAs between the accesses";
      },
      Severity::error, r.bytes);
}

} // namespace ptxgen::driver::evaluation
