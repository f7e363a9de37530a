#include "driver/ptxas/fatbinary.hpp"

#include "driver/ptxas/locate.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/process.hpp"
#include "driver/support/temp_dir.hpp"

#include <cstdlib>
#include <fstream>
#include <string_view>

namespace ptxgen::driver {

namespace fs = std::filesystem;

Fallible<fs::path> locate_fatbinary(const fs::path& ptxas) {
  const fs::path beside = ptxas.parent_path() / "fatbinary";
  if (is_executable_file(beside))
    return beside;
  if (const char* path = std::getenv("PATH")) {
    std::string_view rest = path;
    while (true) {
      const auto colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      const fs::path candidate = fs::path(dir.empty() ? std::string_view(".") : dir) / "fatbinary";
      if (is_executable_file(candidate))
        return candidate;
      if (colon == std::string_view::npos)
        break;
      rest.remove_prefix(colon + 1);
    }
  }
  return Failure{"fatbinary not found beside '" + ptxas.string() +
                 "' nor on PATH: several --arch values with -o need the CUDA toolkit's fatbinary"};
}

std::string fatbinary_sm(const ptx::Target& arch) {
  const std::string s = arch.str();
  return s.substr(s.find('_') + 1);
}

std::vector<std::string> fatbinary_args(const std::vector<FatImage>& images,
                                        const std::vector<fs::path>& files,
                                        const fs::path& output) {
  std::vector<std::string> args = {"--create=" + output.string(), "-64"};
  for (std::size_t i = 0; i < images.size(); ++i)
    args.push_back(std::string("--image3=kind=") + (images[i].is_ptx ? "ptx" : "elf") +
                   ",sm=" + fatbinary_sm(images[i].arch) + ",file=" + files[i].string());
  return args;
}

Fallible<std::string> make_fatbinary(const fs::path& fatbinary, const std::vector<FatImage>& images,
                                     std::chrono::milliseconds timeout) {
  auto dir = TempDir::create("ptxgen-fatbin-");
  if (!dir)
    return Failure{dir.error()};
  std::vector<fs::path> files;
  for (std::size_t i = 0; i < images.size(); ++i) {
    const auto& image = images[i];
    files.push_back(dir->path() / (std::to_string(i) + "." + image.arch.str() +
                                   (image.is_ptx ? ".ptx" : ".cubin")));
    const std::string_view bytes(reinterpret_cast<const char*>(image.bytes.data()),
                                 image.bytes.size());
    if (auto written = write_file_atomically(files.back(), bytes); !written)
      return Failure{written.error()};
  }
  const fs::path output = dir->path() / "out.fatbin";
  ProcessOptions options;
  options.timeout = timeout;
  const ProcessResult r = run_process(fatbinary, fatbinary_args(images, files, output), options);
  if (!r.succeeded()) {
    std::string error = "fatbinary '" + fatbinary.string() + "' " + r.describe();
    if (!r.output.empty())
      error += "; its output was:\n" + r.output;
    return Failure{std::move(error)};
  }
  auto contents = read_file(output);
  if (contents && contents->empty())
    return Failure{"fatbinary '" + fatbinary.string() + "' exited with status 0 but wrote nothing"};
  return contents;
}

} // namespace ptxgen::driver
