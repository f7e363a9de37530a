#pragma once
// The SASS of a cubin: find a disassembler (cuobjdump, else nvdisasm), run it
// on the cubin (an argument vector, the cubin in a private temporary
// directory, a time limit), and scan the result for known miscompiles.

#include "driver/sass/traps.hpp"
#include "emitter/support/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver::sass {

enum class DisassemblerKind : std::uint8_t {
  cuobjdump, ///< `cuobjdump -sass FILE`
  nvdisasm,  ///< `nvdisasm -c FILE` (code sections only)
};
std::string_view name(DisassemblerKind k);

struct Disassembler {
  std::filesystem::path path;
  DisassemblerKind kind = DisassemblerKind::cuobjdump;
  std::string found_by; ///< "--disassembler", "PTXGEN_DISASSEMBLER", "next to ptxas", "PATH", ...
};

/// Where locate_disassembler() looks, as values (empty: not given).
struct DisassemblerSearch {
  std::string explicit_path; ///< --disassembler
  std::string env_value;     ///< PTXGEN_DISASSEMBLER
  std::string ptxas_path;    ///< the ptxas in use: its directory is searched next
  std::string path_variable; ///< PATH
  std::string cuda_bin;      ///< the toolkit's usual bin directory (/usr/local/cuda/bin)
};

/// In order: the explicit path, the variable (each an error when not an
/// executable file), then cuobjdump and after it nvdisasm in ptxas's directory,
/// on PATH, and in `cuda_bin`. The kind of an explicit one is nvdisasm when its
/// file name says so, else cuobjdump. Fails when none is found.
Fallible<Disassembler> locate_disassembler_in(const DisassemblerSearch& search);

/// locate_disassembler_in() over --disassembler, $PTXGEN_DISASSEMBLER, the given
/// ptxas (empty: the one ptxgen's search finds), $PATH and /usr/local/cuda/bin.
Fallible<Disassembler> locate_disassembler(const std::string& explicit_path,
                                           const std::string& ptxas_path);

/// Disassembles a cubin (a private temporary copy); killed past `timeout`.
Fallible<std::string> disassemble(const Disassembler& d, const std::vector<std::uint8_t>& cubin,
                                  std::chrono::milliseconds timeout = std::chrono::seconds(60));

/// What a GPU fault's cubin shows: the known miscompiles in it, or why it could
/// not be scanned (no disassembler, the disassembler failed).
struct CubinScan {
  bool scanned = false;
  std::vector<TrapMatch> traps;
  std::string error;
};
CubinScan scan_cubin(const std::vector<std::uint8_t>& cubin, const std::string& ptxas_path = {});

} // namespace ptxgen::driver::sass
