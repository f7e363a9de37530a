#pragma once
// Fat binaries through the CUDA toolkit's `fatbinary`, as nvcc builds them:
// `fatbinary --create=OUT -64 --image3=kind=elf,sm=90a,file=CUBIN ...`.

#include "emitter/ptx/target.hpp"
#include "emitter/support/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver {

/// The fatbinary beside `ptxas` (the toolkit's bin directory), else the first on
/// PATH. Fails when there is none.
Fallible<std::filesystem::path> locate_fatbinary(const std::filesystem::path& ptxas);

/// One image of a fat binary: a cubin for `arch`, or PTX text (`is_ptx`).
struct FatImage {
  ptx::Target arch;
  bool is_ptx = false;
  std::vector<std::uint8_t> bytes;
};

/// fatbinary's `sm=` value for a target: "80" for sm_80, "90a" for sm_90a.
std::string fatbinary_sm(const ptx::Target& arch);

/// The argument vector for `fatbinary` given the image files (same order as
/// `images`) and the output path.
std::vector<std::string> fatbinary_args(const std::vector<FatImage>& images,
                                        const std::vector<std::filesystem::path>& files,
                                        const std::filesystem::path& output);

/// Builds the fat binary in a private temporary directory and returns its
/// bytes; a failure's message names fatbinary's output.
Fallible<std::string> make_fatbinary(const std::filesystem::path& fatbinary,
                                     const std::vector<FatImage>& images,
                                     std::chrono::milliseconds timeout);

} // namespace ptxgen::driver
