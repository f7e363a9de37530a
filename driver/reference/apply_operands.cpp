#include "driver/reference/apply_operands.hpp"

#include <algorithm>

namespace ptxgen::driver::evaluation {

std::array<const std::optional<tile::Located<tile::ExprPtr>>*, 3> operands(const tile::ApplyOp& a) {
  return {&a.pred, &a.ignore_src, &a.src_size};
}

std::array<NaiveDependence, 3> operand_dependence(const tile::ApplyOp& a) {
  std::array<NaiveDependence, 3> deps;
  const auto xs = operands(a);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (*xs[i] && (*xs[i])->value) {
      deps[i] = naive_dependence(*(*xs[i])->value);
    }
  }
  return deps;
}

void known_operands(const tile::ApplyOp& a, const std::array<NaiveDependence, 3>& deps,
                    const tile::ExprEnv& e, bool per_thread,
                    std::array<std::optional<std::int64_t>, 3>& known) {
  const auto xs = operands(a);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const auto& x = *xs[i];
    if (!x || !x->value) {
      continue;
    }
    const NaiveDependence& d = deps[i];
    if (!d.axis && d.thread == per_thread) {
      known[i] = naive_evaluate(*x->value, e);
    }
  }
}

ChunkRead chunk_read(const tile::ApplyOp& a, const tile::ExprEnv& e,
                     const std::array<std::optional<std::int64_t>, 3>& known) {
  using W = ChunkRead::What;
  const auto xs = operands(a);
  auto value = [&](std::size_t i) -> std::optional<std::int64_t> {
    if (known[i]) {
      return known[i];
    }
    const auto& x = *xs[i];
    return x->value ? naive_evaluate(*x->value, e) : std::nullopt;
  };
  const std::int64_t chunk = a.chunk_bytes.value;
  if (a.pred) {
    const auto p = value(0);
    if (!p) {
      return {W::no_value, 0, 0};
    }
    if (*p == 0) {
      return {W::none};
    }
  }
  std::int64_t read_bytes = chunk;
  if (a.ignore_src) {
    const auto v = value(1);
    if (!v) {
      return {W::no_value, 0, 1};
    }
    if (*v != 0) {
      read_bytes = 0;
    }
  }
  if (a.src_size) {
    const auto v = value(2);
    if (!v) {
      return {W::no_value, 0, 2};
    }
    if (*v < 0 || *v > chunk) {
      return {W::range, *v, 2};
    }
    read_bytes = std::min(read_bytes, *v);
  }
  return {W::copy, read_bytes};
}

bool per_chunk(const tile::ApplyOp& a, const std::array<std::optional<std::int64_t>, 3>& known) {
  const auto xs = operands(a);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (*xs[i] && !known[i]) {
      return true;
    }
  }
  return false;
}

std::optional<ChunkRead> thread_read(const tile::ApplyOp& a, const tile::ExprEnv& e,
                                     const std::array<std::optional<std::int64_t>, 3>& known) {
  if (per_chunk(a, known)) {
    return std::nullopt;
  }
  return chunk_read(a, e, known);
}

std::string misfit(const tile::ApplyOp& a, const NaivePlan& dp, const NaivePlan& sp) {
  const auto& ds = dp.shape();
  const auto& ss = sp.shape();
  const std::int64_t chunk = a.chunk_bytes.value;
  const std::size_t groups = a.scope == tile::Scope::cta ? 2 : 0; // (warp, lane) axes
  if (ds.size() != ss.size()) {
    return "dst has rank " + std::to_string(ds.size()) + ", src rank " + std::to_string(ss.size());
  }
  if (ds.size() < groups + 1) {
    return "expected at least " + std::to_string(groups + 1) + " axes, got " +
           std::to_string(ds.size());
  }
  if (chunk <= 0 || ds.back() * dp.element_bytes() != chunk ||
      ss.back() * sp.element_bytes() != chunk) {
    return "the last axis must hold chunk_bytes = " + std::to_string(chunk) +
           " bytes on both sides; dst holds " + std::to_string(ds.back() * dp.element_bytes()) +
           ", src " + std::to_string(ss.back() * sp.element_bytes());
  }
  for (std::size_t i = 0; i + 1 < ds.size(); ++i) {
    if (ds[i] != ss[i]) {
      return "axis " + std::to_string(i) + " has size " + std::to_string(ds[i]) + " in dst, " +
             std::to_string(ss[i]) + " in src";
    }
  }
  return {};
}

bool uses_thread(const tile::ApplyOp& a, const std::array<NaiveDependence, 3>& deps) {
  const auto xs = operands(a);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (*xs[i] && deps[i].thread) {
      return true;
    }
  }
  return false;
}

} // namespace ptxgen::driver::evaluation
