// A tensor map as a kernel argument: the binding of a spec with a [tensor.NAME.map]
// (driver/run/binding.hpp), its 128 bytes packed for cuLaunchKernel through an encoder
// (driver/cuda/kernel_params.hpp; here a fake that records what it was asked), the map
// carried by the device worker's wire format (driver/cuda/wire.hpp), and the simulator's
// hook that refuses maps for now.

#include "driver/cuda/kernel_params.hpp"
#include "driver/cuda/wire.hpp"
#include "driver/run/binding.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/lower/abi.hpp"
#include "spec_text.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_cuda_tensor_map_param {

using namespace ptxgen;
using namespace ptxgen::driver::cuda;

namespace {

const std::string kSpec = [] {
  using namespace spec_text;
  return kernel("k", "", "32") + tensor("A", "global", "[64, 32]", "float16") +
         map("A", "[16, 32]", "64B") + tensor("B", "global", "[64, 32]", "float16") +
         swizzled("S", "[16, 32]", "float16", "512", "64B") +
         "\n[param.n]\ndtype = \"u32\"\nvalue = 5\n";
}();

std::unique_ptr<tile::Kernel> kernel() {
  return spec_text::load(kSpec, "map.toml");
}

/// A request with a map parameter for buffer 1.
LaunchRequest map_request() {
  auto k = kernel();
  std::vector<HostBuffer> buffers = {{"B", std::vector<std::uint8_t>(4096)},
                                     {"A", std::vector<std::uint8_t>(4096, 3)}};
  return driver::launch_request(*k, driver::own_binding(*k), std::move(buffers));
}

} // namespace

TEST_CASE("the launch request passes A's map after the pointers, bound to A's buffer") {
  const LaunchRequest q = map_request();
  REQUIRE(q.params.size() == 4); // A, B, A.map, n
  CHECK(q.params[0].kind == KernelParam::Kind::buffer);
  CHECK(q.params[0].buffer_index == 1);
  CHECK(q.params[2].kind == KernelParam::Kind::tensor_map);
  CHECK(q.params[2].buffer_index == 1);
  REQUIRE(q.params[2].map.has_value());
  CHECK(q.params[2].map->tensor == "A");
  CHECK(q.params[2].map->box_dims == std::vector<std::int64_t>{16, 32});
  CHECK(q.params[2].map->swizzle == tile::TensorMapSwizzle::b64);
  CHECK(q.params[3].kind == KernelParam::Kind::u32);
  CHECK(q.params[3].value == 5);
}

TEST_CASE("abi listing A's map without A: no pointer for A, the map still bound to A's buffer") {
  std::string text(kSpec);
  text.insert(text.find("block = 32") + 10, "\nabi = [\"A.map\", \"B\", \"n\"]");
  auto loaded = driver::load_spec_text(text, "map_only.toml");
  INFO(loaded.diagnostics.format_all());
  REQUIRE(loaded.value.has_value());
  const tile::Kernel& k = **loaded.value;
  CHECK(lower::map_only(k, "A"));
  CHECK_FALSE(lower::map_only(k, "B"));
  std::vector<HostBuffer> buffers = {{"B", std::vector<std::uint8_t>(4096)},
                                     {"A", std::vector<std::uint8_t>(4096, 3)}};
  const LaunchRequest q = driver::launch_request(k, driver::own_binding(k), std::move(buffers));
  REQUIRE(q.params.size() == 3); // A.map, B, n
  CHECK(q.params[0].kind == KernelParam::Kind::tensor_map);
  CHECK(q.params[0].buffer_index == 1);
  CHECK(q.params[1].kind == KernelParam::Kind::buffer);
  CHECK(q.params[1].buffer_index == 0);
  CHECK(q.params[2].kind == KernelParam::Kind::u32);
}

TEST_CASE("a map is encoded over its buffer's device address into a 128-byte argument") {
  const LaunchRequest q = map_request();
  const std::vector<std::uint64_t> addresses = {0x7f0000010000, 0x7f0000020000};
  std::vector<std::uint64_t> asked;
  TensorMapEncoder fake = [&](const tile::TensorMapDesc& m, std::uint64_t address,
                              TensorMapBytes& out) -> ptxgen::Status {
    CHECK(m.tensor == "A");
    asked.push_back(address);
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = static_cast<unsigned char>(i ^ 0x5A);
    return {};
  };
  auto packed = pack_kernel_params(q.params, addresses, fake);
  INFO((packed ? std::string() : packed.error()));
  REQUIRE(packed);
  CHECK(asked == std::vector<std::uint64_t>{0x7f0000020000});
  CHECK(packed->width(2) == tensor_map_bytes);
  const std::vector<void*> p = packed->pointers();
  REQUIRE(p.size() == 4);
  CHECK(reinterpret_cast<std::uintptr_t>(p[2]) % 64 == 0); // a CUtensorMap's alignment
  const auto* bytes = static_cast<const unsigned char*>(p[2]);
  for (std::size_t i = 0; i < tensor_map_bytes; ++i)
    CHECK(bytes[i] == static_cast<unsigned char>(i ^ 0x5A));

  auto none = pack_kernel_params(q.params, addresses);
  REQUIRE_FALSE(none);
  CHECK(none.error().find("cannot encode tensor maps") != std::string::npos);

  TensorMapEncoder failing = [](const tile::TensorMapDesc&, std::uint64_t,
                                TensorMapBytes&) -> ptxgen::Status { return Failure{"no driver"}; };
  auto refused = pack_kernel_params(q.params, addresses, failing);
  REQUIRE_FALSE(refused);
  CHECK(refused.error() == "parameter 2: no driver");
}

TEST_CASE("the device worker's wire format carries the map") {
  const LaunchRequest q = map_request();
  const std::string bytes = encode_request(q);
  const auto d = decode_request(bytes);
  REQUIRE(d.has_value());
  REQUIRE(d->params.size() == q.params.size());
  const auto& m = q.params[2].map.value();
  REQUIRE(d->params[2].map.has_value());
  const auto& n = *d->params[2].map;
  CHECK(n.tensor == m.tensor);
  CHECK(n.dtype == m.dtype);
  CHECK(n.global_align == m.global_align);
  CHECK(n.global_dims == m.global_dims);
  CHECK(n.global_strides == m.global_strides);
  CHECK(n.box_dims == m.box_dims);
  CHECK(n.element_strides == m.element_strides);
  CHECK(n.swizzle == m.swizzle);
  CHECK(n.oob_fill == m.oob_fill);
  CHECK(n.l2_promotion == m.l2_promotion);
  CHECK_FALSE(d->params[0].map.has_value());
  for (std::size_t cut = 0; cut < bytes.size(); ++cut)
    CHECK_FALSE(decode_request(std::string_view(bytes).substr(0, cut)).has_value());
}

TEST_CASE("the simulator's parameters: pointers and scalars, a map by its slot") {
  auto k = kernel();
  const std::map<std::string, std::uint64_t> addresses = {{"A", 0x1000}, {"B", 0x2000}};
  const driver::SimParams p = driver::sim_launch_params(*k, driver::own_binding(*k), addresses);
  REQUIRE(p.params.size() == 4); // A, B, A.map, n
  CHECK(p.params[0] == 0x1000);
  CHECK(p.params[1] == 0x2000);
  REQUIRE(p.tensor_maps.size() == 1);
  CHECK(p.tensor_maps[0].param == std::optional<std::size_t>(2));
  CHECK(p.tensor_maps[0].global_address == 0x1000);
  CHECK(p.tensor_maps[0].desc.tensor == "A");
  CHECK(p.tensor_maps[0].desc.box_dims == k->find_tensor("A")->map->box_dims);

  auto plain = driver::load_spec_text(
      "[kernel]\nname = \"k\"\nblock = 32\n\n[tensor.A]\nspace = \"global\"\nshape = [16]\n"
      "dtype = \"uint8\"\n\n[param.n]\ndtype = \"u32\"\nvalue = 9\n",
      "plain.toml");
  REQUIRE(plain.value.has_value());
  const driver::SimParams q =
      driver::sim_launch_params(**plain, driver::own_binding(**plain), addresses);
  CHECK(q.params == std::vector<std::uint64_t>{0x1000, 9});
  CHECK(q.tensor_maps.empty());
}

} // namespace unit_cuda_tensor_map_param
