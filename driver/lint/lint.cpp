// `ptxgen lint`: a file's kernels (lint.hpp): its entries, or the .funcs of a file with none.

#include "driver/lint/detail.hpp"

#include <algorithm>
#include <cctype>

namespace ptxgen::lint {

namespace {

KernelReport failed(const std::string& file, std::string name, KernelStatus status,
                    std::string error) {
  KernelReport r;
  r.file = file;
  r.name = std::move(name);
  r.status = status;
  r.error = std::move(error);
  return r;
}

/// The number of "sm_90a" (90); 0 when it is not one.
unsigned sm_number(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_")
    return 0;
  unsigned n = 0;
  for (std::size_t i = 3; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
    n = n * 10 + static_cast<unsigned>(arch[i] - '0');
  return n;
}

/// Where the kernel named `name` is: an entry, a .func that runs as one, or one that returns
/// a value (nullopt: none of them).
enum class Found : std::uint8_t { entry, func, returning };
std::optional<Found> find_kernel(const sim::Program& p, const std::string& name) {
  const sim::ir::Entry* e = p.find(name);
  if (e != nullptr)
    return e->from_func ? Found::func : Found::entry;
  for (const sim::ir::Entry& f : p.module().funcs) {
    if (f.defined && f.name == name)
      return Found::returning;
  }
  return std::nullopt;
}

/// A .func kernel: runs unless it returns a value.
LintFile::Kernel func_kernel(const std::string& file, const std::string& name, Found found) {
  LintFile::Kernel k{name, true, std::nullopt};
  if (found == Found::returning)
    k.refused = failed(file, name, KernelStatus::unsupported,
                       "`" + name +
                           "` returns a value, which an entry cannot: lint it through an entry "
                           "that calls it");
  if (k.refused)
    k.refused->is_func = true;
  return k;
}

/// A file with no `.entry`: each `.func` it defines runs as an entry of the launch given.
void pick_funcs(LintFile& f, const Options& options) {
  std::string names;
  for (const sim::ir::Entry& fn : f.program.module().funcs) {
    if (fn.defined)
      names += (names.empty() ? "" : ", ") + fn.name;
  }
  const auto refuse = [&](std::string name, KernelStatus status, std::string why) {
    f.kernels.push_back({name, false, failed(f.file, name, status, std::move(why))});
  };
  if (names.empty())
    return refuse("", KernelStatus::error,
                  "the file declares no .entry and defines no .func: nothing to lint");
  if (!options.block)
    return refuse("", KernelStatus::usage,
                  "the file declares no .entry; lint runs each .func it defines (" + names +
                      ") as an entry whose parameters are the function's, with the launch you "
                      "give: --block X[,Y[,Z]] (and --grid, --arg NAME=VALUE for its scalar "
                      "parameters, --entry NAME for one function)");
  for (const sim::ir::Entry& fn : f.program.module().funcs) {
    if (fn.defined && (!options.entry || fn.name == *options.entry))
      f.kernels.push_back(
          func_kernel(f.file, fn.name, fn.rets.empty() ? Found::func : Found::returning));
  }
  if (f.kernels.empty())
    refuse(*options.entry, KernelStatus::usage,
           "no .func `" + *options.entry + "` in the file (functions: " + names + ")");
}

} // namespace

LintFile read_ptx(std::string_view ptx_text, const std::string& file, const Options& options) {
  LintFile f;
  f.file = file;
  const std::string only = options.entry.value_or("");
  auto parsed = sim::Program::parse(ptx_text);
  if (!parsed) {
    f.kernels.push_back(
        {only, false,
         failed(file, only, KernelStatus::error,
                "the simulator cannot parse the file:\n" + parsed.diagnostics.format_all())});
    return f;
  }
  f.program = std::move(*parsed);
  if (!options.arch.empty() && sm_number(f.program.target()) > sm_number(options.arch)) {
    f.kernels.push_back({only, false,
                         failed(file, only, KernelStatus::error,
                                "the file's .target " + f.program.target() +
                                    " is newer than --arch " + options.arch)});
    return f;
  }
  const std::vector<std::string> entries = f.program.entries();
  if (entries.empty()) {
    pick_funcs(f, options);
    return f;
  }
  if (options.entry) { // an entry, or a .func of the file run as one
    const std::optional<Found> found = find_kernel(f.program, *options.entry);
    if (found == Found::entry) {
      f.kernels.push_back({*options.entry, false, std::nullopt});
    } else if (found) {
      if (!options.block)
        f.kernels.push_back({*options.entry, true,
                             failed(file, *options.entry, KernelStatus::usage,
                                    "`" + *options.entry +
                                        "` is a .func: lint runs it as an entry with the launch "
                                        "you give: --block X[,Y[,Z]]")});
      else
        f.kernels.push_back(func_kernel(file, *options.entry, *found));
    } else {
      std::string names;
      for (const auto& n : entries)
        names += (names.empty() ? "" : ", ") + n;
      f.kernels.push_back(
          {*options.entry, false,
           failed(file, *options.entry, KernelStatus::usage,
                  "no entry `" + *options.entry + "` in the file (entries: " + names + ")")});
    }
    return f;
  }
  for (const auto& name : entries)
    f.kernels.push_back({name, false, std::nullopt});
  return f;
}

std::vector<KernelReport> lint_file(const LintFile& file, const Options& options) {
  std::vector<KernelReport> out;
  for (const LintFile::Kernel& k : file.kernels) {
    if (k.refused) {
      out.push_back(*k.refused);
      continue;
    }
    KernelReport r = detail::lint_kernel(file.program, k.name, options);
    r.file = file.file;
    r.is_func = k.is_func;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<KernelReport> lint_text(std::string_view ptx_text, const std::string& file,
                                    const Options& options) {
  std::vector<LintFile> files;
  files.push_back(read_ptx(ptx_text, file, options));
  if (auto bad = unmatched_args(files, options))
    return {failed(file, options.entry.value_or(""), KernelStatus::usage, std::move(*bad))};
  return lint_file(files.front(), options);
}

std::optional<std::string> unmatched_args(const std::vector<LintFile>& files,
                                          const Options& options) {
  // The kernels that run, with their parameters as the reader declared them.
  std::vector<const sim::ir::Entry*> kernels;
  for (const LintFile& f : files) {
    for (const LintFile::Kernel& k : f.kernels) {
      if (!k.refused)
        kernels.push_back(f.program.find(k.name));
    }
  }
  for (const ArgValue& a : options.args) {
    const bool matched = std::any_of(kernels.begin(), kernels.end(), [&](const sim::ir::Entry* e) {
      for (std::size_t i = 0; i < e->params.size(); ++i) {
        if (e->params[i].name == a.name || std::to_string(i) == a.name)
          return true;
      }
      return false;
    });
    if (matched || kernels.empty())
      continue;
    std::string names;
    for (const sim::ir::Entry* e : kernels) {
      std::string list;
      for (std::size_t i = 0; i < e->params.size(); ++i)
        list += (i == 0 ? "" : ", ") + std::to_string(i) + " " + e->params[i].name;
      names += "\n  `" + e->name + "`: " + (list.empty() ? "no parameters" : list);
    }
    return "--arg " + a.name +
           " names no parameter (by name or index) of any kernel linted:" + names;
  }
  return std::nullopt;
}

int exit_status(const std::vector<KernelReport>& kernels) {
  const auto any = [&](KernelStatus s) {
    return std::any_of(kernels.begin(), kernels.end(),
                       [s](const KernelReport& k) { return k.status == s; });
  };
  if (any(KernelStatus::usage))
    return 2;
  if (any(KernelStatus::findings) || any(KernelStatus::error))
    return 1;
  if (any(KernelStatus::unsupported))
    return 4;
  return 0;
}

bool is_note(const Finding& f) {
  return f.kind == FindingKind::unsupported ||
         (f.kind == FindingKind::race &&
          (f.race_kind == sim::RaceKind::cross_cta_same_value ||
           f.race_kind == sim::RaceKind::write_after_write_same_value));
}

std::string kind_text(const Finding& f) {
  switch (f.kind) {
  case FindingKind::race:
    return std::string(sim::name(f.race_kind));
  case FindingKind::fault:
    return std::string(sim::name(f.fault_kind));
  case FindingKind::out_of_bounds:
    return "out of bounds";
  case FindingKind::uninitialized_read:
    return "uninitialized shared read";
  case FindingKind::unsupported:
    return "unsupported";
  }
  return "";
}

std::string rule_id(const Finding& f) {
  std::string words = kind_text(f);
  std::replace(words.begin(), words.end(), ' ', '-');
  std::transform(words.begin(), words.end(), words.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  switch (f.kind) {
  case FindingKind::race:
    return "race." + words;
  case FindingKind::fault:
    return "fault." + words;
  case FindingKind::out_of_bounds:
  case FindingKind::uninitialized_read:
  case FindingKind::unsupported:
    break;
  }
  return words;
}

} // namespace ptxgen::lint
