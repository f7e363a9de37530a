#include "driver/sass/disassemble.hpp"

#include "driver/ptxas/locate.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/process.hpp"
#include "driver/support/temp_dir.hpp"
#include "emitter/support/enum_names.hpp"

#include <array>
#include <cstdlib>

namespace ptxgen::driver::sass {

namespace fs = std::filesystem;

namespace {

/// The toolkit's usual bin directory: where the GPU machine has cuobjdump.
constexpr std::string_view default_cuda_bin = "/usr/local/cuda/bin";

struct Tool {
  std::string_view file;
  DisassemblerKind kind;
};
/// cuobjdump first: its listing names each function with its instructions only.
constexpr std::array<Tool, 2> tools = {
    {{"cuobjdump", DisassemblerKind::cuobjdump}, {"nvdisasm", DisassemblerKind::nvdisasm}}};

DisassemblerKind kind_of(const fs::path& p) {
  return p.filename().string().find("nvdisasm") != std::string::npos ? DisassemblerKind::nvdisasm
                                                                     : DisassemblerKind::cuobjdump;
}

/// The directories of a PATH value, in order ("" is the current directory).
std::vector<fs::path> path_dirs(std::string_view value) {
  std::vector<fs::path> out;
  while (!value.empty()) {
    auto colon = value.find(':');
    std::string_view dir = value.substr(0, colon);
    out.emplace_back(dir.empty() ? std::string_view(".") : dir);
    if (colon == std::string_view::npos)
      break;
    value.remove_prefix(colon + 1);
  }
  return out;
}

} // namespace

std::string_view name(DisassemblerKind k) {
  static constexpr auto names = enum_names<DisassemblerKind::nvdisasm>("cuobjdump", "nvdisasm");
  return name_of(names, k);
}

Fallible<Disassembler> locate_disassembler_in(const DisassemblerSearch& search) {
  if (auto named = named_executable("--disassembler", search.explicit_path, "PTXGEN_DISASSEMBLER",
                                    search.env_value)) {
    if (!*named)
      return Failure{named->error()};
    return Disassembler{(*named)->path, kind_of((*named)->path), (*named)->how};
  }
  std::vector<std::pair<fs::path, std::string>> places;
  if (!search.ptxas_path.empty())
    places.emplace_back(fs::path(search.ptxas_path).parent_path(), "next to ptxas");
  for (auto& dir : path_dirs(search.path_variable))
    places.emplace_back(std::move(dir), "PATH");
  if (!search.cuda_bin.empty())
    places.emplace_back(search.cuda_bin, search.cuda_bin);
  for (const auto& tool : tools)
    for (const auto& [dir, how] : places) {
      fs::path candidate = dir / tool.file;
      if (is_executable_file(candidate))
        return Disassembler{candidate, tool.kind, how};
    }
  std::string error = "no disassembler: neither cuobjdump nor nvdisasm was found";
  if (!search.ptxas_path.empty())
    error += " next to ptxas ('" + fs::path(search.ptxas_path).parent_path().string() + "'),";
  error += " on PATH";
  if (!search.cuda_bin.empty())
    error += " or in " + search.cuda_bin;
  error += "; pass --disassembler PATH or set PTXGEN_DISASSEMBLER (the CUDA toolkit has both; "
           "SASS cannot be shown without one)";
  return Failure{std::move(error)};
}

Fallible<Disassembler> locate_disassembler(const std::string& explicit_path,
                                           const std::string& ptxas_path) {
  DisassemblerSearch search;
  search.explicit_path = explicit_path;
  if (const char* env = std::getenv("PTXGEN_DISASSEMBLER"))
    search.env_value = env;
  search.ptxas_path = ptxas_path;
  if (search.ptxas_path.empty()) {
    if (auto ptxas = locate_ptxas(""))
      search.ptxas_path = ptxas->path.string();
  }
  if (const char* path = std::getenv("PATH"))
    search.path_variable = path;
  search.cuda_bin = std::string(default_cuda_bin);
  return locate_disassembler_in(search);
}

Fallible<std::string> disassemble(const Disassembler& d, const std::vector<std::uint8_t>& cubin,
                                  std::chrono::milliseconds timeout) {
  auto dir = TempDir::create("ptxgen-sass-");
  if (!dir)
    return Failure{dir.error()};
  fs::path file = dir->path() / "kernel.cubin";
  std::string_view bytes(reinterpret_cast<const char*>(cubin.data()), cubin.size());
  if (auto written = write_file_atomically(file, bytes); !written)
    return Failure{written.error()};
  std::vector<std::string> args;
  switch (d.kind) {
  case DisassemblerKind::cuobjdump:
    args = {"-sass", file.string()};
    break;
  case DisassemblerKind::nvdisasm:
    args = {"-c", file.string()};
    break;
  }
  ProcessOptions po;
  po.timeout = timeout;
  auto r = run_process(d.path, args, po);
  if (!r.succeeded())
    return Failure{d.path.string() + " " + r.describe() +
                   (r.output.empty() ? "" : ": " + r.output)};
  return std::move(r.output);
}

CubinScan scan_cubin(const std::vector<std::uint8_t>& cubin, const std::string& ptxas_path) {
  CubinScan scan;
  if (cubin.empty()) {
    scan.error = "no cubin to disassemble (the driver compiled the PTX: --jit)";
    return scan;
  }
  auto d = locate_disassembler("", ptxas_path);
  if (!d) {
    scan.error = d.error();
    return scan;
  }
  auto sass = disassemble(*d, cubin);
  if (!sass) {
    scan.error = sass.error();
    return scan;
  }
  scan.scanned = true;
  scan.traps = find_traps(parse_sass(*sass));
  return scan;
}

} // namespace ptxgen::driver::sass
