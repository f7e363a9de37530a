// Selection of the cluster specials that are not one special register: the linear cluster_id
// of a grid of clusters with more than one cluster along y or z.

#include "emitter/lower/lowerer.hpp"

namespace ptxgen::lower::impl {

std::optional<Register> Lowerer::linear_cluster_id(const ExprPtr& e) {
  const tile::Dim3 g = k_.grid_dim.or_x(k_.grid);
  const tile::Dim3 c = k_.cluster_dim();
  const tile::Dim3 q{g.x / c.x, g.y / c.y, g.z / c.z}; // the grid of clusters
  if (q.y == 1 && q.z == 1)
    return std::nullopt;
  AtLevel at(*this, 0); // a launch value: before every loop
  const auto read = [&](SpecialRegister s) {
    Register r = reg(RegClass::b32);
    emit(Mov{ScalarType::u32, r, s});
    return r;
  };
  Register r = read(SpecialRegister::clusterid_y);
  if (q.z > 1) {
    Register yz = reg(RegClass::b32);
    emit(Mad{false, ScalarType::u32, yz, read(SpecialRegister::clusterid_z), Immediate{q.y}, r});
    r = yz;
  }
  Register out = reg(RegClass::b32);
  emit(Mad{false, ScalarType::u32, out, r, Immediate{q.x}, read(SpecialRegister::clusterid_x)});
  remember(&Caches::value, 0, e, out);
  return out;
}

Lowerer::PeerSide Lowerer::peer_side(const tile::View& v) {
  PeerSide p;
  p.view = &v;
  if (v.peer)
    p.rank = value(bind(v.peer));
  return p;
}

StateSpace Lowerer::space_of(const PeerSide& p) {
  return p.rank ? StateSpace::shared_cluster : space_of(*p.view->tensor);
}

Address Lowerer::peer_address(PeerSide& p, Address a, const std::optional<Guard>& guard) {
  if (!p.rank)
    return a;
  const Register* base = std::get_if<Register>(&a.base);
  if (base == nullptr)
    return a; // a symbol: not what a shared view's address is (address() gives registers)
  // mapa maps the base; the immediate offset stays (the peer's window is contiguous).
  auto [it, fresh] = p.mapped.try_emplace(base->id);
  if (fresh) {
    it->second = reg(RegClass::b32);
    emit(Mapa{it->second, *base, *p.rank}, guard);
  }
  return Address{it->second, a.offset};
}

} // namespace ptxgen::lower::impl
