#include "driver/run/binding.hpp"

#include "driver/sim/ir.hpp"
#include "emitter/support/enum_names.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <array>
#include <map>

namespace ptxgen::driver {

namespace {

/// What a parameter slot of the spec's ABI takes.
struct Slot {
  std::uint32_t bytes;
  std::string_view type; ///< as ptxgen declares it
  std::string_view what; ///< "a .u64 pointer", "a .u32 scalar"
};

Slot slot_of(lower::ParamBinding::Kind k) {
  switch (k) {
  case lower::ParamBinding::Kind::tensor:
    return {8, ".u64", "a .u64 global pointer"};
  case lower::ParamBinding::Kind::u32:
    return {4, ".u32", "a .u32 scalar"};
  case lower::ParamBinding::Kind::u64:
    return {8, ".u64", "a .u64 scalar"};
  case lower::ParamBinding::Kind::tensor_map:
    return {lower::tensor_map_param_bytes, ".align 128 .b8 [128]", "a 128-byte tensor map"};
  }
  unreachable("slot_of(): not a ParamBinding::Kind value");
}

/// The integer (or untyped bits) PTX types of `bytes` bytes: what a slot accepts.
bool integer_of_size(std::string_view type, std::uint32_t bytes) {
  static constexpr std::array<std::string_view, 3> four = {".u32", ".s32", ".b32"};
  static constexpr std::array<std::string_view, 3> eight = {".u64", ".s64", ".b64"};
  const auto& ok = bytes == 4 ? four : eight;
  return std::find(ok.begin(), ok.end(), type) != ok.end();
}

/// How a `.ptr` attribute's state space is written (empty: none stated).
std::string ptr_space_text(sim::ir::Space space) {
  // In the enum's order: param, global, shared, generic, frame (call params), local.
  static constexpr auto texts = enum_names<sim::ir::Space::local>(" .param", " .global", " .shared",
                                                                  "", " .param", " .local");
  return std::string(name_of(texts, space));
}

/// Whether PTX parameter `p` takes what the ABI passes in a slot of kind `k`: an integer of
/// the slot's size; for a tensor map, a byte array of its size aligned as a CUtensorMap
/// needs (64 bytes at least: cuTensorMapEncodeTiled's alignment).
bool takes(const sim::ir::Param& p, lower::ParamBinding::Kind k) {
  const Slot s = slot_of(k);
  if (k == lower::ParamBinding::Kind::tensor_map)
    return !p.is_ptr && p.size == s.bytes && p.align >= 64 && p.align % 64 == 0;
  // A tensor is a global pointer: `.ptr .shared` (or any other space) does not take it.
  const bool wrong_space = k == lower::ParamBinding::Kind::tensor && p.is_ptr &&
                           p.ptr_space != sim::ir::Space::generic &&
                           p.ptr_space != sim::ir::Space::global;
  return integer_of_size(p.type, s.bytes) && !wrong_space;
}

std::string spec_side(const lower::ParamBinding& b) {
  switch (b.kind) {
  case lower::ParamBinding::Kind::tensor:
    return "tensor '" + b.name + "'";
  case lower::ParamBinding::Kind::tensor_map:
    return "the tensor map '" + b.name + "'";
  case lower::ParamBinding::Kind::u32:
  case lower::ParamBinding::Kind::u64:
    return "parameter '" + b.name + "'";
  }
  unreachable("spec_side(): not a ParamBinding::Kind value");
}

Diagnostic at_entry(DiagId id, std::string message, const sim::ir::Entry& e,
                    const std::string& file) {
  Diagnostic d(id, std::move(message));
  d.file = file;
  d.line = e.line;
  d.column = 1;
  return d;
}

/// Checks each PTX parameter of `e` against the ABI slot it fills.
Diagnostics check_params(const sim::ir::Entry& e, const std::vector<lower::ParamBinding>& abi,
                         const std::string& file) {
  Diagnostics out;
  const std::string entry = "entry `" + e.name + "`";
  const std::size_t common = std::min(e.params.size(), abi.size());
  for (std::size_t i = 0; i < common; ++i) {
    const sim::ir::Param& p = e.params[i];
    const Slot s = slot_of(abi[i].kind);
    if (takes(p, abi[i].kind))
      continue;
    const std::string declared = p.type + (p.is_ptr ? " .ptr" + ptr_space_text(p.ptr_space) : "") +
                                 " (" + std::to_string(p.size) + " bytes)";
    out.add(at_entry(DiagId::run_param_type,
                     "parameter " + std::to_string(i + 1) + " `" + p.name + "` of " + entry +
                         " is declared " + declared + ", but the spec passes " + spec_side(abi[i]) +
                         " there as " + std::string(s.what) + " (" + std::string(s.type) + ", " +
                         std::to_string(s.bytes) + " bytes)",
                     e, file));
  }
  if (e.params.size() != abi.size()) {
    std::string which;
    if (e.params.size() > abi.size()) {
      for (std::size_t i = abi.size(); i < e.params.size(); ++i)
        which += std::string(which.empty() ? "" : ", ") + "`" + e.params[i].name + "`";
      which = "; the spec passes nothing for " + which;
    } else {
      for (std::size_t i = e.params.size(); i < abi.size(); ++i)
        which += std::string(which.empty() ? "" : ", ") + spec_side(abi[i]);
      which = "; no PTX parameter takes " + which;
    }
    out.add(at_entry(DiagId::run_param_count,
                     entry + " declares " + std::to_string(e.params.size()) +
                         " parameter(s); the spec's ABI passes " + std::to_string(abi.size()) +
                         which + " (an order other than tensors then parameters: [kernel] abi)",
                     e, file));
  }
  return out;
}

} // namespace

Binding own_binding(const tile::Kernel& k) {
  return own_binding(k, tile::min_target(k));
}

Binding own_binding(const tile::Kernel& k, ptx::Target run_target) {
  return {k.name, lower::kernel_params(k), lower::launch_dynamic_shared_bytes(k, run_target)};
}

Result<std::string> choose_entry(const std::vector<std::string>& entries,
                                 std::string_view requested) {
  std::string list;
  for (const auto& e : entries)
    list += (list.empty() ? "" : ", ") + e;
  if (!requested.empty()) {
    if (std::find(entries.begin(), entries.end(), requested) != entries.end())
      return Result<std::string>::success(std::string(requested));
    return Result<std::string>::failure(Diagnostic(
        DiagId::run_entry,
        "--entry " + std::string(requested) +
            ": the PTX has no such entry (entries: " + (list.empty() ? "none" : list) + ")"));
  }
  if (entries.size() == 1)
    return Result<std::string>::success(entries.front());
  if (entries.empty())
    return Result<std::string>::failure(
        Diagnostic(DiagId::run_entry, "the PTX declares no .entry to run"));
  return Result<std::string>::failure(Diagnostic(
      DiagId::run_entry, "the PTX has " + std::to_string(entries.size()) +
                             " entries; pick one with --entry NAME (entries: " + list + ")"));
}

Result<Binding> bind_foreign(const tile::Kernel& k, const sim::Program& program,
                             std::string_view requested, const std::string& file) {
  auto entry = choose_entry(program.entries(), requested);
  if (!entry)
    return Result<Binding>::failure(std::move(entry.diagnostics));
  const auto& entries = program.module().entries;
  const auto e = std::find_if(entries.begin(), entries.end(),
                              [&](const sim::ir::Entry& x) { return x.name == *entry; });
  Binding b;
  b.entry = *entry;
  b.params = lower::kernel_params(k);
  b.dynamic_shared_bytes = foreign_dynamic_shared_bytes(k, e->has_extern_shared);
  Diagnostics problems = check_params(*e, b.params, file);
  if (problems.has_errors())
    return Result<Binding>::failure(std::move(problems));
  return Result<Binding>::success(std::move(b));
}

std::uint32_t foreign_dynamic_shared_bytes(const tile::Kernel& k, bool has_extern_shared) {
  if (!has_extern_shared)
    return 0;
  if (k.dynamic_shared)
    return static_cast<std::uint32_t>(*k.dynamic_shared);
  return static_cast<std::uint32_t>(tile::shared_layout(k).total);
}

cuda::LaunchRequest launch_request(const tile::Kernel& k, const Binding& binding,
                                   std::vector<cuda::HostBuffer> buffers) {
  cuda::LaunchRequest req;
  req.entry = binding.entry;
  const auto dims = [](const tile::Dim3& d) {
    return cuda::LaunchDims{static_cast<unsigned>(d.x), static_cast<unsigned>(d.y),
                            static_cast<unsigned>(d.z)};
  };
  req.grid = dims(k.grid_dim);
  req.block = dims(k.block_dim);
  req.cluster = dims(k.cluster_dim());
  req.cluster_non_portable = k.cluster && k.cluster->non_portable;
  req.dynamic_shared_bytes = binding.dynamic_shared_bytes;
  req.buffers = std::move(buffers);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < req.buffers.size(); ++i)
    index[req.buffers[i].name] = i;
  for (const auto& b : binding.params) {
    cuda::KernelParam kp;
    if (b.kind == lower::ParamBinding::Kind::tensor) {
      kp.kind = cuda::KernelParam::Kind::buffer;
      kp.buffer_index = index.at(b.name);
    } else if (b.kind == lower::ParamBinding::Kind::tensor_map) {
      // Encoded where the buffer is allocated: the map holds its device address.
      kp.kind = cuda::KernelParam::Kind::tensor_map;
      kp.buffer_index = index.at(b.tensor);
      kp.map = k.find_tensor(b.tensor)->map;
    } else {
      kp.kind = b.kind == lower::ParamBinding::Kind::u32 ? cuda::KernelParam::Kind::u32
                                                         : cuda::KernelParam::Kind::u64;
      kp.value = k.find_param(b.name)->value;
    }
    req.params.push_back(kp);
  }
  return req;
}

SimParams sim_launch_params(const tile::Kernel& k, const Binding& binding,
                            const std::map<std::string, std::uint64_t>& addresses) {
  SimParams out;
  for (const auto& b : binding.params) {
    switch (b.kind) {
    case lower::ParamBinding::Kind::tensor:
      out.params.push_back(addresses.at(b.name));
      break;
    case lower::ParamBinding::Kind::u32:
    case lower::ParamBinding::Kind::u64:
      out.params.push_back(k.find_param(b.name)->value);
      break;
    case lower::ParamBinding::Kind::tensor_map:
      // The slot's bytes are the simulator's handle of this map (sim::tensor_map_handle).
      out.tensor_maps.push_back(
          {out.params.size(), *k.find_tensor(b.tensor)->map, addresses.at(b.tensor)});
      out.params.push_back(0);
      break;
    }
  }
  return out;
}

} // namespace ptxgen::driver
