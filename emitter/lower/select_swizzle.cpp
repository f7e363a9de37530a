// Addresses of ordinary accesses (ld/st, cp.async) into swizzled shared tensors: the byte
// at row-major offset o of such a tensor lives at tile::swizzle_offset(o), the layout a
// swizzled tensor copy (TMA) writes and reads.

#include "emitter/lower/lowerer.hpp"

#include <numeric>

namespace ptxgen::lower::impl {

namespace {

/// floor(v / m) * m for m > 0 (a negative constant rounds down, as its bits do).
std::int64_t round_down(std::int64_t v, std::int64_t m) {
  const std::int64_t q = v / m;
  return (q * m > v ? q - 1 : q) * m;
}

/// log2 of a power of two.
int log2_of(std::int64_t v) {
  int n = 0;
  while ((std::int64_t{1} << n) < v)
    ++n;
  return n;
}

} // namespace

std::int64_t Lowerer::shared_register_alignment(const tile::Tensor& t, const Linear& l) const {
  std::int64_t a = layout_.dynamic ? std::max<std::int64_t>(layout_.align, dynamic_shared_align)
                                   : std::max<std::int64_t>(t.align, tile::min_shared_align);
  for (const auto& [atom, coeff] : l.terms)
    a = std::gcd(a, coeff < 0 ? -coeff : coeff);
  if (l.folded != 0)
    a = std::gcd(a, l.folded < 0 ? -l.folded : l.folded);
  return a;
}

Address Lowerer::access_address(const tile::Tensor& t, Register r, const Linear& l,
                                std::int64_t offset) {
  if (t.space != tile::Space::shared || t.swizzle == tile::TensorMapSwizzle::none)
    return Address{r, offset};
  const tile::SwizzleRow& mode = row_of(tile::swizzle_rows, t.swizzle);
  const std::int64_t align = shared_register_alignment(t, l);
  // The register is a whole number of periods from a period-aligned base: the offset alone
  // decides the row and chunk fields, and the swizzle folds into the immediate.
  if (align % mode.repeat_bytes == 0 && offset >= 0)
    return Address{r, tile::swizzle_offset(t.swizzle, offset)};
  // The register is a whole number of 128-byte rows: one swizzled register per row of the
  // offset, and a chunk within the row is that register XOR the chunk's offset (the row's
  // register has the chunk field of chunk 0; XOR flips it to chunk j's).
  if (align % tile::kSwizzleRowBytes == 0) {
    const std::int64_t row = round_down(offset, tile::kSwizzleRowBytes);
    const std::int64_t chunk = round_down(offset - row, tile::kSwizzleChunkBytes);
    Register at = swizzled(t, r, l, row);
    if (chunk != 0) {
      const auto key = std::make_pair(at.id, chunk);
      if (auto it = cache_.swizzled.find(key); it != cache_.swizzled.end()) {
        at = it->second;
      } else {
        const unsigned level = level_of(l);
        AtLevel lv(*this, level);
        Register x = reg(RegClass::b32);
        emit(Binary{BinaryOp::xor_, ScalarType::b32, x, at, Immediate{chunk}});
        remember(&Caches::swizzled, level, key, x);
        at = x;
      }
    }
    return Address{at, offset - row - chunk};
  }
  // Otherwise the register is only `step`-aligned within its chunk: r + offset and
  // r + round_down(offset, 16) may lie in different chunks (r = 8 mod 16, offset 8), so only
  // offsets within one `step`-aligned block share a swizzled register (an access is w-aligned,
  // w <= step, so it never leaves the block, nor the block its chunk).
  const std::int64_t step = std::gcd(align, tile::kSwizzleChunkBytes);
  const std::int64_t chunk = round_down(offset, step);
  return Address{swizzled(t, r, l, chunk), offset - chunk};
}

Register Lowerer::swizzled(const tile::Tensor& t, Register r, const Linear& l, std::int64_t add) {
  // The (row register, chunk) keys of access_address() never meet these: a row register is
  // this function's result, never an address register (ids are unique within the b32 class).
  const auto key = std::make_pair(r.id, add);
  if (auto it = cache_.swizzled.find(key); it != cache_.swizzled.end())
    return it->second;
  const unsigned level = level_of(l);
  AtLevel lv(*this, level);
  Register a = r;
  if (add != 0) {
    a = reg(RegClass::b32);
    emit(Binary{BinaryOp::add, ScalarType::u32, a, r,
                Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(add))}});
  }
  // (a >> 7) % R moved to the chunk field, bits 4..: (a >> 3) & ((R - 1) << 4), R - 1 being
  // span / 16 - 1 (the row bits the mode XORs in).
  const int shift = log2_of(tile::kSwizzleRowBytes / tile::kSwizzleChunkBytes);
  Register shifted = reg(RegClass::b32);
  emit(Binary{BinaryOp::shr, ScalarType::b32, shifted, a, Immediate{shift}});
  Register mask = reg(RegClass::b32);
  const std::int64_t span = row_of(tile::swizzle_rows, t.swizzle).span_bytes;
  emit(Binary{BinaryOp::and_, ScalarType::b32, mask, shifted,
              Immediate{span - tile::kSwizzleChunkBytes}});
  Register out = reg(RegClass::b32);
  emit(Binary{BinaryOp::xor_, ScalarType::b32, out, a, mask});
  remember(&Caches::swizzled, level, key, out);
  return out;
}

} // namespace ptxgen::lower::impl
