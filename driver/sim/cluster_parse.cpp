// The simulator's PTX parser: the qualifiers of the cluster instructions, barrier.cluster.arrive /
// wait and mapa (their semantics: cta_cluster.cpp).

#include "driver/sim/parser_impl.hpp"
#include "emitter/ptx/opcode_words.hpp"
#include "emitter/ptx/qualifier.hpp"
#include "emitter/ptx/types.hpp"
#include "emitter/support/unreachable.hpp"

namespace ptxgen::sim::detail {

void Parser::cluster_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  switch (f.quals) {
  case Quals::cluster_barrier: { // arrive{.relaxed|.release}{.aligned}, wait{.acquire}{.aligned}
    const bool arrive = op.code == ir::Code::cluster_arrive;
    bool sem = false, aligned = false;
    for (const ptx::OpcodeWord& q : quals) {
      const bool arrive_sem =
          q.qualifier == ptx::Qualifier::relaxed || q.qualifier == ptx::Qualifier::release;
      if (!sem && !aligned && (arrive ? arrive_sem : q.qualifier == ptx::Qualifier::acquire)) {
        sem = true;
        op.relaxed = q.qualifier == ptx::Qualifier::relaxed;
      } else if (!aligned && q.qualifier == ptx::Qualifier::aligned) {
        aligned = true;
      } else {
        fail(DiagId::sim_qualifier, opc,
             arrive ? "expected barrier.cluster.arrive{.relaxed|.release}{.aligned}"
                    : "expected barrier.cluster.wait{.acquire}{.aligned}");
      }
    }
    break;
  }
  case Quals::mapa: { // {.shared::cluster}.type
    std::size_t k = 0;
    op.space = ir::Space::generic;
    if (!quals.empty() && quals[0].qualifier == ptx::Qualifier::shared_cluster) {
      op.space = ir::Space::shared;
      op.cluster = true;
      ++k;
    }
    if (quals.size() != k + 1)
      fail(DiagId::sim_qualifier, opc, "expected mapa{.shared::cluster}.u32 or .u64");
    d.type = checked_type(f, opc, quals[k].text);
    if (op.space == ir::Space::generic && d.type.t.bits != 64)
      fail(DiagId::sim_qualifier, opc, "a generic mapa takes .u64 (a 64-bit generic address)");
    op.type = d.type.t;
    break;
  }
  default:
    unreachable("cluster_qualifiers(): not a cluster grammar");
  }
}

} // namespace ptxgen::sim::detail
