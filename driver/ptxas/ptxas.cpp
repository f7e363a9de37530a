#include "driver/ptxas/ptxas.hpp"

#include "driver/ptxas/cubin_cache.hpp"
#include "driver/ptxas/locate.hpp"
#include "driver/ptxas/ptxas_output.hpp"
#include "driver/support/process.hpp"
#include "driver/support/temp_dir.hpp"
#include "emitter/ptx/feature.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include <sys/stat.h>
#include <unistd.h>

namespace ptxgen::driver {

namespace fs = std::filesystem;

Status is_executable_file(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Failure{errno == ENOENT ? "it does not exist" : std::string(std::strerror(errno))};
  if (S_ISDIR(st.st_mode))
    return Failure{"it is a directory"};
  if (!S_ISREG(st.st_mode))
    return Failure{"it is not a regular file"};
  if (::access(path.c_str(), X_OK) != 0)
    return Failure{"it is not executable (" + std::string(std::strerror(errno)) + ")"};
  return {};
}

std::optional<Fallible<NamedExecutable>> named_executable(std::string_view option,
                                                          const std::string& option_value,
                                                          std::string_view variable,
                                                          const std::string& env_value) {
  const bool by_option = !option_value.empty();
  if (!by_option && env_value.empty())
    return std::nullopt;
  const std::string& path = by_option ? option_value : env_value;
  if (auto usable = is_executable_file(path); !usable)
    return Failure{(by_option ? std::string(option) + " '" : std::string(variable) + "='") + path +
                   "' is not an executable file: " + usable.error()};
  return NamedExecutable{path, std::string(by_option ? option : variable)};
}

Fallible<PtxasLocation> locate_ptxas_in(const PtxasSearch& search) {
  if (auto named =
          named_executable("--ptxas", search.explicit_path, "PTXGEN_PTXAS", search.env_value)) {
    if (!*named)
      return Failure{named->error()};
    return PtxasLocation{(*named)->path, (*named)->how};
  }
  if (!search.configured.empty() && is_executable_file(search.configured))
    return PtxasLocation{search.configured, "the CUDA toolkit found at configure time"};
  std::string_view rest = search.path_variable;
  while (!search.path_variable.empty()) {
    auto colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    fs::path candidate = fs::path(dir.empty() ? std::string_view(".") : dir) / "ptxas";
    if (is_executable_file(candidate))
      return PtxasLocation{candidate, "PATH"};
    if (colon == std::string_view::npos)
      break;
    rest.remove_prefix(colon + 1);
  }
  std::string error =
      "ptxas not found: pass --ptxas PATH, set PTXGEN_PTXAS, or put the CUDA toolkit's "
      "bin directory on PATH (looked in ";
  if (!search.configured.empty())
    error += "'" + search.configured + "' and ";
  error += "PATH)";
  return Failure{std::move(error)};
}

Fallible<PtxasLocation> locate_ptxas(const std::string& explicit_path) {
  PtxasSearch search;
  search.explicit_path = explicit_path;
  if (const char* env = std::getenv("PTXGEN_PTXAS"))
    search.env_value = env;
#ifdef PTXGEN_CONFIGURED_PTXAS
  search.configured = PTXGEN_CONFIGURED_PTXAS;
#endif
  if (const char* path = std::getenv("PATH"))
    search.path_variable = path;
  return locate_ptxas_in(search);
}

namespace {

/// The last `max` bytes of ptxas's output, trimmed, for a description.
std::string excerpt(const std::string& raw, std::size_t max = 2000) {
  std::string_view s = raw;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' '))
    s.remove_suffix(1);
  if (s.size() <= max)
    return std::string(s);
  return "..." + std::string(s.substr(s.size() - max));
}

std::string duration_text(std::chrono::milliseconds ms) {
  if (ms.count() % 1000 == 0)
    return std::to_string(ms.count() / 1000) + " s";
  return std::to_string(ms.count()) + " ms";
}

PtxasMessage note(std::string text) {
  PtxasMessage m;
  m.text = std::move(text);
  return m;
}

std::string format_message(const PtxasMessage& m) {
  std::string out = m.line ? "line " + std::to_string(m.line) + ": " : std::string();
  out += m.is_error ? "" : "warning: ";
  out += m.text;
  if (!m.ptx_line.empty()) {
    std::string_view code = m.ptx_line;
    while (!code.empty() && (code.front() == ' ' || code.front() == '\t'))
      code.remove_prefix(1);
    out += "\n      ";
    out += code;
  }
  return out;
}

} // namespace

std::string AssembleResult::describe() const {
  std::string out;
  switch (status) {
  case Status::ok: {
    out = "ptxas accepted the PTX";
    std::size_t warnings = 0;
    for (const auto& m : messages)
      warnings += m.is_error ? 0 : 1;
    if (warnings == 0)
      return out;
    out += " with " + std::to_string(warnings) + (warnings == 1 ? " warning:" : " warnings:");
    for (const auto& m : messages)
      if (!m.is_error)
        out += "\n  " + format_message(m);
    return out;
  }
  case Status::rejected: {
    out = "ptxas rejected the PTX (exit status " + std::to_string(exit_code) + ")";
    bool real = false;
    for (const auto& m : messages)
      real = real || !is_abort_summary(m);
    if (!real && messages.empty()) {
      std::string text = excerpt(raw_output);
      out += text.empty() ? " and printed nothing"
                          : " without a message ptxgen recognises; its output was:\n" + text;
      return out;
    }
    out += ":";
    for (const auto& m : messages)
      if (!real || !is_abort_summary(m))
        out += "\n  " + format_message(m);
    return out;
  }
  case Status::failed_to_start:
  case Status::crashed:
  case Status::timed_out:
  case Status::io_error: {
    out = messages.empty() ? "ptxas failed" : messages.front().text;
    std::string text = excerpt(raw_output);
    if (status != Status::failed_to_start && !text.empty())
      out += "; its output was:\n" + text;
    return out;
  }
  }
  return "ptxas ended in an unknown state";
}

namespace {

/// ptxas's arguments before the file names, and after them.
std::vector<std::string> ptxas_flags(const AssembleOptions& options) {
  std::vector<std::string> args;
  args.push_back("-arch=" + options.target.str());
  if (options.verbose)
    args.push_back("-v");
  return args;
}

/// Runs ptxas once, without the cache.
AssembleResult run_ptxas(const fs::path& ptxas, std::string_view ptx,
                         const AssembleOptions& options) {
  AssembleResult r;
  auto io_error = [&](std::string text) {
    r.status = AssembleResult::Status::io_error;
    r.messages.insert(r.messages.begin(), note(std::move(text)));
    return r;
  };

  // The directory (and everything ptxas wrote in it) goes away with `dir`,
  // whichever way this function returns.
  auto dir = TempDir::create("ptxgen-ptxas-");
  if (!dir)
    return io_error(dir.error());
  const fs::path ptx_path = dir->path() / "kernel.ptx";
  const fs::path cubin_path = dir->path() / "out.cubin";
  {
    std::ofstream out(ptx_path, std::ios::binary);
    out.write(ptx.data(), static_cast<std::streamsize>(ptx.size()));
    out.close();
    if (!out)
      return io_error("cannot write the PTX to '" + ptx_path.string() + "'");
  }

  std::vector<std::string> args = ptxas_flags(options);
  args.push_back("-o");
  args.push_back(cubin_path.string());
  args.push_back(ptx_path.string());
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());

  ProcessOptions process_options;
  process_options.timeout = options.timeout;
  ProcessResult p = run_process(ptxas, args, process_options);
  r.raw_output = std::move(p.output);
  r.seconds = p.seconds;

  switch (p.status) {
  case ProcessResult::Status::failed_to_start:
    r.status = AssembleResult::Status::failed_to_start;
    r.messages.push_back(
        note("could not start ptxas '" + ptxas.string() + "': " + std::strerror(p.error_number)));
    return r;
  case ProcessResult::Status::timed_out:
    r.status = AssembleResult::Status::timed_out;
    r.messages.push_back(note("ptxas '" + ptxas.string() + "' did not finish within " +
                              duration_text(options.timeout) + " and was killed"));
    return r;
  case ProcessResult::Status::signaled:
    r.status = AssembleResult::Status::crashed;
    r.exit_code = 128 + p.signal; // the shell's convention, so a crash is never 0
    r.messages.push_back(note("ptxas '" + ptxas.string() + "' crashed: killed by signal " +
                              std::to_string(p.signal) + " (" + signal_name(p.signal) + ")"));
    return r;
  case ProcessResult::Status::exited:
    break;
  }

  r.exit_code = p.exit_code;
  r.messages = parse_ptxas_messages(r.raw_output, ptx);
  if (p.exit_code != 0) {
    r.status = AssembleResult::Status::rejected;
    return r;
  }
  if (options.verbose)
    r.usage = parse_resource_usage(r.raw_output);

  std::string contents;
  std::error_code ec;
  if (!fs::is_regular_file(cubin_path, ec))
    return io_error("ptxas '" + ptxas.string() + "' exited with status 0 but wrote no cubin");
  if (options.keep_cubin) {
    std::ifstream in(cubin_path, std::ios::binary);
    contents.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof())
      return io_error("cannot read the cubin ptxas wrote at '" + cubin_path.string() + "'");
    if (contents.empty())
      return io_error("ptxas '" + ptxas.string() +
                      "' exited with status 0 but wrote an empty cubin");
    r.cubin.assign(contents.begin(), contents.end());
  }
  return r;
}

/// What a hit gives back: the result ptxas returned, messages and usage parsed again.
AssembleResult from_cache(CachedAssembly a, std::string_view ptx, const AssembleOptions& options) {
  AssembleResult r;
  r.status = a.status;
  r.exit_code = a.exit_code;
  r.raw_output = std::move(a.raw_output);
  r.cubin = std::move(a.cubin);
  r.messages = parse_ptxas_messages(r.raw_output, ptx);
  if (r.status == AssembleResult::Status::ok && options.verbose)
    r.usage = parse_resource_usage(r.raw_output);
  return r;
}

} // namespace

AssembleResult assemble(const fs::path& ptxas, std::string_view ptx,
                        const AssembleOptions& options) {
  const std::optional<fs::path> dir = process_cache_dir();
  if (!dir && !process_memory_cache())
    return run_ptxas(ptxas, ptx, options);
  const std::optional<std::string> version = ptxas_version(ptxas, dir, options.timeout);
  if (!version)
    return run_ptxas(ptxas, ptx, options);
  std::vector<std::string> flags = ptxas_flags(options);
  flags.insert(flags.end(), options.extra_args.begin(), options.extra_args.end());
  flags.push_back(options.keep_cubin ? "keep-cubin" : "no-cubin");
  const CacheKey key = make_cache_key(ptx, *version, flags);
  if (auto hit = dir ? cache_lookup(*dir, key) : memory_cache_lookup(key))
    return from_cache(std::move(*hit), ptx, options);
  AssembleResult r = run_ptxas(ptxas, ptx, options);
  // Only ptxas's own verdicts are kept: a crash, a time-out or an I/O error may not recur.
  if (r.status == AssembleResult::Status::ok || r.status == AssembleResult::Status::rejected) {
    CachedAssembly a{r.status, r.exit_code, r.raw_output, r.cubin};
    if (dir)
      cache_store(*dir, key, a);
    else
      memory_cache_store(key, a);
  }
  return r;
}

AssembleResult self_test(const fs::path& ptxas, ptx::Target ptx_target, ptx::Target arch) {
  const std::string ptx =
      ".version " + ptx::min_version_for_target(ptx_target).str() + "\n.target " +
      ptx_target.str() + "\n.address_size 64\n\n.visible .entry ptxgen_self_test()\n{\n\tret;\n}\n";
  AssembleOptions options;
  options.target = arch;
  options.verbose = false;
  options.keep_cubin = false;
  return assemble(ptxas, ptx, options);
}

} // namespace ptxgen::driver
