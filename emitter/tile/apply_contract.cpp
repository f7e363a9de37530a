#include "emitter/tile/apply_contract.hpp"

#include "emitter/tile/contract_text.hpp"
#include "emitter/tile/expr_walk.hpp"
#include "emitter/tile/well_formed.hpp"

#include <string>

namespace ptxgen::tile {

std::map<std::string, std::size_t, std::less<>> repeat_axis_names(const ApplyOp& a) {
  std::map<std::string, std::size_t, std::less<>> names;
  const View& v = a.src.value;
  const std::size_t first = a.scope == Scope::cta ? 2 : 0;
  for (std::size_t i = first; i + 1 < v.axes.size(); ++i)
    if (!v.axes[i].name.empty())
      names.emplace(v.axes[i].name, i);
  return names;
}

// A named namespace: the unity build may join this file with contract.cpp, whose file-local
// helpers have names of their own.
namespace apply_proof {

void error(const ApplyProofContext& c, DiagId id, const SourcePos& pos, std::string msg,
           std::uint32_t len = 1) {
  c.out.add(diagnostic_at(id, pos, std::move(msg), len));
}

/// One view's role in an op, for messages.
struct ViewUse {
  const Located<View>* view;
  std::string_view role; ///< "dst", "src"
};

/// The apply's operands: the cache policy exactly with the hint, src_size / ignore_src /
/// pred in range and 32-bit safe.
void check_operands(const ApplyProofContext& c, const ApplyOp& a, bool chunk_ok) {
  const auto& opc = a.opcode.value;
  const std::int64_t chunk = a.chunk_bytes.value;
  // Cache policy present exactly with the hint.
  if (opc.cache_hint && !a.cache_policy)
    error(c, DiagId::contract_hint_without_policy, a.opcode.pos,
          "the opcode has `.L2::cache_hint`, which requires a cache_policy (a u64 parameter or "
          "createpolicy(...))",
          text_length(a.opcode));
  if (!opc.cache_hint && a.cache_policy)
    error(c, DiagId::contract_policy_without_hint, a.cache_policy->pos,
          "cache_policy is given but the opcode has no `.L2::cache_hint`; add it to the opcode "
          "or drop cache_policy",
          text_length(*a.cache_policy));
  check_policy_param(c.kernel, a.cache_policy, c.out);
  if (auto d = operand_forms_rule(a.src_size.has_value(), a.ignore_src.has_value()))
    error(c, d->id, a.ignore_src->pos, std::move(d->message), text_length(*a.ignore_src));

  // Repeat axes named in the operands range over their axis.
  LaunchBounds lb = c.bounds;
  for (const auto& [name, axis] : repeat_axis_names(a))
    lb.axes[name] = Interval{0, a.src.value.axes[axis].size - 1};
  if (a.src_size && chunk_ok && !c.broken_loop(*a.src_size->value)) {
    auto b = bounds(*a.src_size->value, lb);
    if (!b || b->lo < 0 || b->hi > chunk) {
      std::string range = b ? std::to_string(b->lo) + ".." + std::to_string(b->hi) : "unbounded";
      error(c, DiagId::contract_src_size_range, a.src_size->pos,
            "src_size must be provably in 0.." + std::to_string(chunk) + "; its range is " + range,
            text_length(*a.src_size));
    } else {
      c.u32(*a.src_size->value, lb, a.src_size->pos, text_length(*a.src_size), "src_size");
    }
  }
  if (a.ignore_src)
    c.u32(*a.ignore_src->value, lb, a.ignore_src->pos, text_length(*a.ignore_src), "ignore_src");
  if (a.pred)
    c.u32(*a.pred->value, lb, a.pred->pos, text_length(*a.pred), "pred");
}

/// One operand's shape: its group axes, then a contiguous chunk axis of chunk_bytes.
bool check_apply_shape(const ApplyProofContext& c, const ApplyOp& a, const ViewUse& u,
                       std::size_t group_axes, std::int64_t chunk) {
  const View& v = u.view->value;
  if (v.rank() < group_axes + 1) {
    error(c, a.scope == Scope::cta ? DiagId::contract_group_axes : DiagId::contract_no_element_axis,
          u.view->pos,
          a.scope == Scope::cta
              ? std::string("missing group axis: at CTA scope ") + std::string(u.role) +
                    " must have shape (warp, lane, *repeat, element); it has shape " + shape_str(v)
              : std::string(u.role) + " must have at least the element axis; it has shape " +
                    shape_str(v),
          text_length(*u.view));
    return false;
  }
  if (a.scope == Scope::cta) {
    if (c.kernel.block % 32 != 0 || v.axes[1].size != 32 || v.axes[0].size != c.kernel.block / 32) {
      error(c, DiagId::contract_group_axes, u.view->pos,
            "missing group axis: at CTA scope the first two axes of " + std::string(u.role) +
                " bind (warp, lane) and must be (" + std::to_string(c.kernel.block / 32) +
                ",32) for a block of " + std::to_string(c.kernel.block) + " threads; " +
                std::string(u.role) + " has shape " + shape_str(v),
            text_length(*u.view));
      return false;
    }
  }
  // The chunk axis: exactly chunk_bytes, contiguous.
  const ViewAxis& last = v.axes.back();
  const std::int64_t elem = size_bytes(v.dtype);
  if (last.size * elem != chunk) {
    error(c, DiagId::contract_chunk_axis_bytes, u.view->pos,
          std::string(u.role) + ": the final axis holds " + std::to_string(last.size) + " " +
              std::string(name(v.dtype)) + " = " + std::to_string(last.size * elem) +
              " bytes; chunk_bytes is " + std::to_string(chunk) +
              " (the final axis must occupy exactly chunk_bytes bytes)",
          text_length(*u.view));
    return false;
  }
  if (last.size > 1 && last.stride_bytes != elem) {
    error(c, DiagId::contract_noncontiguous_chunk, u.view->pos,
          std::string(u.role) + " " + v.str() +
              ": noncontiguous chunk: the final axis has a "
              "stride of " +
              std::to_string(last.stride_bytes) + " bytes; its " + std::to_string(elem) +
              "-byte elements must be adjacent (stride " + std::to_string(elem) + ")",
          text_length(*u.view));
    return false;
  }
  return true;
}

/// dst and src agree on their repeat axes, and those ask for few enough instructions.
bool check_apply_repeats(const ApplyProofContext& c, const ApplyOp& a, std::size_t group_axes) {
  const View& dv = a.dst.value;
  const View& sv = a.src.value;
  if (dv.rank() != sv.rank()) {
    error(c, DiagId::contract_shapes_disagree, a.src.pos,
          "dst has shape " + shape_str(dv) + " and src has shape " + shape_str(sv) +
              "; the repeat axes must agree",
          text_length(a.src));
    return false;
  }
  std::int64_t repeats = 1;
  for (std::size_t i = 0; i + 1 < dv.rank(); ++i) {
    if (dv.axes[i].size != sv.axes[i].size) {
      error(c, DiagId::contract_shapes_disagree, a.src.pos,
            "axis " + std::to_string(i) + " has size " + std::to_string(dv.axes[i].size) +
                " in dst " + shape_str(dv) + " but " + std::to_string(sv.axes[i].size) +
                " in src " + shape_str(sv),
            text_length(a.src));
      return false;
    }
    if (i >= group_axes)
      repeats *= dv.axes[i].size;
  }
  if (repeats > max_repeats_per_apply) {
    error(c, DiagId::contract_too_many_repeats, a.dst.pos,
          "the repeat axes ask for " + std::to_string(repeats) +
              " cp.async instructions per thread; at most " +
              std::to_string(max_repeats_per_apply) + " are unrolled",
          text_length(a.dst));
    return false;
  }
  return true;
}

/// At scope "thread", a dst that does not depend on the thread is the same shared bytes
/// for every thread of the CTA: all of them copy there (a race), unless a pred picks one.
/// Views whose leading axes are (block/32, 32) are CTA-shaped: the scope is what is wrong.
bool check_thread_scope_dst(const ApplyProofContext& c, const ApplyOp& a) {
  const View& dv = a.dst.value;
  if (a.scope != Scope::thread || a.pred || c.kernel.block < 2 || uses_thread(dv))
    return true;
  const bool cta_shaped = c.kernel.block % 32 == 0 && dv.rank() >= 3 &&
                          dv.axes[0].size == c.kernel.block / 32 && dv.axes[1].size == 32;
  const std::string threads = std::to_string(c.kernel.block);
  error(c, DiagId::contract_thread_scope_same_dst, a.dst.pos,
        cta_shaped
            ? "scope is \"thread\" (the default), but dst " + shape_str(dv) +
                  " is CTA-shaped: its first two axes are the (warp, lane) of a " + threads +
                  "-thread block; add scope = \"cta\" to give each thread its own chunks (at "
                  "thread scope every thread copies the whole view to the same shared bytes)"
            : "scope is \"thread\" (the default), but dst does not depend on tid, warp or "
              "lane: all " +
                  threads +
                  " threads of a CTA copy to the same shared bytes; index dst by the thread, "
                  "add a pred that selects one thread, or use scope = \"cta\"",
        text_length(a.dst));
  return false;
}

/// Direction: the seed's "shared-to-global request" fails here.
bool check_direction(const ApplyProofContext& c, const ApplyOp& a) {
  bool direction_ok = true;
  if (a.dst.value.tensor->space != Space::shared) {
    error(c, DiagId::contract_direction, a.dst.pos,
          "cp.async copies global to shared: dst '" + a.dst.value.tensor->name +
              "' is in global memory (a shared-to-global request is not a cp.async)",
          text_length(a.dst));
    direction_ok = false;
  }
  if (a.src.value.tensor->space != Space::global) {
    error(c, DiagId::contract_direction, a.src.pos,
          "cp.async copies global to shared: src '" + a.src.value.tensor->name +
              "' is in shared memory; the source must be a global tensor",
          text_length(a.src));
    direction_ok = false;
  }
  return direction_ok;
}

/// chunk_bytes: 4, 8 or 16, and 16 for `.cg`.
bool check_chunk_bytes(const ApplyProofContext& c, const ApplyOp& a) {
  const std::int64_t chunk = a.chunk_bytes.value;
  if (chunk != 4 && chunk != 8 && chunk != 16) {
    error(c, DiagId::contract_chunk_bytes, a.chunk_bytes.pos,
          "chunk_bytes must be the constant 4, 8 or 16; it is " + std::to_string(chunk));
    return false;
  }
  if (a.opcode.value.cache_op == ptx::CacheOp::cg && chunk != 16) {
    error(c, DiagId::contract_cg_chunk, a.chunk_bytes.pos,
          "`.cg` copies exactly 16 bytes; chunk_bytes is " + std::to_string(chunk) +
              " (use `.ca` for 4 or 8 bytes)");
    return false;
  }
  return true;
}

} // namespace apply_proof

void check_apply(const ApplyProofContext& c, const ApplyOp& a) {
  const bool direction_ok = apply_proof::check_direction(c, a);
  const bool chunk_ok = apply_proof::check_chunk_bytes(c, a);
  const std::int64_t chunk = a.chunk_bytes.value;

  apply_proof::check_operands(c, a, chunk_ok);

  if (!direction_ok || !chunk_ok)
    return;
  if (!apply_proof::check_thread_scope_dst(c, a))
    return;

  // Shapes: thread scope (*repeat, element); CTA scope (warp, lane, *repeat, element).
  const std::size_t group_axes = a.scope == Scope::cta ? 2 : 0;
  const apply_proof::ViewUse uses[2] = {{&a.dst, "dst"}, {&a.src, "src"}};
  for (const auto& u : uses)
    if (!apply_proof::check_apply_shape(c, a, u, group_axes, chunk))
      return;
  if (!apply_proof::check_apply_repeats(c, a, group_axes))
    return;
  const char* why =
      a.src_size || a.ignore_src ? " (zero fill does not relax the bounds proof)" : "";
  for (const auto& u : uses) {
    if (c.in_bounds(*u.view, u.role, group_axes, why))
      c.aligned(*u.view, u.role, group_axes, chunk);
  }
}

void check_policy_param(const Kernel& k, const std::optional<Located<CachePolicy>>& policy,
                        Diagnostics& out) {
  if (!policy)
    return;
  const auto* from = std::get_if<CachePolicyFromParam>(&policy->value);
  if (!from)
    return;
  if (auto d = policy_param_rule(k.params, from->param))
    out.add(diagnostic_at(d->id, policy->pos, std::move(d->message), text_length(*policy)));
}

} // namespace ptxgen::tile
