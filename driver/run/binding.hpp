#pragma once
// Binding a kernel's PTX to its spec: which entry runs, the value each PTX
// parameter receives, and the dynamic shared bytes of the launch. ptxgen's
// own PTX binds by construction (lower::kernel_params declared it). A foreign
// kernel (`ptxgen run --ptx`) is bound through the simulator's parser on every
// backend: every parameter of the chosen entry is checked by type and size
// against the spec's ABI before anything runs, so a .u64 pointer in a .u32
// slot is an error naming the parameter, never a silent data mismatch.

#include "driver/cuda/runner.hpp"
#include "driver/sim/simulator.hpp"
#include "emitter/lower/abi.hpp"
#include "emitter/support/result.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver {

struct Binding {
  std::string entry;                       ///< the .entry to launch
  std::vector<lower::ParamBinding> params; ///< one per PTX parameter, in PTX order
  std::uint32_t dynamic_shared_bytes = 0;  ///< the launch's sharedMemBytes
};

/// ptxgen's own PTX for `k` launched on `run_target`: its name, lower::kernel_params, its
/// layout's dynamic bytes (padded for a `ctas_per_sm` residency on that target's SM).
Binding own_binding(const tile::Kernel& k, ptx::Target run_target);
/// The same on the oldest target the kernel's ops allow (tile::min_target).
Binding own_binding(const tile::Kernel& k);

/// The launch of `k` as `binding` binds it: its entry, grid, block and dynamic shared bytes,
/// `buffers` (its global tensors' initial bytes, each under its tensor's name) and the
/// parameters, a tensor parameter naming its buffer. The case name, module and time limit are
/// the caller's to set.
cuda::LaunchRequest launch_request(const tile::Kernel& k, const Binding& binding,
                                   std::vector<cuda::HostBuffer> buffers);

/// The entry of `entries` to run: `requested` when not empty (it must be one of
/// them: C++ mangled names are matched exactly), else the only one. A run_entry
/// error listing the entries otherwise.
Result<std::string> choose_entry(const std::vector<std::string>& entries,
                                 std::string_view requested);

/// Binds entry `requested` (see choose_entry) of a foreign `program` to `k`.
/// Errors: run_entry, run_param_count, run_param_type (each naming the PTX
/// parameter and both types); `file` names the PTX in them. The dynamic shared
/// bytes are foreign_dynamic_shared_bytes().
Result<Binding> bind_foreign(const tile::Kernel& k, const sim::Program& program,
                             std::string_view requested, const std::string& file);

/// What a foreign entry's `.extern .shared` array is launched with: the spec's
/// `dynamic_shared` when it states one, else the total of its shared tensors laid
/// out as ptxgen lays them out (tile::shared_layout, each at its alignment); 0
/// when the entry declares no `.extern .shared` array.
std::uint32_t foreign_dynamic_shared_bytes(const tile::Kernel& k, bool has_extern_shared);

/// The simulator's launch parameters: one 64-bit value per PTX parameter in binding order
/// (sim::Launch::params: a tensor's simulated device address from `addresses`, a scalar's
/// value, 0 in a map's slot) and the tensor maps (sim::Launch::tensor_maps: each map's
/// description, the tensor's address and the slot that holds it).
struct SimParams {
  std::vector<std::uint64_t> params;
  std::vector<sim::TensorMapArg> tensor_maps;
};
SimParams sim_launch_params(const tile::Kernel& k, const Binding& binding,
                            const std::map<std::string, std::uint64_t>& addresses);

} // namespace ptxgen::driver
