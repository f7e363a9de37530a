// The Python module `ptxgen`, the sm_90 bulk-copy family (docs/python.md): tensor maps,
// bulk and tensor copies, their groups, fences and transaction counts, and the PTX
// parameter order, over the C++ API's KernelBuilder with the Python caller's positions.

#include "python/bindings.hpp"

#include <vector>

#include <pybind11/stl.h>

namespace ptxgen::python {

namespace {

/// An enum from its spelling in a spec ("128B", "nan"); a ValueError naming the choices.
template <class E, class Table, class Name>
E spelled(const Table& table, Name name, const std::string& what, const std::string& text) {
  std::string choices;
  for (std::size_t i = 0; i < table.values.size(); ++i) {
    const std::string_view n = name(table.values[i]);
    if (n == text)
      return static_cast<E>(i);
    choices += (i ? ", '" : "'") + std::string(n) + "'";
  }
  throw ArgumentError(what + " is one of " + choices + ", not '" + text + "'");
}

std::string_view name_of(std::string_view s) {
  return s;
}

api::TensorMap tensor_map(std::optional<std::vector<std::int64_t>> box,
                          std::optional<std::vector<std::int64_t>> element_strides,
                          const std::string& swizzle, const std::string& oob_fill,
                          const std::string& l2_promotion, const std::string& mode,
                          std::optional<std::vector<std::int64_t>> lower_corner,
                          std::optional<std::vector<std::int64_t>> upper_corner,
                          std::optional<std::int64_t> channels,
                          std::optional<std::int64_t> pixels) {
  api::TensorMap m;
  m.box = box.value_or(std::vector<std::int64_t>{});
  m.mode = spelled<tile::TensorMapMode>(tile::tensor_map_mode_names, name_of, "mode", mode);
  m.lower_corner = lower_corner.value_or(std::vector<std::int64_t>{});
  m.upper_corner = upper_corner.value_or(std::vector<std::int64_t>{});
  m.channels = channels.value_or(0);
  m.pixels = pixels.value_or(0);
  m.element_strides = element_strides.value_or(std::vector<std::int64_t>{});
  m.swizzle = swizzle_of(swizzle);
  m.oob_fill = spelled<api::TensorMapOobFill>(tile::oob_fill_names, name_of, "oob_fill", oob_fill);
  m.l2_promotion = spelled<api::TensorMapL2Promotion>(tile::l2_promotion_names, name_of,
                                                      "l2_promotion", l2_promotion);
  return m;
}

api::BulkOptions bulk_options(const std::optional<IntoExpr>& pred,
                              const std::optional<CachePolicy>& policy,
                              const std::optional<IntoExpr>& multicast = std::nullopt) {
  api::BulkOptions o;
  o.pred = opt_expr_of(pred, "pred");
  o.multicast = opt_expr_of(multicast, "multicast");
  if (policy)
    o.cache_policy = policy->policy;
  return o;
}

/// A tensor copy's coordinates: a sequence of Exprs or ints.
std::vector<api::Expr> coords_of(const Coords& arg, const std::string& what = "coords") {
  const py::object& coords = arg.obj;
  if (!py::isinstance<py::sequence>(coords) || py::isinstance<py::str>(coords))
    throw ArgumentTypeError(what + " takes a tuple of ptxgen.Expr or int, not " +
                            type_name(coords));
  std::vector<api::Expr> out;
  const auto items = py::reinterpret_borrow<py::sequence>(coords);
  for (std::size_t i = 0; i < items.size(); ++i)
    out.push_back(expr_of(items[i], what + "[" + std::to_string(i) + "]"));
  return out;
}

/// A keyword's word: one of `names`, or ArgumentError naming them.
template <typename Names>
auto word_of(const Names& names, const std::string& key, const std::string& word) {
  const auto value = parse_name(names, word);
  if (!value) {
    std::string choices;
    for (std::string_view n : names.values)
      choices += (choices.empty() ? "'" : ", '") + std::string(n) + "'";
    throw ArgumentError(key + " is one of " + choices + ", not '" + word + "'");
  }
  return *value;
}

/// A `reduce=` word: one of tile::reduce_kind_names.
tile::ReduceKind reduce_kind_of(const std::string& reduce) {
  return word_of(tile::reduce_kind_names, "reduce", reduce);
}

void bind_copies(py::class_<PyKernel>& k) {
  k.def(
       "bulk_load",
       [](PyKernel& self, const api::View& dst, const api::View& src,
          std::optional<api::View> barrier, const std::optional<IntoExpr>& pred,
          std::optional<CachePolicy> cache_policy, const std::optional<IntoExpr>& multicast) {
         const api::BulkOptions o = bulk_options(pred, cache_policy, multicast);
         if (barrier)
           self.builder().bulk_load(dst, src, *barrier, o, caller_pos());
         else
           self.builder().bulk_load(dst, src, o, caller_pos());
       },
       py::arg("dst"), py::arg("src"), py::arg("barrier") = py::none(),
       py::arg("pred") = py::none(), py::arg("cache_policy") = py::none(),
       py::arg("multicast") = py::none(),
       "cp.async.bulk of global src into shared dst, completing on barrier (left out in a "
       "ring pipeline's loads).")
      .def(
          "bulk_store",
          [](PyKernel& self, const api::View& dst, const api::View& src,
             const std::optional<IntoExpr>& pred, std::optional<CachePolicy> cache_policy) {
            self.builder().bulk_store(dst, src, bulk_options(pred, cache_policy), caller_pos());
          },
          py::arg("dst"), py::arg("src"), py::arg("pred") = py::none(),
          py::arg("cache_policy") = py::none(),
          "cp.async.bulk of shared src to global dst, joining the thread's bulk group.")
      .def(
          "bulk_reduce",
          [](PyKernel& self, const api::View& dst, const api::View& src, const std::string& reduce,
             const std::optional<IntoExpr>& pred, std::optional<CachePolicy> cache_policy) {
            self.builder().bulk_reduce(dst, src, reduce_kind_of(reduce),
                                       bulk_options(pred, cache_policy), caller_pos());
          },
          py::arg("dst"), py::arg("src"), py::arg("reduce"), py::arg("pred") = py::none(),
          py::arg("cache_policy") = py::none(),
          "cp.reduce.async.bulk of shared src into global dst, element by element with "
          "`reduce` (add, min, max, inc, dec, and, or, xor), joining the thread's bulk group.")
      .def(
          "bulk_copy_peer",
          [](PyKernel& self, const api::View& dst, const api::View& src, const api::View& barrier,
             const std::optional<IntoExpr>& pred) {
            self.builder().bulk_copy_peer(dst, src, barrier, opt_expr_of(pred, "pred"),
                                          caller_pos());
          },
          py::arg("dst"), py::arg("src"), py::arg("barrier"), py::arg("pred") = py::none(),
          "cp.async.bulk of the CTA's shared src into a peer's shared dst (S@rank), "
          "completing on that peer's barrier (B@rank).")
      .def(
          "bulk_wait",
          [](PyKernel& self, const Int& n, bool read) {
            self.builder().bulk_wait(int_of(n, "bulk_wait's n"), read, caller_pos());
          },
          py::arg("n"), py::arg("read") = false,
          "cp.async.bulk.wait_group{.read} n: at most n bulk groups stay pending.")
      .def(
          "expect_tx",
          [](PyKernel& self, const api::View& barrier, const IntoExpr& bytes, bool arrive,
             const std::optional<IntoExpr>& pred) {
            api::ExpectTxOptions o;
            o.arrive = arrive;
            o.pred = opt_expr_of(pred, "pred");
            self.builder().expect_tx(barrier, expr_of(bytes, "bytes"), o, caller_pos());
          },
          py::arg("barrier"), py::arg("bytes"), py::arg("arrive") = true,
          py::arg("pred") = py::none(),
          "Adds bytes to the transaction count barrier's phase waits for (arrive: "
          "mbarrier.arrive.expect_tx).");
}

void bind_tensor_copies(py::class_<PyKernel>& k) {
  k.def(
       "tensor_load",
       [](PyKernel& self, const api::View& tensor, const Coords& coords, const api::View& dst,
          std::optional<api::View> barrier, const std::optional<IntoExpr>& pred,
          std::optional<CachePolicy> cache_policy, const std::optional<IntoExpr>& multicast,
          const std::optional<Coords>& offsets, std::optional<api::View> map) {
         api::BulkOptions o = bulk_options(pred, cache_policy, multicast);
         if (offsets)
           o.offsets = coords_of(*offsets, "offsets");
         o.map = std::move(map);
         if (barrier)
           self.builder().tensor_load(tensor, coords_of(coords), dst, *barrier, o, caller_pos());
         else
           self.builder().tensor_load(tensor, coords_of(coords), dst, o, caller_pos());
       },
       py::arg("tensor"), py::arg("coords"), py::arg("dst"), py::arg("barrier") = py::none(),
       py::arg("pred") = py::none(), py::arg("cache_policy") = py::none(),
       py::arg("multicast") = py::none(), py::arg("offsets") = py::none(),
       py::arg("map") = py::none(),
       "The box of tensor's map at coords (outermost first) into shared dst, completing on "
       "barrier (left out in a ring pipeline's loads); an im2col map's load takes offsets, one "
       "per spatial dimension; map: a global slot holding the map (tensormap_copy) instead of "
       "tensor's parameter.")
      .def(
          "tensor_store",
          [](PyKernel& self, const api::View& tensor, const Coords& coords, const api::View& src,
             const std::optional<IntoExpr>& pred, std::optional<CachePolicy> cache_policy,
             std::optional<api::View> map) {
            api::BulkOptions o = bulk_options(pred, cache_policy);
            o.map = std::move(map);
            self.builder().tensor_store(tensor, coords_of(coords), src, o, caller_pos());
          },
          py::arg("tensor"), py::arg("coords"), py::arg("src"), py::arg("pred") = py::none(),
          py::arg("cache_policy") = py::none(), py::arg("map") = py::none(),
          "Shared src to the box of tensor's map at coords, joining the thread's bulk group "
          "(map: as tensor_load's).")
      .def(
          "tensor_reduce",
          [](PyKernel& self, const api::View& tensor, const Coords& coords, const api::View& src,
             const std::string& reduce, const std::optional<IntoExpr>& pred,
             std::optional<CachePolicy> cache_policy) {
            self.builder().tensor_reduce(tensor, coords_of(coords), src, reduce_kind_of(reduce),
                                         bulk_options(pred, cache_policy), caller_pos());
          },
          py::arg("tensor"), py::arg("coords"), py::arg("src"), py::arg("reduce"),
          py::arg("pred") = py::none(), py::arg("cache_policy") = py::none(),
          "cp.reduce.async.bulk.tensor of shared src into the box of tensor's map at coords, "
          "element by element with `reduce` (add, min, max, inc, dec, and, or, xor) in the map's "
          "dtype, joining the thread's bulk group.")
      .def(
          "prefetch_tensormap",
          [](PyKernel& self, const api::View& tensor, const std::optional<IntoExpr>& pred) {
            self.builder().prefetch_tensormap(tensor, opt_expr_of(pred, "pred"), caller_pos());
          },
          py::arg("tensor"), py::arg("pred") = py::none(),
          "prefetch.tensormap of tensor's map (its generic address): a hint that brings the "
          "128-byte map into the cache before its first copy.")
      .def(
          "abi",
          [](PyKernel& self, const std::vector<std::string>& names) {
            self.builder().abi(names, caller_pos());
          },
          py::arg("names"),
          "The PTX parameter order: every global tensor and parameter once, a map as 'A.map'.");
}

/// tensormap_copy, tensormap_replace, tensormap_fence: tensor maps edited on the device.
void bind_tensormaps(py::class_<PyKernel>& k) {
  k.def(
       "tensormap_copy",
       [](PyKernel& self, const api::View& tensor, const api::View& dst,
          std::optional<api::View> src, const std::optional<IntoExpr>& pred) {
         api::TensormapCopyOptions o;
         o.src = std::move(src);
         o.pred = opt_expr_of(pred, "pred");
         self.builder().tensormap_copy(tensor, dst, o, caller_pos());
       },
       py::arg("tensor"), py::arg("dst"), py::arg("src") = py::none(), py::arg("pred") = py::none(),
       "Copies tensor's map into dst (128 bytes of global or shared memory): from the map "
       "parameter with ld.param/st, or with src (a shared slot) by tensormap.cp_fenceproxy into "
       "a global dst, fenced for the tensormap proxy.")
      .def(
          "tensormap_replace",
          [](PyKernel& self, const api::View& tensor, const api::View& map,
             const std::string& field, const Int& dim, const std::optional<IntoExpr>& value,
             std::optional<api::View> address, const std::optional<IntoExpr>& pred) {
            const auto f = word_of(tile::tensormap_field_names, "field", field);
            if (f == tile::TensormapField::global_address) {
              if (!address || value)
                throw ArgumentError("field 'global_address' takes address (a global tensor), "
                                    "not value");
              self.builder().tensormap_replace_address(tensor, map, *address,
                                                       opt_expr_of(pred, "pred"), caller_pos());
              return;
            }
            if (!value || address)
              throw ArgumentError("field '" + field + "' takes value, not address");
            self.builder().tensormap_replace(tensor, map, f, int_of(dim, "dim"),
                                             expr_of(*value, "value"), opt_expr_of(pred, "pred"),
                                             caller_pos());
          },
          py::arg("tensor"), py::arg("map"), py::arg("field"), py::arg("dim") = 0,
          py::arg("value") = py::none(), py::arg("address") = py::none(),
          py::arg("pred") = py::none(),
          "tensormap.replace.tile.FIELD of tensor's map at `map` (global or shared): "
          "global_address (the base of tensor `address`), or global_dim / global_stride `dim` "
          "(outermost first) to `value`.")
      .def(
          "tensormap_fence",
          [](PyKernel& self, const api::View& map, const std::string& sem,
             const std::optional<IntoExpr>& pred) {
            self.builder().tensormap_fence(map, word_of(tile::tensormap_sem_names, "sem", sem),
                                           opt_expr_of(pred, "pred"), caller_pos());
          },
          py::arg("map"), py::arg("sem"), py::arg("pred") = py::none(),
          "fence.proxy.tensormap::generic: release (the thread's edits of the map) or acquire "
          "[map], 128 (before the thread's copies through it).");
}

std::string ints(const std::vector<std::int64_t>& v) {
  std::string out = "(";
  for (std::size_t i = 0; i < v.size(); ++i)
    out += (i ? ", " : "") + std::to_string(v[i]);
  return out + (v.size() == 1 ? ",)" : ")");
}

std::string map_repr(const api::TensorMap& t) {
  std::string out = "ptxgen.TensorMap(box=" + ints(t.box);
  if (t.mode == tile::TensorMapMode::im2col)
    out = "ptxgen.TensorMap(mode='im2col', lower_corner=" + ints(t.lower_corner) +
          ", upper_corner=" + ints(t.upper_corner) + ", channels=" + std::to_string(t.channels) +
          ", pixels=" + std::to_string(t.pixels);
  if (!t.element_strides.empty())
    out += ", element_strides=" + ints(t.element_strides);
  return out + ", swizzle='" + std::string(tile::name(t.swizzle)) + "', oob_fill='" +
         std::string(tile::name(t.oob_fill)) + "', l2_promotion='" +
         std::string(tile::name(t.l2_promotion)) + "')";
}

} // namespace

api::TensorMapSwizzle swizzle_of(const std::string& text) {
  return spelled<api::TensorMapSwizzle>(
      tile::swizzle_rows, [](const tile::SwizzleRow& r) { return r.name; }, "swizzle", text);
}

std::optional<api::TensorMap> map_of(const MapArg& arg) {
  const py::object& map = arg.obj;
  if (map.is_none())
    return std::nullopt;
  if (py::isinstance<py::dict>(map))
    return py::type::of<api::TensorMap>()(**map).cast<api::TensorMap>();
  if (!py::isinstance<api::TensorMap>(map))
    throw ArgumentTypeError("map takes a ptxgen.TensorMap or a dict of its keywords, not " +
                            type_name(map));
  return map.cast<api::TensorMap>();
}

void bind_bulk(py::module_& m, py::class_<PyKernel>& k) {
  py::class_<api::TensorMap>(m, "TensorMap",
                             "A global tensor's TMA descriptor (a spec's [tensor.NAME.map]).")
      .def(py::init(&tensor_map), py::arg("box") = py::none(),
           py::arg("element_strides") = py::none(), py::arg("swizzle") = "none",
           py::arg("oob_fill") = "zero", py::arg("l2_promotion") = "none", py::arg("mode") = "tile",
           py::arg("lower_corner") = py::none(), py::arg("upper_corner") = py::none(),
           py::arg("channels") = py::none(), py::arg("pixels") = py::none(),
           "A map: box (elements per copy, outermost first), element_strides, swizzle, "
           "oob_fill and l2_promotion as a spec's [tensor.NAME.map] spells them; mode = "
           "'im2col' takes lower_corner, upper_corner, channels and pixels instead of box.")
      .def_readonly("box", &api::TensorMap::box, "Elements one copy moves, outermost first.")
      .def_readonly("element_strides", &api::TensorMap::element_strides,
                    "Per dimension (empty: 1 in each).")
      .def_property_readonly(
          "swizzle", [](const api::TensorMap& t) { return std::string(tile::name(t.swizzle)); },
          "The shared layout's swizzle.")
      .def_property_readonly(
          "oob_fill", [](const api::TensorMap& t) { return std::string(tile::name(t.oob_fill)); },
          "What out-of-bounds elements read as.")
      .def_property_readonly(
          "l2_promotion",
          [](const api::TensorMap& t) { return std::string(tile::name(t.l2_promotion)); },
          "The L2 promotion.")
      .def_property_readonly(
          "mode", [](const api::TensorMap& t) { return std::string(tile::name(t.mode)); },
          "tile or im2col.")
      .def_readonly("lower_corner", &api::TensorMap::lower_corner,
                    "im2col: the bounding box's first pixel per spatial dimension.")
      .def_readonly("upper_corner", &api::TensorMap::upper_corner,
                    "im2col: its last pixel, from dim - 1, per spatial dimension.")
      .def_readonly("channels", &api::TensorMap::channels, "im2col: channels per pixel.")
      .def_readonly("pixels", &api::TensorMap::pixels, "im2col: pixels per copy.")
      .def("__repr__", &map_repr, "The call that makes it.");
  bind_copies(k);
  bind_tensor_copies(k);
  bind_tensormaps(k);
}

} // namespace ptxgen::python
