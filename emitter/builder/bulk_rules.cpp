// The builder's rules for the sm_90 bulk-copy family: a global tensor's map
// ([tensor.NAME.map]: a TMA descriptor, checked whole when it is declared), a shared
// tensor's swizzled layout, and the operands of the bulk and tensor ops.
#include "emitter/builder/builder.hpp"
#include "emitter/builder/text.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/im2col.hpp"
#include "emitter/tile/tensor_map.hpp"

namespace ptxgen::build {

namespace {

/// The integers of a per-dimension list as written.
std::vector<std::int64_t> values_of(const std::vector<Dim>& dims) {
  std::vector<std::int64_t> out;
  out.reserve(dims.size());
  for (const Dim& d : dims)
    out.push_back(d.value);
  return out;
}

/// Where the rule `id` of check_tensor_map is best shown: the key whose value breaks it.
const At& map_rule_at(DiagId id, const TensorDecl& d, const TensorMapDecl& m) {
  switch (id) {
  case DiagId::contract_tmap_rank:
  case DiagId::contract_tmap_box_dim:
  case DiagId::contract_tmap_box_inner_bytes:
    if (m.channels)
      return m.channels_at; // an im2col map's rows are its channels
    return m.box ? m.box_at : m.at;
  case DiagId::contract_tmap_swizzle_span:
    return m.swizzle ? m.swizzle_at : m.at;
  case DiagId::contract_tmap_element_stride:
    return m.element_strides ? m.element_strides_at : m.at;
  case DiagId::contract_tmap_global_align:
    return d.align ? d.align_at : m.at;
  case DiagId::contract_tmap_global_stride:
  case DiagId::contract_tmap_global_dim:
    return d.shape_at;
  case DiagId::contract_tmap_nan_fill:
    return m.oob_fill ? m.oob_fill_at : m.at;
  case DiagId::contract_im2col_rank: // the shape's rank, else a corner count
    return d.shape && d.shape->size() >= tile::kIm2colMinRank &&
                   d.shape->size() <= tile::kIm2colMaxRank && m.lower_corner
               ? m.lower_corner_at
               : d.shape_at;
  case DiagId::contract_im2col_corner_range:
  case DiagId::contract_im2col_box_empty:
    return m.lower_corner ? m.lower_corner_at : m.at;
  case DiagId::contract_im2col_channels:
    return m.channels ? m.channels_at : m.at;
  case DiagId::contract_im2col_pixels:
    return m.pixels ? m.pixels_at : m.at;
  default:
    return m.at;
  }
}

} // namespace

/// A shared tensor's `swizzle`: its bytes hold whole periods of the pattern, from a base
/// aligned to the period, so that every view offset swizzles inside the tensor.
bool Builder::tensor_swizzle(const TensorDecl& d, tile::Tensor& t) {
  if (!d.swizzle)
    return true;
  if (t.space != tile::Space::shared) {
    error(DiagId::spec_swizzle_layout, d.swizzle_at,
          "swizzle is only for shared tensors: a tensor map's swizzle is in its "
          "[tensor." +
              t.name + ".map] table");
    return false;
  }
  const tile::SwizzleRow& row = row_of(tile::swizzle_rows, *d.swizzle);
  if (row.repeat_bytes == 0) {
    t.swizzle = *d.swizzle;
    return true;
  }
  const std::int64_t bytes = t.size_bytes();
  if (bytes % row.repeat_bytes != 0) {
    error(DiagId::spec_swizzle_layout, d.swizzle_at,
          "a " + std::string(row.name) + "-swizzled tensor holds whole " +
              std::to_string(row.repeat_bytes) + "-byte periods of the pattern; " + quoted(t.name) +
              " has " + std::to_string(bytes) + " bytes");
    return false;
  }
  if (t.align < row.repeat_bytes) {
    error(DiagId::spec_swizzle_layout, d.align ? d.align_at : d.swizzle_at,
          "a " + std::string(row.name) + "-swizzled tensor is aligned to its " +
              std::to_string(row.repeat_bytes) +
              "-byte period (write align = " + std::to_string(row.repeat_bytes) + "); " +
              quoted(t.name) + " has align " + std::to_string(t.align));
    return false;
  }
  t.swizzle = *d.swizzle;
  return true;
}

/// `[tensor.NAME.map]`: a global tensor's TMA descriptor, every rule of check_tensor_map at
/// the key that breaks it.
bool Builder::tensor_map(const TensorDecl& d, tile::TensorDecl& decl) {
  if (!d.map)
    return true;
  const TensorMapDecl& m = *d.map;
  const tile::Tensor& t = decl.tensor;
  if (t.space != tile::Space::global) {
    error(DiagId::spec_tensor_map_space, m.at,
          "a tensor map describes a global tensor; " + quoted(t.name) + " is shared");
    return false;
  }
  if (!m.syntax_ok)
    return false;
  if (m.mode == tile::TensorMapMode::im2col)
    return im2col_map(d, decl);
  if (!im2col_keys_absent(m, t.name))
    return false;
  if (!m.box) {
    error(DiagId::spec_missing_key, m.at,
          "[tensor." + t.name +
              ".map] has no 'box': the elements a copy moves per dimension, "
              "outermost first, e.g. box = [64, 64]");
    return false;
  }
  tile::TensorMapDesc map = tile::tensor_map_of(t, values_of(*m.box));
  if (m.element_strides)
    map.element_strides = values_of(*m.element_strides);
  map.swizzle = m.swizzle.value_or(tile::TensorMapSwizzle::none);
  map.oob_fill = m.oob_fill.value_or(tile::TensorMapOobFill::zero);
  map.l2_promotion = m.l2_promotion.value_or(tile::TensorMapL2Promotion::none);
  const Diagnostics problems = tile::check_tensor_map(map);
  // A count that does not match the rank is reported at its own key, in the order
  // check_tensor_map finds them (box, then element_strides).
  std::vector<const At*> count_at;
  if (map.box_dims.size() != map.rank())
    count_at.push_back(&m.box_at);
  if (m.element_strides && map.element_strides.size() != map.rank())
    count_at.push_back(&m.element_strides_at);
  std::size_t counts = 0;
  for (const Diagnostic& p : problems.items()) {
    const bool count = p.id == DiagId::contract_tmap_rank && counts < count_at.size();
    const At& at = count ? *count_at[counts++] : map_rule_at(p.id, d, m);
    error(p.id, at, p.message);
  }
  if (problems.has_errors())
    return false;
  decl.map = std::move(map);
  decl.map_pos = {m.at.pos,         m.box_at.pos,      m.element_strides_at.pos,
                  m.swizzle_at.pos, m.oob_fill_at.pos, m.l2_promotion_at.pos};
  return true;
}

/// A tile map has none of an im2col map's keys.
bool Builder::im2col_keys_absent(const TensorMapDecl& m, const std::string& tensor) {
  const std::pair<bool, const At*> keys[] = {{m.lower_corner.has_value(), &m.lower_corner_at},
                                             {m.upper_corner.has_value(), &m.upper_corner_at},
                                             {m.channels.has_value(), &m.channels_at},
                                             {m.pixels.has_value(), &m.pixels_at}};
  for (const auto& [given, at] : keys)
    if (given) {
      error(DiagId::spec_im2col_map, *at,
            "[tensor." + tensor +
                ".map] is a tile map: lower_corner, upper_corner, channels and pixels belong "
                "to an im2col map (write mode = \"im2col\")");
      return false;
    }
  return true;
}

/// `[tensor.NAME.map]` with `mode = "im2col"`: cuTensorMapEncodeIm2col's parameters instead
/// of a box, every rule of check_tensor_map at the key that breaks it.
bool Builder::im2col_map(const TensorDecl& d, tile::TensorDecl& decl) {
  const TensorMapDecl& m = *d.map;
  const tile::Tensor& t = decl.tensor;
  const std::string table = "[tensor." + t.name + ".map]";
  if (m.box) {
    error(DiagId::spec_im2col_map, m.box_at,
          table + " is an im2col map: it has no box (channels and pixels give a copy's size)");
    return false;
  }
  const std::pair<bool, const char*> required[] = {
      {m.lower_corner.has_value(), "lower_corner (one per spatial dimension, e.g. [-1, -1])"},
      {m.upper_corner.has_value(), "upper_corner (one per spatial dimension, e.g. [-1, -1])"},
      {m.channels.has_value(), "channels (channels per pixel, e.g. 16)"},
      {m.pixels.has_value(), "pixels (pixels per copy, e.g. 64)"}};
  for (const auto& [given, what] : required)
    if (!given) {
      error(DiagId::spec_im2col_map, m.mode_at,
            table + " is an im2col map and has no " + std::string(what));
      return false;
    }
  tile::TensorMapDesc map = tile::tensor_map_of(t, {});
  map.mode = tile::TensorMapMode::im2col;
  map.element_strides = m.element_strides ? values_of(*m.element_strides)
                                          : std::vector<std::int64_t>(t.shape.size(), 1);
  map.im2col.lower_corner = values_of(*m.lower_corner);
  map.im2col.upper_corner = values_of(*m.upper_corner);
  map.im2col.channels = *m.channels;
  map.im2col.pixels = *m.pixels;
  map.swizzle = m.swizzle.value_or(tile::TensorMapSwizzle::none);
  map.oob_fill = m.oob_fill.value_or(tile::TensorMapOobFill::zero);
  map.l2_promotion = m.l2_promotion.value_or(tile::TensorMapL2Promotion::none);
  const Diagnostics problems = tile::check_tensor_map(map);
  for (const Diagnostic& p : problems.items()) {
    const bool steps = p.id == DiagId::contract_tmap_element_stride && m.element_strides;
    error(p.id, steps ? m.element_strides_at : map_rule_at(p.id, d, m), p.message);
  }
  if (problems.has_errors())
    return false;
  decl.map = std::move(map);
  decl.map_pos = {m.at.pos,         m.mode_at.pos,     m.element_strides_at.pos,
                  m.swizzle_at.pos, m.oob_fill_at.pos, m.l2_promotion_at.pos};
  return true;
}

bool Builder::bulk_space(const tile::View& v, tile::Space want, std::string_view role,
                         const At& at) {
  if (v.tensor->space == want)
    return true;
  const bool shared = want == tile::Space::shared;
  error(DiagId::spec_bulk_operand, at,
        std::string(role) + " must be a view of a " + (shared ? "shared" : "global") + " tensor; " +
            quoted(v.tensor->name) + " is " + (shared ? "global" : "shared"));
  return false;
}

const tile::TensorDecl* Builder::mapped_tensor(const Text& name) {
  const tile::TensorDecl* d = kernel_->find_tensor(name.text);
  const At at = name.at(0, name.text.size());
  if (d == nullptr) {
    if (find_any_tensor(name.text) == nullptr)
      error(DiagId::spec_tensor_map_missing, at, "unknown tensor " + quoted(name.text));
    return nullptr; // a rejected tensor: its declaration's error is enough
  }
  if (!d->map) {
    error(DiagId::spec_tensor_map_missing, at,
          "a tensor op copies through a tensor map: " + quoted(name.text) +
              (d->tensor.space == tile::Space::global
                   ? " has none (add a [tensor." + name.text + ".map] table)"
                   : " is a shared tensor (name the global tensor whose map it uses)"));
    return nullptr;
  }
  return d;
}

bool Builder::im2col_offsets(const tile::TensorDecl& d, std::optional<std::size_t> count,
                             const At& at, bool store) {
  if (!d.map)
    return false;
  const std::string of = "the map of " + quoted(d.tensor.name);
  if (store && d.map->is_im2col()) {
    error(DiagId::spec_im2col_offsets, at,
          of + " is an im2col map; tensor_store and tensor_reduce write through a tile map "
               "(ptxgen builds im2col loads only)");
    return false;
  }
  if (!d.map->is_im2col()) {
    if (!count)
      return true;
    error(DiagId::spec_im2col_offsets, at,
          "offsets are an im2col load's; " + of + " is a tile map (mode = \"tile\")");
    return false;
  }
  const std::size_t want = tile::im2col_spatial(*d.map);
  if (count == want)
    return true;
  error(DiagId::spec_im2col_offsets, at,
        of + " is an im2col map: its loads take offsets = [...], one per spatial dimension (" +
            std::to_string(want) + ", outermost first); got " +
            (count ? std::to_string(*count) : std::string("none")));
  return false;
}

bool Builder::tensor_coords(const tile::TensorDecl& d, std::size_t n, const At& at) {
  if (d.map && n == d.map->rank())
    return true;
  error(DiagId::spec_tensor_coords, at,
        "coords give one coordinate per dimension of the map of " + quoted(d.tensor.name) + ", " +
            std::to_string(d.map ? d.map->rank() : 0) + " outermost first; got " +
            std::to_string(n));
  return false;
}

bool Builder::tensormap_field(tile::TensormapField f, const At& at) {
  if (tile::modelled(f))
    return true;
  error(DiagId::spec_tensormap_field, at,
        "tensormap_replace of " + quoted(std::string(name_of(tile::tensormap_field_names, f))) +
            " is not modelled: ptxgen edits global_address, global_dim and global_stride (a "
            "grouped GEMM's edits); the other fields change the box, type or layout the "
            "contract proves the copies against");
  return false;
}

std::optional<tile::TensormapField> Builder::tensormap_field_word(const std::string& word,
                                                                  const At& at) {
  const auto& names = tile::tensormap_field_names.values;
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == word) {
      const auto f = static_cast<tile::TensormapField>(k);
      return tensormap_field(f, at) ? std::optional(f) : std::nullopt;
    }
  error(DiagId::spec_tensormap_field, at,
        "'field' must be one of: global_address, global_dim, global_stride; got " + quoted(word));
  return std::nullopt;
}

bool Builder::tensormap_operands(const tile::TensormapReplaceOp& r, const At& at) {
  const bool address = r.field == tile::TensormapField::global_address;
  if (address && !r.address) {
    missing(at, "tensormap_replace of global_address is missing 'address' (the global tensor "
                "whose base the map takes)");
    return false;
  }
  if (!address && !r.value) {
    missing(at, "tensormap_replace of " +
                    std::string(name_of(tile::tensormap_field_names, r.field)) +
                    " is missing 'value' (the new extent or stride)");
    return false;
  }
  if (address ? r.value.has_value() : r.address.has_value()) {
    error(DiagId::spec_tensormap_field, at,
          address ? "tensormap_replace of global_address takes 'address', not 'value'"
                  : "tensormap_replace of a dim or stride takes 'value', not 'address'");
    return false;
  }
  return true;
}

} // namespace ptxgen::build
