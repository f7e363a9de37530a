#include "emitter/tile/tensormap_contract.hpp"

#include "emitter/tile/contract.hpp"
#include "emitter/tile/expr_walk.hpp"

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace ptxgen::tile {

namespace tensormap_order {

/// Above this many threads the proof does not enumerate them.
constexpr std::int64_t kMaxThreads = std::int64_t{1} << 16;

struct Thread {
  std::int64_t bid = 0;
  std::int64_t tid = 0;
  bool operator==(const Thread&) const = default;
};

/// A slot: its tensor, its first byte, and the CTA for a shared one (each CTA has its own).
using SlotKey = std::tuple<const Tensor*, std::int64_t, std::int64_t>;

/// An edit of a slot (a generic-proxy write of its bytes).
struct Edit {
  const Op* op = nullptr;
  Thread by;
  bool released = false; ///< its thread released the tensormap proxy after it
  bool synced = false;   ///< and a cta_sync followed the release
};

struct Slot {
  std::string holds; ///< the tensor whose map the slot holds
  std::vector<Edit> edits;
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> acquired; ///< edits seen
};

std::string where(const Thread& t) {
  return "thread " + std::to_string(t.tid) + " (bid " + std::to_string(t.bid) + ")";
}

std::string line_of(const Op& op) {
  return "line " + std::to_string(op.pos.line);
}

class Walk {
public:
  Walk(const Kernel& k, Diagnostics& out) : k_(k), out_(out) {}

  void run() {
    if (!uses_slots())
      return;
    int depth = 0;
    for (const Op& op : k_.ops) {
      if (std::holds_alternative<ForOp>(op.body))
        ++depth;
      else if (std::holds_alternative<EndOp>(op.body))
        --depth;
      else if (depth > 0 && touches_slot(op.body))
        report(DiagId::contract_tensormap_fence, op.pos, 1,
               std::string(op_kind(op.body)) +
                   " inside a loop: the tensormap-proxy ordering is proved for straight code "
                   "only (unroll the groups)");
      else
        std::visit([&](const auto& body) { step(op, body); }, op.body);
    }
  }

private:
  const Kernel& k_;
  Diagnostics& out_;
  std::map<SlotKey, Slot> slots_;

  static bool touches_slot(const OpBody& b) {
    if (const auto* l = std::get_if<TensorLoadOp>(&b))
      return l->map.has_value();
    if (const auto* s = std::get_if<TensorStoreOp>(&b))
      return s->map.has_value();
    return std::holds_alternative<TensormapCopyOp>(b) ||
           std::holds_alternative<TensormapReplaceOp>(b) ||
           std::holds_alternative<TensormapFenceOp>(b);
  }

  bool uses_slots() const {
    for (const Op& op : k_.ops)
      if (touches_slot(op.body))
        return true;
    return false;
  }

  void report(DiagId id, const SourcePos& pos, std::size_t length, std::string message) {
    out_.add(diagnostic_at(id, pos, std::move(message),
                           static_cast<std::uint32_t>(std::max<std::size_t>(length, 1))));
  }

  /// Calls f(thread) for every thread whose pred may hold (`surely`: surely holds). A pred
  /// that names a parameter or loop variable may hold anywhere and surely holds nowhere.
  template <class F>
  void each(const std::optional<Located<ExprPtr>>& pred, bool surely, F&& f) {
    if (k_.grid * k_.block > kMaxThreads)
      return;
    const bool unknown = pred && uses_params(*pred->value);
    if (unknown && surely)
      return;
    for (std::int64_t b = 0; b < k_.grid; ++b)
      for (std::int64_t t = 0; t < k_.block; ++t) {
        if (pred && !unknown) {
          const auto v = evaluate(*pred->value, k_.env_for(b, t));
          if (!v || *v == 0)
            continue;
        }
        f(Thread{b, t});
      }
  }

  std::optional<SlotKey> key(const View& v, const Thread& t) const {
    const std::vector<std::int64_t> zeros(v.rank(), 0);
    const auto off = v.byte_offset(zeros, k_.env_for(t.bid, t.tid));
    if (!off)
      return std::nullopt;
    return SlotKey{v.tensor, *off, v.tensor->space == Space::shared ? t.bid : 0};
  }

  void write(const Op& op, const View& v, const Thread& t, std::string holds, bool released) {
    const auto k = key(v, t);
    if (!k)
      return;
    Slot& s = slots_[*k];
    if (!holds.empty())
      s.holds = std::move(holds);
    s.edits.push_back(Edit{&op, t, released, false});
  }

  void step(const Op& op, const TensormapCopyOp& c) {
    each(c.pred, false, [&](const Thread& t) {
      std::string holds = c.tensor.value;
      if (c.src) {
        const auto sk = key(c.src->value, t);
        const auto it = sk ? slots_.find(*sk) : slots_.end();
        if (it == slots_.end() || it->second.holds != c.tensor.value) {
          report(DiagId::contract_tensormap_source, c.src->pos, c.src->text.size(),
                 "tensormap_copy src " + c.src->text + " holds " +
                     (it == slots_.end() ? std::string("no map") : it->second.holds + "'s map") +
                     " at " + where(t) + ", not " + c.tensor.value +
                     "'s: copy the map into it first (tensormap_copy without src)");
          return;
        }
      }
      // The cp_fenceproxy copy is also the release of its write.
      write(op, c.dst.value, t, std::move(holds), c.src.has_value());
    });
  }

  void step(const Op& op, const TensormapReplaceOp& r) {
    each(r.pred, false, [&](const Thread& t) {
      const auto k = key(r.map.value, t);
      const auto it = k ? slots_.find(*k) : slots_.end();
      if (it == slots_.end() || it->second.holds != r.tensor.value) {
        report(DiagId::contract_tensormap_source, r.map.pos, r.map.text.size(),
               "tensormap_replace of " + r.map.text + " at " + where(t) + ": the slot holds " +
                   (it == slots_.end() ? std::string("no map") : it->second.holds + "'s map") +
                   ", not " + r.tensor.value + "'s (tensormap_copy it there first)");
        return;
      }
      write(op, r.map.value, t, {}, false);
    });
  }

  void step(const Op&, const TensormapFenceOp& f) {
    each(f.pred, true, [&](const Thread& t) {
      if (f.sem == TensormapSem::release) {
        // fence.proxy.tensormap::generic.release orders all of the thread's earlier writes.
        for (auto& [k, s] : slots_)
          for (Edit& e : s.edits)
            if (e.by == t)
              e.released = true;
        return;
      }
      const auto k = key(f.map.value, t);
      if (!k)
        return;
      Slot& s = slots_[*k];
      bool all = true;
      for (const Edit& e : s.edits)
        all = all && visible(e, t);
      if (all)
        s.acquired[{t.bid, t.tid}] = s.edits.size();
    });
  }

  void step(const Op&, const CtaSyncOp&) {
    for (auto& [k, s] : slots_)
      for (Edit& e : s.edits)
        e.synced = e.synced || e.released;
  }

  static bool visible(const Edit& e, const Thread& t) {
    return e.released && (e.by == t || (e.synced && e.by.bid == t.bid));
  }

  void use(const Op& op, std::string_view kind, const Located<std::string>& tensor,
           const Located<View>& map, const std::optional<Located<ExprPtr>>& pred) {
    each(pred, false, [&](const Thread& t) {
      const auto k = key(map.value, t);
      if (!k)
        return;
      const auto it = slots_.find(*k);
      if (it == slots_.end() || it->second.holds != tensor.value) {
        report(DiagId::contract_tensormap_source, map.pos, map.text.size(),
               std::string(kind) + " through the map at " + map.text + " (" + where(t) +
                   "): the slot holds " +
                   (it == slots_.end() ? std::string("no map") : it->second.holds + "'s map") +
                   ", not " + tensor.value + "'s");
        return;
      }
      const Slot& s = it->second;
      const auto a = s.acquired.find({t.bid, t.tid});
      if (a != s.acquired.end() && a->second == s.edits.size())
        return;
      report(DiagId::contract_tensormap_fence, map.pos, map.text.size(),
             std::string(kind) + " through the map at " + map.text + " (" + where(t) +
                 ") may read it before its last edit reaches the tensormap proxy: " +
                 missing_fence(s, t) +
                 " (docs/spec-format.md, \"Tensor maps edited on the "
                 "device\")");
    });
    (void)op;
  }

  static std::string missing_fence(const Slot& s, const Thread& t) {
    for (const Edit& e : s.edits) {
      const std::string edit =
          std::string(op_kind(e.op->body)) + " at " + line_of(*e.op) + " by " + where(e.by);
      if (!e.released)
        return "the " + edit + " has no tensormap_fence sem = \"release\" of its thread after it";
      if (!(e.by == t) && !(e.synced && e.by.bid == t.bid))
        return "the " + edit +
               " is released but no cta_sync follows the release before the "
               "copying thread's acquire";
    }
    return "no tensormap_fence sem = \"acquire\" of the map by " + where(t) +
           " after its last edit's release";
  }

  void step(const Op& op, const TensorLoadOp& l) {
    if (l.map)
      use(op, "tensor_load", l.tensor, *l.map, l.pred);
  }
  void step(const Op& op, const TensorStoreOp& s) {
    if (s.map)
      use(op, "tensor_store", s.tensor, *s.map, s.pred);
  }
  template <class Other>
  void step(const Op&, const Other&) {}
};

} // namespace tensormap_order

void check_tensormap_order(const Kernel& k, Diagnostics& out) {
  tensormap_order::Walk(k, out).run();
}

} // namespace ptxgen::tile
