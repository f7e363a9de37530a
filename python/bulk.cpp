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
  throw py::value_error(what + " is one of " + choices + ", not '" + text + "'");
}

std::string_view name_of(std::string_view s) {
  return s;
}

api::TensorMap tensor_map(std::vector<std::int64_t> box,
                          std::optional<std::vector<std::int64_t>> element_strides,
                          const std::string& swizzle, const std::string& oob_fill,
                          const std::string& l2_promotion) {
  api::TensorMap m;
  m.box = std::move(box);
  m.element_strides = element_strides.value_or(std::vector<std::int64_t>{});
  m.swizzle = swizzle_of(swizzle);
  m.oob_fill = spelled<api::TensorMapOobFill>(tile::oob_fill_names, name_of, "oob_fill", oob_fill);
  m.l2_promotion = spelled<api::TensorMapL2Promotion>(tile::l2_promotion_names, name_of,
                                                      "l2_promotion", l2_promotion);
  return m;
}

api::BulkOptions bulk_options(const py::object& pred, const std::optional<CachePolicy>& policy) {
  api::BulkOptions o;
  if (!pred.is_none())
    o.pred = pred.cast<api::Expr>();
  if (policy)
    o.cache_policy = policy->policy;
  return o;
}

void bind_copies(py::class_<PyKernel>& k) {
  k.def(
       "bulk_load",
       [](PyKernel& self, const api::View& dst, const api::View& src,
          std::optional<api::View> barrier, const py::object& pred,
          std::optional<CachePolicy> cache_policy) {
         const api::BulkOptions o = bulk_options(pred, cache_policy);
         if (barrier)
           self.builder().bulk_load(dst, src, *barrier, o, caller_pos());
         else
           self.builder().bulk_load(dst, src, o, caller_pos());
       },
       py::arg("dst"), py::arg("src"), py::arg("barrier") = py::none(),
       py::arg("pred") = py::none(), py::arg("cache_policy") = py::none())
      .def(
          "bulk_store",
          [](PyKernel& self, const api::View& dst, const api::View& src, const py::object& pred,
             std::optional<CachePolicy> cache_policy) {
            self.builder().bulk_store(dst, src, bulk_options(pred, cache_policy), caller_pos());
          },
          py::arg("dst"), py::arg("src"), py::arg("pred") = py::none(),
          py::arg("cache_policy") = py::none())
      .def("bulk_commit", [](PyKernel& self) { self.builder().bulk_commit(caller_pos()); })
      .def(
          "bulk_wait",
          [](PyKernel& self, std::int64_t n, bool read) {
            self.builder().bulk_wait(n, read, caller_pos());
          },
          py::arg("n"), py::arg("read") = false)
      .def("proxy_fence", [](PyKernel& self) { self.builder().proxy_fence(caller_pos()); })
      .def(
          "expect_tx",
          [](PyKernel& self, const api::View& barrier, const api::Expr& bytes, bool arrive,
             const py::object& pred) {
            api::ExpectTxOptions o;
            o.arrive = arrive;
            if (!pred.is_none())
              o.pred = pred.cast<api::Expr>();
            self.builder().expect_tx(barrier, bytes, o, caller_pos());
          },
          py::arg("barrier"), py::arg("bytes"), py::arg("arrive") = true,
          py::arg("pred") = py::none());
}

void bind_tensor_copies(py::class_<PyKernel>& k) {
  k.def(
       "tensor_load",
       [](PyKernel& self, const api::View& tensor, const std::vector<api::Expr>& coords,
          const api::View& dst, std::optional<api::View> barrier, const py::object& pred,
          std::optional<CachePolicy> cache_policy) {
         const api::BulkOptions o = bulk_options(pred, cache_policy);
         if (barrier)
           self.builder().tensor_load(tensor, coords, dst, *barrier, o, caller_pos());
         else
           self.builder().tensor_load(tensor, coords, dst, o, caller_pos());
       },
       py::arg("tensor"), py::arg("coords"), py::arg("dst"), py::arg("barrier") = py::none(),
       py::arg("pred") = py::none(), py::arg("cache_policy") = py::none())
      .def(
          "tensor_store",
          [](PyKernel& self, const api::View& tensor, const std::vector<api::Expr>& coords,
             const api::View& src, const py::object& pred,
             std::optional<CachePolicy> cache_policy) {
            self.builder().tensor_store(tensor, coords, src, bulk_options(pred, cache_policy),
                                        caller_pos());
          },
          py::arg("tensor"), py::arg("coords"), py::arg("src"), py::arg("pred") = py::none(),
          py::arg("cache_policy") = py::none())
      .def(
          "abi",
          [](PyKernel& self, const std::vector<std::string>& names) {
            self.builder().abi(names, caller_pos());
          },
          py::arg("names"));
}

} // namespace

api::TensorMapSwizzle swizzle_of(const std::string& text) {
  return spelled<api::TensorMapSwizzle>(
      tile::swizzle_rows, [](const tile::SwizzleRow& r) { return r.name; }, "swizzle", text);
}

std::optional<api::TensorMap> map_of(const py::object& map) {
  if (map.is_none())
    return std::nullopt;
  if (py::isinstance<py::dict>(map))
    return py::type::of<api::TensorMap>()(**map).cast<api::TensorMap>();
  return map.cast<api::TensorMap>();
}

void bind_bulk(py::module_& m, py::class_<PyKernel>& k) {
  py::class_<api::TensorMap>(m, "TensorMap",
                             "A global tensor's TMA descriptor (a spec's [tensor.NAME.map]).")
      .def(py::init(&tensor_map), py::arg("box"), py::arg("element_strides") = py::none(),
           py::arg("swizzle") = "none", py::arg("oob_fill") = "zero",
           py::arg("l2_promotion") = "none")
      .def_readonly("box", &api::TensorMap::box)
      .def_readonly("element_strides", &api::TensorMap::element_strides)
      .def_property_readonly(
          "swizzle", [](const api::TensorMap& t) { return std::string(tile::name(t.swizzle)); })
      .def_property_readonly(
          "oob_fill", [](const api::TensorMap& t) { return std::string(tile::name(t.oob_fill)); })
      .def_property_readonly("l2_promotion", [](const api::TensorMap& t) {
        return std::string(tile::name(t.l2_promotion));
      });
  bind_copies(k);
  bind_tensor_copies(k);
}

} // namespace ptxgen::python
