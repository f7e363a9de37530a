// Memory-efficiency figures: the bank and sector models and their collection.
// See profile.hpp and docs/profile.md.

#include "driver/sim/profile.hpp"

#include "emitter/support/enum_names.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iomanip>
#include <set>
#include <sstream>

namespace ptxgen::sim {

std::uint32_t lanes_per_phase(std::uint32_t bytes) {
  return wavefront_bytes / std::max(bytes, bank_bytes);
}

namespace {

using BankWords = std::array<std::set<std::uint64_t>, shared_banks>;

/// Per phase with an active lane, per bank: the distinct words its lanes touch.
std::map<std::uint32_t, BankWords> phase_words(std::span<const LaneAccess> lanes) {
  std::uint32_t widest = 0;
  for (const auto& a : lanes)
    widest = std::max(widest, a.bytes);
  const std::uint32_t per_phase = lanes_per_phase(widest);
  std::map<std::uint32_t, BankWords> phases;
  for (const auto& a : lanes) {
    auto& banks = phases[a.lane / per_phase];
    const std::uint64_t first = a.address / bank_bytes;
    const std::uint64_t last = (a.address + std::max(a.bytes, 1u) - 1) / bank_bytes;
    for (std::uint64_t w = first; w <= last; ++w)
      banks[w % shared_banks].insert(w);
  }
  return phases;
}

} // namespace

SharedCost shared_request_cost(std::span<const LaneAccess> lanes) {
  SharedCost c;
  for (const auto& [phase, banks] : phase_words(lanes)) {
    std::uint32_t most = 0;
    for (const auto& words : banks)
      most = std::max(most, static_cast<std::uint32_t>(words.size()));
    ++c.phases;
    c.wavefronts += most;
    c.ways = std::max(c.ways, most);
  }
  return c;
}

std::array<std::uint32_t, shared_banks> bank_ways(std::span<const LaneAccess> lanes) {
  std::array<std::uint32_t, shared_banks> ways{};
  for (const auto& [phase, banks] : phase_words(lanes))
    for (std::uint32_t b = 0; b < shared_banks; ++b)
      ways[b] = std::max(ways[b], static_cast<std::uint32_t>(banks[b].size()));
  return ways;
}

namespace {

/// The distinct bytes of the lanes' accesses, as [begin, end) runs in address order.
std::vector<std::pair<std::uint64_t, std::uint64_t>> byte_runs(std::span<const LaneAccess> lanes) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> r;
  for (const auto& a : lanes)
    if (a.bytes > 0)
      r.emplace_back(a.address, a.address + a.bytes);
  std::sort(r.begin(), r.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& run : r) {
    if (!merged.empty() && run.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, run.second);
    else
      merged.push_back(run);
  }
  return merged;
}

std::string json_text(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(ch));
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

/// Takes `lanes` as the row's worst request when it costs more than the one kept, or as
/// much and sorts first: the same request whatever the order CTAs merge in.
void keep_worst(ProfileRow& row, std::uint32_t worst, const std::vector<LaneAccess>& lanes) {
  if (row.worst_lanes.empty() || worst > row.worst ||
      (worst == row.worst && lanes < row.worst_lanes)) {
    row.worst = worst;
    row.worst_lanes = lanes;
  }
}

void add_row(ProfileRow& into, const ProfileRow& from) {
  if (into.requests == 0) {
    into.ptx_line = from.ptx_line;
    into.instruction = from.instruction;
    into.kind = from.kind;
  }
  into.requests += from.requests;
  into.lanes += from.lanes;
  into.units += from.units;
  into.ideal += from.ideal;
  keep_worst(into, from.worst, from.worst_lanes);
}

} // namespace

std::uint32_t global_request_sectors(std::span<const LaneAccess> lanes) {
  std::set<std::uint64_t> sectors;
  for (const auto& run : byte_runs(lanes))
    for (std::uint64_t s = run.first / sector_bytes; s <= (run.second - 1) / sector_bytes; ++s)
      sectors.insert(s);
  return static_cast<std::uint32_t>(sectors.size());
}

std::uint32_t global_ideal_sectors(std::span<const LaneAccess> lanes) {
  std::uint64_t bytes = 0;
  for (const auto& run : byte_runs(lanes))
    bytes += run.second - run.first;
  return static_cast<std::uint32_t>((bytes + sector_bytes - 1) / sector_bytes);
}

std::string_view name(AccessKind k) {
  static constexpr auto names = enum_names<AccessKind::global_async>(
      "ld.shared", "st.shared", "cp.async dst", "ld.global", "st.global", "cp.async src");
  return name_of(names, k);
}

bool is_shared(AccessKind k) {
  switch (k) {
  case AccessKind::shared_load:
  case AccessKind::shared_store:
  case AccessKind::shared_async:
    return true;
  case AccessKind::global_load:
  case AccessKind::global_store:
  case AccessKind::global_async:
    return false;
  }
  unreachable("is_shared(): not an AccessKind value");
}

ProfileReport::Totals ProfileReport::totals(bool shared) const {
  Totals t;
  for (const auto& r : rows) {
    if (is_shared(r.kind) != shared)
      continue;
    t.requests += r.requests;
    t.units += r.units;
    t.ideal += r.ideal;
  }
  return t;
}

void CtaProfile::access(std::uint32_t op, std::uint32_t line, std::string_view text,
                        AccessKind kind, std::uint32_t tid, std::uint32_t iteration,
                        std::uint64_t address, std::uint32_t bytes) {
  const std::uint32_t warp = tid / warp_lanes;
  ProfileRow& row = rows_[{op, kind}];
  if (row.instruction.empty()) {
    row.ptx_line = line;
    row.instruction = std::string(text);
    row.kind = kind;
  }
  const Key key{op, kind, warp, iteration};
  auto& lanes = pending_[key];
  lanes.push_back({tid % warp_lanes, address, bytes});
  // Complete when every lane of the warp has come: cost it now, keeping memory small.
  const std::uint64_t warp_size =
      std::min<std::uint64_t>(warp_lanes, threads_ - std::uint64_t{warp} * warp_lanes);
  if (lanes.size() == warp_size) {
    cost(key, lanes);
    pending_.erase(key);
  }
}

void CtaProfile::cost(const Key& key, const std::vector<LaneAccess>& lanes) {
  ProfileRow& row = rows_[{std::get<0>(key), std::get<1>(key)}];
  ++row.requests;
  row.lanes += lanes.size();
  if (is_shared(std::get<1>(key))) {
    const SharedCost c = shared_request_cost(lanes);
    row.units += c.wavefronts;
    row.ideal += c.ideal();
    keep_worst(row, c.ways, lanes);
  } else {
    const std::uint32_t sectors = global_request_sectors(lanes);
    row.units += sectors;
    row.ideal += global_ideal_sectors(lanes);
    keep_worst(row, sectors, lanes);
  }
}

void CtaProfile::finish() {
  for (const auto& [key, lanes] : pending_)
    cost(key, lanes);
  pending_.clear();
}

void Profile::merge(CtaProfile& cta) {
  cta.finish();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [key, row] : cta.rows_)
    add_row(rows_[key], row);
  cta.rows_.clear();
}

ProfileReport Profile::report() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ProfileReport r;
  for (const auto& [key, row] : rows_)
    if (row.requests > 0)
      r.rows.push_back(row);
  std::stable_sort(r.rows.begin(), r.rows.end(), [](const ProfileRow& a, const ProfileRow& b) {
    return std::tie(a.ptx_line, a.kind) < std::tie(b.ptx_line, b.kind);
  });
  return r;
}

namespace {

std::string ratio(std::uint64_t units, std::uint64_t requests) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f",
                requests == 0 ? 0.0 : static_cast<double>(units) / static_cast<double>(requests));
  return buf;
}

} // namespace

void print_profile_legend(std::string_view ptx, std::ostream& out) {
  out << "profile columns (docs/profile.md):\n"
         "  line         the instruction's line in the PTX: "
      << ptx
      << "\n"
         "  instruction  that line's text\n"
         "  access       what the instruction touches: ld.shared, st.shared, cp.async dst\n"
         "               (shared), ld.global, st.global, cp.async src (global)\n"
         "  requests     warp requests: the executions of the instruction by one warp\n"
         "  per_req      shared: wavefronts per request; global: 32-byte sectors per request\n"
         "  ideal/req    the same with no bank conflict / perfectly coalesced\n"
         "  worst        the costliest single request: shared, the most distinct 4-byte\n"
         "               words one bank serves in one phase (1: conflict-free, n: an n-way\n"
         "               conflict); global, its sectors\n";
}

std::string shared_totals_text(const ProfileReport& r) {
  const auto s = r.totals(true);
  return "shared: " + std::to_string(s.requests) + " requests, " + std::to_string(s.units) +
         " wavefronts (ideal " + std::to_string(s.ideal) + ", " +
         std::to_string(s.units - s.ideal) + " from bank conflicts)";
}

void print_profile(const std::string& spec, const ProfileReport& r, std::ostream& out) {
  out << "profile: " << spec << '\n';
  if (r.rows.empty()) {
    out << "  no shared or global accesses by ld, st or cp.async\n";
    return;
  }
  out << "  line  access        requests  per_req  ideal/req  worst  instruction\n";
  for (const auto& row : r.rows) {
    out << "  " << std::right << std::setw(4) << row.ptx_line << "  " << std::left << std::setw(12)
        << name(row.kind) << std::right << std::setw(10) << row.requests << std::setw(9)
        << ratio(row.units, row.requests) << std::setw(11) << ratio(row.ideal, row.requests)
        << std::setw(7) << row.worst << "  " << row.instruction << '\n';
  }
  const auto g = r.totals(false);
  out << "  " << shared_totals_text(r) << "\n"
      << "  global: " << g.requests << " requests, " << g.units << " sectors (ideal " << g.ideal
      << ", " << ratio(g.units, g.requests) << " per request)\n";
}

std::string profile_json(const ProfileReport& r) {
  std::ostringstream j;
  j << "{\"rows\": [";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    j << (i ? ", " : "") << "{\"line\": " << row.ptx_line << ", \"access\": \"" << name(row.kind)
      << "\", \"instruction\": \"" << json_text(row.instruction)
      << "\", \"requests\": " << row.requests << ", \"lanes\": " << row.lanes << ", \""
      << (is_shared(row.kind) ? "wavefronts" : "sectors") << "\": " << row.units
      << ", \"ideal\": " << row.ideal << ", \"worst\": " << row.worst << "}";
  }
  const auto s = r.totals(true);
  const auto g = r.totals(false);
  j << "], \"shared\": {\"requests\": " << s.requests << ", \"wavefronts\": " << s.units
    << ", \"ideal\": " << s.ideal << ", \"conflicts\": " << s.units - s.ideal
    << "}, \"global\": {\"requests\": " << g.requests << ", \"sectors\": " << g.units
    << ", \"ideal\": " << g.ideal << "}}";
  return j.str();
}

} // namespace ptxgen::sim
