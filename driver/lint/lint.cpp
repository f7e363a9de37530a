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

/// Parses `text` and lints `names` (or every entry) of it; `is_func` marks them .funcs.
void lint_entries(std::string_view text, const std::string& file, const Options& options,
                  const std::optional<std::string>& only, bool is_func,
                  std::vector<KernelReport>& out) {
  auto program = sim::Program::parse(text);
  if (!program) {
    out.push_back(
        failed(file, only.value_or(""), KernelStatus::error,
               "the simulator cannot parse the file:\n" + program.diagnostics.format_all()));
    return;
  }
  if (!options.arch.empty() && sm_number(program->target()) > sm_number(options.arch)) {
    out.push_back(failed(file, only.value_or(""), KernelStatus::error,
                         "the file's .target " + program->target() + " is newer than --arch " +
                             options.arch));
    return;
  }
  const std::vector<std::string> entries = program->entries();
  if (only && std::find(entries.begin(), entries.end(), *only) == entries.end()) {
    std::string names;
    for (const auto& n : entries)
      names += (names.empty() ? "" : ", ") + n;
    out.push_back(failed(file, *only, KernelStatus::usage,
                         "no entry `" + *only + "` in the file (entries: " + names + ")"));
    return;
  }
  for (const auto& name : entries) {
    if (only && name != *only)
      continue;
    KernelReport r = detail::lint_kernel(*program, text, name, options);
    r.file = file;
    r.is_func = is_func;
    out.push_back(std::move(r));
  }
}

/// A file with no `.entry`: each `.func` it defines runs as an entry of the launch given.
void lint_funcs(std::string_view text, const std::string& file, const Options& options,
                std::vector<KernelReport>& out) {
  const std::vector<detail::FuncDef> funcs = detail::defined_funcs(text);
  std::string names;
  for (const auto& f : funcs)
    names += (names.empty() ? "" : ", ") + f.name;
  if (funcs.empty()) {
    out.push_back(failed(file, "", KernelStatus::error,
                         "the file declares no .entry and defines no .func: nothing to lint"));
    return;
  }
  if (!options.block) {
    out.push_back(
        failed(file, "", KernelStatus::usage,
               "the file declares no .entry; lint runs each .func it defines (" + names +
                   ") as an entry whose parameters are the function's, with the launch you give: "
                   "--block X[,Y[,Z]] (and --grid, --arg NAME=VALUE for its scalar parameters, "
                   "--entry NAME for one function)"));
    return;
  }
  bool found = false;
  for (const auto& f : funcs) {
    if (options.entry && f.name != *options.entry)
      continue;
    found = true;
    if (f.returns) {
      out.push_back(failed(file, f.name, KernelStatus::unsupported,
                           "`" + f.name +
                               "` returns a value, which an entry cannot: lint it through an "
                               "entry that calls it"));
      continue;
    }
    lint_entries(detail::as_entry(text, f), file, options, f.name, true, out);
  }
  if (!found)
    out.push_back(
        failed(file, *options.entry, KernelStatus::usage,
               "no .func `" + *options.entry + "` in the file (functions: " + names + ")"));
}

} // namespace

std::vector<KernelReport> lint_text(std::string_view ptx_text, const std::string& file,
                                    const Options& options) {
  std::vector<KernelReport> out;
  if (detail::has_entry(ptx_text))
    lint_entries(ptx_text, file, options, options.entry, false, out);
  else
    lint_funcs(ptx_text, file, options, out);
  return out;
}

std::optional<std::string> unmatched_args(const std::vector<KernelReport>& kernels,
                                          const Options& options) {
  for (const ArgValue& a : options.args) {
    const bool matched = std::any_of(kernels.begin(), kernels.end(), [&](const KernelReport& k) {
      for (std::size_t i = 0; i < k.params.size(); ++i) {
        if (k.params[i].name == a.name || std::to_string(i) == a.name)
          return true;
      }
      return false;
    });
    if (matched)
      continue;
    std::string names;
    for (const KernelReport& k : kernels) {
      std::string list;
      for (std::size_t i = 0; i < k.params.size(); ++i)
        list += (i == 0 ? "" : ", ") + std::to_string(i) + " " + k.params[i].name;
      names += "\n  `" + k.name + "`: " + (list.empty() ? "no parameters" : list);
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
