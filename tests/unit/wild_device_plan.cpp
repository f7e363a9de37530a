// `ptxgen lint --save-run` and `--fill` (driver/lint/save_run.cpp), read back by the GPU side's
// own reader, and that side's comparison (tools/wild_device/plan.hpp, which run.cu includes on
// the GPU machine). Expected values are worked out from the kernel and the inputs by hand.

#include "driver/lint/detail.hpp"
#include "driver/lint/lint.hpp"
#include "tools/wild_device/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>
#include <unistd.h>

namespace unit_wild_device_plan {

using namespace ptxgen::lint;

// One thread loads a 1-D box of 64 f32 through the map its first parameter points to, and
// stores element 63 70000 bytes into `out`: past the 64 KiB region lint starts with.
const char* const kernel_text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_map, .param .u64 k_out, .param .u32 k_n)
.reqntid 1
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 128 .b8 tile[256];
  .shared .align 8 .b8 bar[8];
  ld.param.u64 %rd2, [k_map];
  mov.u32 %r1, tile;
  mov.u32 %r2, bar;
  mov.u32 %r3, 0;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 256;
  cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r3}], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
  @!%p1 bra WAIT;
  ld.shared.u32 %r4, [%r1+252];
  ld.param.u64 %rd3, [k_out];
  ld.param.u32 %r5, [k_n];
  st.global.u32 [%rd3+70000], %r4;
  st.global.u32 [%rd3+70004], %r5;
  ret;
}
)";

struct Saved {
  std::filesystem::path dir;
  wild_device::Plan plan;
  std::vector<KernelReport> reports;
};

Saved save(const std::string& name, std::optional<ptxgen::tile::DType> fill) {
  Saved s;
  s.dir = std::filesystem::temp_directory_path() /
          ("ptxgen_wild_device_plan_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(s.dir);
  Options o;
  o.grid = ptxgen::sim::Dim3{1, 1, 1};
  o.save_run = s.dir.string();
  o.value_fill = fill;
  for (const char* t : {"0=@f32[64]:box[64]", "k_n=7"}) {
    auto a = parse_arg(t);
    REQUIRE_MESSAGE(a, a.error());
    o.args.push_back(*a);
  }
  s.reports = lint_text(kernel_text, "x.ptx", o);
  REQUIRE(s.reports.size() == 1);
  REQUIRE_MESSAGE(s.reports[0].status == KernelStatus::clean, s.reports[0].error);
  const auto text = wild_device::read_bytes((s.dir / "plan.txt").string());
  REQUIRE(text);
  const std::string why = wild_device::parse_plan(std::string(text->begin(), text->end()), s.plan);
  REQUIRE_MESSAGE(why.empty(), why);
  return s;
}

std::size_t region_named(const wild_device::Plan& p, const std::string& name) {
  for (std::size_t k = 0; k < p.regions.size(); ++k) {
    if (p.regions[k].name == name)
      return k;
  }
  FAIL("no region named " << name);
  return 0;
}

std::vector<std::uint8_t> bytes_of(const Saved& s, const std::string& which, std::size_t k) {
  auto b = wild_device::read_bytes((s.dir / (which + "." + std::to_string(k) + ".bin")).string());
  REQUIRE(b);
  return *b;
}

float f32_at(const std::vector<std::uint8_t>& b, std::size_t at) {
  float f;
  std::memcpy(&f, b.data() + at, 4);
  return f;
}

TEST_CASE("lint --save-run: the launch, the regions, the map and the links the GPU side reads") {
  const Saved s = save("links", ptxgen::tile::DType::float32);
  const wild_device::Plan& p = s.plan;
  CHECK(p.entry == "k");
  CHECK((p.grid[0] == 1 && p.block[0] == 1 && p.cluster[0] == 1 && !p.cluster_fixed));
  CHECK(p.sim_ok);
  CHECK(p.instructions > 0);
  REQUIRE(p.regions.size() == 3);
  const std::size_t handle = region_named(p, "k_map (its map)");
  const std::size_t tensor = region_named(p, "k_map (the tensor of its map)");
  const std::size_t out = region_named(p, "k_out");
  CHECK(p.regions[handle].bytes == 128);
  CHECK(p.regions[tensor].bytes == 256);
  CHECK(p.regions[out].bytes == 256 * 1024); // grown once (fourfold): the store at 70000
  REQUIRE(p.maps.size() == 1);
  const wild_device::Map& m = p.maps[0];
  CHECK(m.region == tensor);
  CHECK(m.dtype == "float32");
  CHECK(m.rank == 1);
  CHECK(m.dims == std::vector<std::uint64_t>{64});
  CHECK(m.box == std::vector<std::uint64_t>{64});
  CHECK(m.strides.empty());
  CHECK(m.swizzle == 0);
  // The parameters: 8, 8 and 4 bytes; the scalar's value as the simulator had it.
  REQUIRE(p.params.size() == 3);
  CHECK(p.params[0].size() == 8);
  CHECK(p.params[2] == std::vector<std::uint8_t>{7, 0, 0, 0});
  // Where the GPU puts its own addresses and its encoding of the map.
  auto has = [&](bool in_param, std::size_t index, bool to_map, std::size_t target) {
    return std::any_of(p.links.begin(), p.links.end(), [&](const wild_device::Link& l) {
      return l.in_param == in_param && l.index == index && l.at == 0 && l.to_map == to_map &&
             l.target == target;
    });
  };
  CHECK(p.links.size() == 3);
  CHECK(has(true, 0, false, handle));
  CHECK(has(false, handle, true, 0));
  CHECK(has(true, 1, false, out));
  // The map's region holds the simulator's handle, the GPU's the driver's bytes: not compared.
  const std::vector<bool> keep = wild_device::compared_regions(p);
  CHECK_FALSE(keep[handle]);
  CHECK((keep[tensor] && keep[out]));
  // The run's outputs: element 63 of the tensor, then n, at 70000 of `out`; the rest unchanged.
  const auto tensor_in = bytes_of(s, "in", tensor);
  const auto out_in = bytes_of(s, "in", out);
  const auto out_sim = bytes_of(s, "sim", out);
  REQUIRE(out_sim.size() == 256 * 1024);
  CHECK(std::equal(tensor_in.begin() + 252, tensor_in.end(), out_sim.begin() + 70000));
  CHECK(out_sim[70004] == 7);
  std::vector<std::uint8_t> rest = out_sim;
  std::copy(out_in.begin() + 70000, out_in.begin() + 70008, rest.begin() + 70000);
  CHECK(rest == out_in);
  std::filesystem::remove_all(s.dir);
}

TEST_CASE("lint --fill: exact values in [-1, 1) of the --arg's type, of the fill's elsewhere") {
  const Saved s = save("fill", ptxgen::tile::DType::bfloat16);
  const std::size_t tensor = region_named(s.plan, "k_map (the tensor of its map)");
  const std::size_t out = region_named(s.plan, "k_out");
  // The map's tensor is f32 (its --arg says): multiples of 2^-23 in [-1, 1), not all equal.
  const auto t = bytes_of(s, "in", tensor);
  float lo = 2, hi = -2;
  for (std::size_t i = 0; i < t.size(); i += 4) {
    const float v = f32_at(t, i);
    CHECK(v >= -1.0f);
    CHECK(v < 1.0f);
    CHECK(std::ldexp(v, 23) == std::floor(std::ldexp(v, 23)));
    lo = std::min(lo, v), hi = std::max(hi, v);
  }
  CHECK(hi - lo > 0.5f);
  // `out` has no type from an --arg: bf16 values, multiples of 2^-7 in [-1, 1).
  const auto o = bytes_of(s, "in", out);
  const wild_device::Mode bf16 = *wild_device::parse_mode("bf16 ulp 0");
  for (std::size_t i = 0; i < 1024; i += 2) {
    const double v = wild_device::element_value(o[i] | o[i + 1] << 8, bf16);
    CHECK(v >= -1.0);
    CHECK(v < 1.0);
    CHECK(std::ldexp(v, 7) == std::floor(std::ldexp(v, 7)));
  }
  std::filesystem::remove_all(s.dir);
  // Without --fill the bytes are random: some f32 element of the tensor lies outside [-1, 1).
  const Saved b = save("bytes", std::nullopt);
  const auto r = bytes_of(b, "in", region_named(b.plan, "k_map (the tensor of its map)"));
  bool outside = false;
  for (std::size_t i = 0; i < r.size(); i += 4)
    outside = outside || !(std::fabs(f32_at(r, i)) < 1.0f);
  CHECK(outside);
  std::filesystem::remove_all(b.dir);
}

TEST_CASE("lint --fill f16 and f64: every element an exact multiple of 2^-10 (2^-52) in [-1, 1)") {
  std::vector<std::uint8_t> h(4096);
  ptxgen::lint::detail::fill_values(h, ptxgen::tile::DType::float16, 3);
  const wild_device::Mode f16 = *wild_device::parse_mode("f16 ulp 0");
  int negative = 0, below_2_to_the_minus_5 = 0;
  for (std::size_t i = 0; i < h.size(); i += 2) {
    const double v = wild_device::element_value(h[i] | h[i + 1] << 8, f16);
    CHECK(v >= -1.0);
    CHECK(v < 1.0);
    CHECK(std::ldexp(v, 10) == std::floor(std::ldexp(v, 10)));
    negative += v < 0 ? 1 : 0;
    below_2_to_the_minus_5 += v != 0 && std::fabs(v) < 1.0 / 32 ? 1 : 0;
  }
  CHECK(negative > 900); // about half of 2048
  CHECK(negative < 1150);
  CHECK(below_2_to_the_minus_5 > 0); // small values too: exponents below -5 encoded right
  std::vector<std::uint8_t> d(4096);
  ptxgen::lint::detail::fill_values(d, ptxgen::tile::DType::float64, 3);
  for (std::size_t i = 0; i < d.size(); i += 8) {
    double v;
    std::memcpy(&v, d.data() + i, 8);
    CHECK(v >= -1.0);
    CHECK(v < 1.0);
  }
  // an integer type keeps fill_random's bytes
  std::vector<std::uint8_t> u(64), r(64);
  ptxgen::lint::detail::fill_values(u, ptxgen::tile::DType::int8, 3);
  ptxgen::lint::detail::fill_random(r, 3);
  CHECK(u == r);
}

std::vector<std::uint8_t> f32_bytes(std::initializer_list<float> v) {
  std::vector<std::uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), std::data(v), b.size());
  return b;
}

TEST_CASE("the GPU side's comparison: bytes, or floats within a stated ulp bound") {
  using wild_device::compare;
  using wild_device::parse_mode;
  for (const char* bad :
       {"", "byte", "f32", "f32 ulp", "f32 ulp -1", "f8 ulp 1", "f32 ulps 2", "f32 ulp 2 more"})
    CHECK_MESSAGE(!parse_mode(bad), bad);
  const wild_device::Mode bytes = *parse_mode("bytes");
  const wild_device::Mode f32 = *parse_mode("f32 ulp 2");
  const float one_ulp_at_4 = std::ldexp(1.0f, -21); // 4 = 2^2: ulp 2^(2-23)
  const auto sim = f32_bytes({4.0f, 0.0f, -1.5f, 3.0f});
  // equal bytes agree in either mode
  CHECK(compare(sim, sim, bytes).outside == 0);
  CHECK(compare(sim, sim, f32).outside == 0);
  // two ulps at 4 agree under "f32 ulp 2"; three do not; in bytes mode any change is outside
  auto gpu = f32_bytes({4.0f + 2 * one_ulp_at_4, 0.0f, -1.5f, 3.0f});
  CHECK(compare(gpu, sim, f32).outside == 0);
  CHECK(compare(gpu, sim, f32).worst_ulps == doctest::Approx(2.0));
  CHECK(compare(gpu, sim, bytes).outside > 0);
  gpu = f32_bytes({4.0f + 3 * one_ulp_at_4, 0.0f, -1.5f, 3.0f});
  const wild_device::Outcome o = compare(gpu, sim, f32);
  CHECK(o.outside == 1);
  CHECK(o.first_outside == 0);
  CHECK(o.elements == 4);
  // near zero the ulp is 1.0's (2^-23): 2^-30 against 0 is far below one
  gpu = f32_bytes({4.0f, std::ldexp(1.0f, -30), -1.5f, 3.0f});
  CHECK(compare(gpu, sim, f32).outside == 0);
  gpu = f32_bytes({4.0f, std::ldexp(1.0f, -21), -1.5f, 3.0f}); // 4 ulps of 1.0
  CHECK(compare(gpu, sim, f32).outside == 1);
  CHECK(compare(gpu, sim, f32).first_outside == 4);
  // NaN: any NaN matches a NaN, and nothing else
  const float nan = std::nanf("");
  const auto nan_a = f32_bytes({nan, 0.0f});
  auto nan_b = nan_a;
  nan_b[0] ^= 1; // another payload
  CHECK(compare(nan_a, nan_b, f32).outside == 0);
  CHECK(compare(nan_a, f32_bytes({4.0f, 0.0f}), f32).outside == 1);
  CHECK(compare(f32_bytes({INFINITY}), f32_bytes({3.0e38f}), f32).outside == 1);
  // a size mismatch is every byte outside; a tail past the last element compared as bytes
  CHECK(compare(sim, f32_bytes({4.0f}), f32).outside == 16);
  auto tail_a = sim, tail_b = sim;
  tail_a.push_back(1), tail_b.push_back(2);
  CHECK(compare(tail_a, tail_b, f32).outside == 1);
  // f16 and bf16 elements: 1.0 against its next value is one ulp
  const wild_device::Mode f16 = *parse_mode("f16 ulp 0");
  const wild_device::Mode bf16 = *parse_mode("bf16 ulp 1");
  CHECK(wild_device::element_value(0x3c00, f16) == 1.0);
  CHECK(wild_device::element_value(0xc000, f16) == -2.0);
  CHECK(wild_device::element_value(0x0001, f16) == std::ldexp(1.0, -24));
  CHECK(wild_device::element_value(0x3f80, bf16) == 1.0);
  const std::vector<std::uint8_t> h1 = {0x00, 0x3c}, h2 = {0x01, 0x3c};
  CHECK(compare(h1, h2, f16).outside == 1);
  const std::vector<std::uint8_t> b1 = {0x80, 0x3f}, b2 = {0x81, 0x3f};
  CHECK(compare(b1, b2, bf16).outside == 0);
}

TEST_CASE("the GPU side's plan reader refuses what it cannot read") {
  wild_device::Plan p;
  CHECK_FALSE(wild_device::parse_plan("ptxgen-run-plan 2\nentry k\n", p).empty());
  p = {};
  CHECK_FALSE(wild_device::parse_plan("ptxgen-run-plan 1\n", p).empty()); // no entry
  p = {};
  CHECK_FALSE(wild_device::parse_plan("ptxgen-run-plan 1\nentry k\nparam 0 4 0700\n", p).empty());
  p = {};
  // a link to a region that is not there
  CHECK_FALSE(wild_device::parse_plan("ptxgen-run-plan 1\nentry k\nparam 0 8 0000000000000000\n"
                                      "link param 0 0 region 0\n",
                                      p)
                  .empty());
  p = {};
  CHECK(wild_device::parse_plan("ptxgen-run-plan 1\nentry k\nregion 0 16 A\nparam 0 8 "
                                "0000000000000000\nlink param 0 0 region 0\n",
                                p)
            .empty());
  CHECK(p.regions[0].name == "A");
}

} // namespace unit_wild_device_plan
