// `ptxgen lint --save-run DIR`: the first run's launch and memory, written for a GPU run of the
// same launch (tools/wild_device/run.cu reads them; docs/lint.md, "The wild corpus").
//
// plan.txt, one item a line, numbers in decimal, dimensions outermost first as the --arg gives
// them (the GPU side flips them for the driver):
//   ptxgen-run-plan 1
//   entry NAME
//   grid X Y Z / block X Y Z / dynamic_smem BYTES
//   cluster X Y Z fixed|launch             fixed: the entry's .reqnctapercluster (the GPU takes
//                                          it from the code), else a launch attribute
//   sim ok | sim fault KIND LINE           the simulator's run (its outputs mean little after a
//                                          fault)
//   instructions N
//   region K BYTES NAME...                 in.K.bin (before the run), sim.K.bin (after it)
//   map M REGION DTYPE RANK SWIZZLE OOB L2 then RANK dims, RANK-1 byte strides, RANK box
//                                          extents, RANK element strides
//   param K SIZE HEX                       the parameter's bytes as the simulator had them
//   link param|region K AT region|map T    at byte AT of parameter (region) K: the address of
//                                          region T (8 bytes) or the 128 bytes of map T

#include "driver/lint/detail.hpp"
#include "driver/support/atomic_file.hpp"
#include "emitter/tile/dtype.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace ptxgen::lint::detail {

namespace {

constexpr int plan_version = 1;

std::string dims_text(const sim::Dim3& d) {
  return std::to_string(d[0]) + " " + std::to_string(d[1]) + " " + std::to_string(d[2]);
}

void append_list(std::ostringstream& out, const std::vector<std::int64_t>& v) {
  for (const std::int64_t x : v)
    out << ' ' << x;
}

/// The map's line; a failure when its tensor is none of the run's regions.
Status map_line(std::ostringstream& out, std::size_t m, const sim::TensorMapArg& t,
                const Memory& memory) {
  const auto at = std::find_if(memory.regions.begin(), memory.regions.end(),
                               [&](const Region& r) { return r.base == t.global_address; });
  if (at == memory.regions.end())
    return Failure{"tensor map " + std::to_string(m) + ": its tensor is in no region"};
  const tile::TensorMapDesc& d = t.desc;
  static constexpr int swizzle_bytes[] = {0, 32, 64, 128};
  static constexpr int l2_bytes[] = {0, 64, 128, 256};
  out << "map " << m << ' ' << (at - memory.regions.begin()) << ' ' << tile::name(d.dtype) << ' '
      << d.rank() << ' ' << swizzle_bytes[static_cast<int>(d.swizzle)] << ' '
      << (d.oob_fill == tile::TensorMapOobFill::nan ? "nan" : "zero") << ' '
      << l2_bytes[static_cast<int>(d.l2_promotion)];
  append_list(out, d.global_dims);
  append_list(out, d.global_strides);
  append_list(out, d.box_dims);
  append_list(out, d.element_strides);
  out << '\n';
  return {};
}

/// Parameter k's bytes as the simulator's launch holds them (an array: param_arrays, zeros
/// where the simulator writes a map's handle itself; else the value, little endian).
std::vector<std::uint8_t> param_bytes(const sim::ir::Param& p, const sim::Launch& launch,
                                      std::size_t k) {
  std::vector<std::uint8_t> bytes(p.size, 0);
  if (k < launch.param_arrays.size() && !launch.param_arrays[k].empty()) {
    std::copy_n(launch.param_arrays[k].begin(),
                std::min(bytes.size(), launch.param_arrays[k].size()), bytes.begin());
  } else if (k < launch.params.size() && p.size <= sizeof(std::uint64_t)) {
    for (std::size_t b = 0; b < bytes.size(); ++b)
      bytes[b] = static_cast<std::uint8_t>(launch.params[k] >> (8 * b));
  }
  return bytes;
}

std::string hex(const std::vector<std::uint8_t>& bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (const std::uint8_t b : bytes) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

Status write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  return driver::write_file_atomically(
      path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

} // namespace

Status save_run(const std::string& folder, const sim::ir::Entry& e, const sim::Launch& launch,
                const Memory& inputs, const Memory& outputs, const sim::SimResult& result) {
  const std::filesystem::path dir(folder);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return Failure{"cannot create the folder: " + ec.message()};
  if (inputs.bytes.size() != outputs.bytes.size())
    return Failure{"the run's memory is not the launch's (a region grew after it)"};
  std::ostringstream out;
  out << "ptxgen-run-plan " << plan_version << "\nentry " << e.name << "\ngrid "
      << dims_text(launch.grid_dim) << "\nblock " << dims_text(launch.block_dim) << "\ncluster "
      << dims_text(launch.cluster_dim.value_or(e.reqnctapercluster.value_or(sim::Dim3{1, 1, 1})))
      << (e.reqnctapercluster ? " fixed" : " launch") << "\ndynamic_smem "
      << launch.dynamic_shared_bytes << '\n';
  if (result.fault)
    out << "sim fault " << sim::name(result.fault->kind) << ' ' << result.fault->ptx_line << '\n';
  else
    out << "sim ok\n";
  out << "instructions " << result.instructions_executed << '\n';
  for (std::size_t k = 0; k < inputs.bytes.size(); ++k) {
    out << "region " << k << ' ' << inputs.bytes[k].size() << ' ' << inputs.regions[k].name << '\n';
    const std::string n = std::to_string(k) + ".bin";
    if (auto s = write_bytes(dir / ("in." + n), inputs.bytes[k]); !s)
      return s;
    if (auto s = write_bytes(dir / ("sim." + n), outputs.bytes[k]); !s)
      return s;
  }
  for (std::size_t m = 0; m < launch.tensor_maps.size(); ++m) {
    if (auto s = map_line(out, m, launch.tensor_maps[m], inputs); !s)
      return s;
  }
  for (std::size_t k = 0; k < e.params.size(); ++k)
    out << "param " << k << ' ' << e.params[k].size << ' '
        << hex(param_bytes(e.params[k], launch, k)) << '\n';
  for (const Link& l : inputs.links)
    out << "link " << (l.in == Link::In::param ? "param " : "region ") << l.index << ' ' << l.at
        << (l.to == Link::To::region ? " region " : " map ") << l.target << '\n';
  return driver::write_file_atomically(dir / "plan.txt", out.str());
}

} // namespace ptxgen::lint::detail
