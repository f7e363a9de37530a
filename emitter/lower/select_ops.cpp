// Selection of the ops that are not loops: cp.async repeats, fills, copies,
// groups, barriers.

#include "emitter/lower/lowerer.hpp"

#include <bit>

namespace ptxgen::lower::impl {

void Lowerer::lower(const tile::ApplyOp& a) {
  const tile::View& dv = a.dst.value;
  const tile::View& sv = a.src.value;
  // Unchecked kernels may lack the group axes; bind none then.
  const std::size_t group_axes =
      a.scope == tile::Scope::cta && dv.rank() >= 3 && sv.rank() >= 3 ? 2 : 0;
  Linear dl = thread_linear(dv, group_axes);
  Linear sl = thread_linear(sv, group_axes);
  Register dreg = address(*dv.tensor, dl, a.cache_policy.has_value());
  Register sreg = address(*sv.tensor, sl);

  const std::size_t rank = dv.rank();
  // Repeat coordinates walk the axes between the group axes and the chunk axis.
  std::vector<std::pair<std::int64_t, std::int64_t>> offsets;           // (dst, src) per repeat
  std::vector<std::map<std::string, std::int64_t, std::less<>>> coords; // named axes per repeat
  const auto names = tile::repeat_axis_names(a);
  for_each_coord(dv, group_axes, rank - 1, [&](const std::vector<std::int64_t>& c, std::int64_t d) {
    std::int64_t s = 0;
    for (std::size_t i = group_axes; i + 1 < rank; ++i)
      s += c[i] * sv.axes[i].stride_bytes;
    offsets.emplace_back(d, s);
    coords.emplace_back();
    for (const auto& [name, axis] : names)
      if (axis < c.size()) // an unchecked kernel's dst may be shorter
        coords.back()[name] = c[axis];
  });
  // The operands of repeat 0 (all repeats when they name no axis), then the policy.
  auto zero_fill = zero_fill_operand(a, coords[0]);
  std::optional<std::variant<Register, Immediate>> policy;
  if (a.cache_policy)
    policy = cache_policy(a.cache_policy->value);
  RepeatGuard guard = pred_guard(a, coords[0]);
  for (std::size_t r = 0; r < offsets.size(); ++r) {
    if (r > 0) { // a repeat's own values where they name its axes (cached otherwise)
      zero_fill = zero_fill_operand(a, coords[r]);
      guard = pred_guard(a, coords[r]);
    }
    if (guard.skip)
      continue;
    CpAsync cp;
    cp.opcode = a.opcode.value;
    cp.dst = access_address(*dv.tensor, dreg, dl, dl.constant + offsets[r].first);
    cp.src = access_address(*sv.tensor, sreg, sl, sl.constant + offsets[r].second);
    cp.cp_size = static_cast<std::uint32_t>(a.chunk_bytes.value);
    cp.zero_fill = zero_fill;
    cp.cache_policy = policy;
    emit(cp, guard.guard, offsets.size() > 1 ? "repeat " + std::to_string(r) : std::string{});
  }
}

std::variant<std::monostate, SrcSize, IgnoreSrc> Lowerer::zero_fill_operand(const tile::ApplyOp& a,
                                                                            const Coords& c) {
  if (a.src_size) {
    Operand v = value(tile::substitute_axes(bind(a.src_size->value), c));
    if (const auto* imm = std::get_if<Immediate>(&v))
      return SrcSize{static_cast<std::uint32_t>(imm->value)};
    return SrcSize{std::get<Register>(v)};
  }
  if (a.ignore_src) {
    ExprPtr e = truth_for(a.ignore_src->value, c);
    if (auto k = tile::constant_value(*e); k && e != a.ignore_src->value) {
      if (*k == 0)
        return std::monostate{};
      return SrcSize{std::uint32_t{0}};
    }
    Guard g = predicate(e);
    return IgnoreSrc{g.predicate, g.negated};
  }
  return std::monostate{};
}

ExprPtr Lowerer::truth_for(const ExprPtr& e, const Coords& c) const {
  ExprPtr s = tile::substitute_axes(bind(e), c);
  return s == e ? e : tile::fold_truth(s);
}

Lowerer::RepeatGuard Lowerer::pred_guard(const tile::ApplyOp& a, const Coords& c) {
  if (!a.pred)
    return {};
  ExprPtr p = truth_for(a.pred->value, c);
  auto k = tile::constant_value(*p);
  if (k && *k != 0)
    return {};
  if (k && p != a.pred->value)
    return {true, std::nullopt};
  return {false, predicate(p)};
}

std::variant<Register, Immediate> Lowerer::cache_policy(const tile::CachePolicy& p) {
  if (const auto* from = std::get_if<tile::CachePolicyFromParam>(&p)) {
    PolicyKey key = from->param;
    if (auto it = cache_.policy.find(key); it != cache_.policy.end())
      return it->second;
    AtLevel at(*this, 0);
    Register r = reg(RegClass::b64);
    emit(
        Ld{StateSpace::param, ScalarType::u64, {r}, Address{Symbol{param_symbol(from->param)}, 0}});
    remember(&Caches::policy, 0, key, r);
    return r;
  }
  const auto& c = std::get<tile::CachePolicyCreate>(p);
  PolicyKey key = CreatePolicyKey{c.primary, c.secondary, std::bit_cast<std::uint32_t>(c.fraction)};
  if (auto it = cache_.policy.find(key); it != cache_.policy.end())
    return it->second;
  AtLevel at(*this, 0);
  Register r = reg(RegClass::b64);
  emit(CreatePolicyFractional{r, c.primary, c.secondary, c.fraction});
  remember(&Caches::policy, 0, key, r);
  return r;
}

Address Lowerer::barrier_address(const tile::Located<tile::View>& b) {
  const tile::View& v = b.value;
  Linear l = thread_linear(v, 0);
  Register base = address(*v.tensor, l);
  return Address{base, l.constant};
}

void Lowerer::lower(const tile::MbarrierInitOp& m) {
  const Address a = barrier_address(m.barrier);
  const Guard first = predicate(
      tile::make_binary(ExprOp::eq, tile::make_leaf(ExprKind::tid), tile::make_constant(0)));
  emit(MbarrierInit{SharedSpace::shared, a, Immediate{m.count.value}}, first);
}

void Lowerer::lower(const tile::CopyArriveOp& m) {
  emit(CpAsyncMbarrierArrive{m.noinc, SharedSpace::shared, barrier_address(m.barrier)});
}

void Lowerer::lower(const tile::MbarrierArriveOp& m) {
  const Address a = barrier_address(m.barrier);
  std::optional<Guard> g;
  if (m.pred)
    g = predicate(bind(m.pred->value));
  if (m.barrier.value.peer) {
    // A peer's barrier (B@rank): mapa of the CTA's own address, then the cluster-scope
    // arrival, which releases the thread's earlier accesses to the peer that waits.
    PeerSide side = peer_side(m.barrier.value);
    emit(MbarrierArriveRemote{peer_address(side, a, g)}, g);
    return;
  }
  emit(MbarrierArrive{SharedSpace::shared, std::nullopt, a}, g);
}

void Lowerer::lower(const tile::MbarrierWaitOp& m) {
  const Address a = barrier_address(m.barrier);
  const Operand parity = value(bind(m.parity.value));
  const MbarrierWaitKind kind = o_.target.sm >= info(Feature::mbarrier_try_wait_parity).min_sm
                                    ? MbarrierWaitKind::try_
                                    : MbarrierWaitKind::test;
  const std::string head = "$L_mbw_" + std::to_string(waits_emitted_++);
  // A thread whose pred fails branches over the spin loop: the wait is the elected
  // threads' alone (a ring's producer waiting for a free slot).
  std::optional<std::string> skip;
  if (m.pred) {
    Guard g = predicate(bind(m.pred->value));
    g.negated = !g.negated;
    skip = head + "_skip";
    emit(Bra{*skip, false}, g);
  }
  emit(Label{head});
  const Register done = reg(RegClass::pred);
  emit(MbarrierWait{kind, true, SharedSpace::shared, done, a, parity});
  emit(Bra{head, false}, Guard{done, true});
  if (skip)
    emit(Label{*skip});
}

StateSpace Lowerer::space_of(const tile::Tensor& t) {
  return t.space == tile::Space::global ? StateSpace::global : StateSpace::shared;
}

std::int64_t Lowerer::widest(std::int64_t off, std::int64_t run, std::int64_t align) {
  for (std::int64_t w : {16, 8, 4, 2}) {
    if (w <= run && w <= align && ((off % w) + w) % w == 0)
      return w;
  }
  return 1;
}

void Lowerer::lower(const tile::FillOp& f) {
  const tile::View& v = f.dst.value;
  Linear l = thread_linear(v, 0);
  Register base = address(*v.tensor, l);
  const std::int64_t align = register_alignment(*v.tensor, l);
  const std::int64_t elem = tile::size_bytes(v.dtype);
  PeerSide side = peer_side(v);
  // Byte k of the view (row-major, element by element) gets pattern[k % size].
  std::map<std::int64_t, std::uint8_t> bytes;
  std::int64_t k = 0;
  for_each_coord(v, 0, v.rank(), [&](const std::vector<std::int64_t>&, std::int64_t off) {
    for (std::int64_t b = 0; b < elem; ++b, ++k)
      bytes.emplace(l.constant + off + b,
                    f.pattern[static_cast<std::size_t>(k) % f.pattern.size()]);
  });
  for (auto it = bytes.begin(); it != bytes.end();) {
    std::int64_t start = it->first;
    std::int64_t run = 0;
    for (auto j = it; j != bytes.end() && j->first == start + run; ++j)
      ++run;
    std::int64_t w = widest(start, run, align);
    std::vector<std::uint8_t> chunk;
    for (std::int64_t b = 0; b < w; ++b, ++it)
      chunk.push_back(it->second);
    store_constant(space_of(side), peer_address(side, access_address(*v.tensor, base, l, start)),
                   chunk);
  }
}

void Lowerer::store_constant(StateSpace space, Address addr,
                             const std::vector<std::uint8_t>& bytes) {
  auto word = [&](std::size_t at, std::size_t n) {
    std::uint64_t x = 0;
    for (std::size_t i = 0; i < n; ++i)
      x |= std::uint64_t{bytes[at + i]} << (8 * i);
    return static_cast<std::int64_t>(x);
  };
  const std::size_t n = bytes.size();
  St st;
  st.space = space;
  st.address = addr;
  if (n >= 8) {
    st.type = ScalarType::u32;
    st.src = std::vector<Operand>(n / 4);
    for (std::size_t i = 0; i < n; i += 4)
      st.src[i / 4] = Immediate{word(i, 4)};
  } else {
    st.type = n == 4 ? ScalarType::u32 : n == 2 ? ScalarType::u16 : ScalarType::u8;
    st.src = {Immediate{word(0, n)}};
  }
  emit(st);
}

void Lowerer::lower(const tile::CopyOp& c) {
  const RepeatGuard g = op_guard(c.pred);
  if (g.skip)
    return;
  if (!g.guard) {
    copy_all(c);
    return;
  }
  // A thread whose pred fails branches over the copy and the computation of its addresses (a
  // ring's consumer warps copy, its producer warp does not). The values computed in the
  // branch exist only where it was taken (rejoin()).
  Guard skip = *g.guard;
  skip.negated = !skip.negated;
  const std::string label = "$L_cp_" + std::to_string(branches_emitted_++);
  emit(Bra{label, false}, skip);
  Caches before = cache_;
  copy_all(c);
  emit(Label{label});
  rejoin(std::move(before));
}

void Lowerer::copy_all(const tile::CopyOp& c) {
  const tile::View& dv = c.dst.value;
  const tile::View& sv = c.src.value;
  Linear dl = thread_linear(dv, 0);
  Linear sl = thread_linear(sv, 0);
  Register dreg = address(*dv.tensor, dl);
  Register sreg = address(*sv.tensor, sl);
  const std::int64_t dalign = register_alignment(*dv.tensor, dl);
  const std::int64_t salign = register_alignment(*sv.tensor, sl);
  const std::int64_t elem = tile::size_bytes(dv.dtype);
  PeerSide dside = peer_side(dv);
  PeerSide sside = peer_side(sv);
  // (dst byte offset -> src byte offset) for every byte, in dst order.
  std::map<std::int64_t, std::int64_t> pairs;
  for_each_coord(dv, 0, dv.rank(), [&](const std::vector<std::int64_t>& coord, std::int64_t d) {
    std::int64_t s = 0;
    for (std::size_t i = 0; i < coord.size(); ++i)
      s += coord[i] * sv.axes[i].stride_bytes;
    for (std::int64_t b = 0; b < elem; ++b)
      pairs.emplace(dl.constant + d + b, sl.constant + s + b);
  });
  for (auto it = pairs.begin(); it != pairs.end();) {
    const std::int64_t d0 = it->first;
    const std::int64_t s0 = it->second;
    std::int64_t run = 0;
    for (auto j = it; j != pairs.end() && j->first == d0 + run && j->second == s0 + run; ++j)
      ++run;
    std::int64_t w = std::min(widest(d0, run, dalign), widest(s0, run, salign));
    copy_chunk(space_of(dside), peer_address(dside, access_address(*dv.tensor, dreg, dl, d0)),
               space_of(sside), peer_address(sside, access_address(*sv.tensor, sreg, sl, s0)), w);
    std::advance(it, w);
  }
}

void Lowerer::copy_chunk(StateSpace dspace, Address dst, StateSpace sspace, Address src,
                         std::int64_t w) {
  Ld ld;
  ld.space = sspace;
  ld.address = src;
  St st;
  st.space = dspace;
  st.address = dst;
  if (w >= 4) {
    ld.type = st.type = ScalarType::b32;
    for (std::int64_t i = 0; i < w / 4; ++i)
      ld.dst.push_back(reg(RegClass::b32));
  } else {
    ld.type = st.type = w == 2 ? ScalarType::b16 : ScalarType::b8;
    ld.dst.push_back(reg(RegClass::b16));
  }
  st.src.assign(ld.dst.begin(), ld.dst.end());
  emit(ld);
  emit(st);
}

} // namespace ptxgen::lower::impl
