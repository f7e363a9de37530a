#pragma once
// Races between CTAs on global memory (internal to driver/sim). A grid has no barrier: two
// CTAs that touch the same global bytes, one of them writing, race unless something orders
// them. The only things that can are strong operations on global memory that read (atom, or
// ld with .relaxed / .acquire / .volatile: a flag one CTA sets and another polls), so an entry
// with none of them is checked (cross_cta_checked) and one with any is not (the simulator
// cannot tell which bytes such a flag guards). Strong accesses themselves (atom, red, strong
// ld / st) are never races.
//
// Each CTA logs its plain global accesses (CtaGlobalLog) while it runs; when it has finished,
// CrossCta compares the byte ranges it wrote and read with those of the CTAs before it in
// linear order (one owner per byte: its first writer, its first reader), and keeps the log to
// name the two accesses of a race. The CTAs' logs are
// compared in linear order whether they ran one after the other or on several host threads,
// so the race found, its kind and its two accesses are the same either way.
//
// Two CTAs writing the same bytes with the same values (every CTA storing a constant, say) is
// still a race in PTX's memory model, but the result is what either write gives: an observer
// (ptxgen lint) records it as cross_cta_same_value, a note, and a launch without one runs on.

#include "driver/sim/simulator.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptxgen::sim {
namespace ir {
struct Entry;
} // namespace ir
} // namespace ptxgen::sim

namespace ptxgen::sim::exec {

/// Whether the CTAs of entry `e` may race on global memory with nothing ordering them: it
/// has no strong operation that reads global memory (atom, or a strong ld).
bool cross_cta_checked(const ir::Entry& e);

/// One CTA's plain accesses of global memory, in the order they happened.
class CtaGlobalLog {
public:
  /// One access, or (once compacted) a run of accesses of `unit` bytes each, one per thread
  /// from `tid` on, at consecutive addresses, by the same op in the same iteration: thread
  /// tid + k accessed [addr + k unit, addr + (k+1) unit).
  struct Rec {
    std::uint64_t addr = 0;
    std::uint32_t n = 0;      ///< bytes of the whole run
    std::uint32_t unit = 0;   ///< bytes per access
    std::int32_t buffer = -1; ///< the global buffer holding [addr, addr+n)
    std::uint32_t tid = 0;    ///< the (first) thread (linear index in the CTA)
    std::uint32_t op = 0;     ///< the op's index in the entry
    std::uint32_t iteration = 0;
    std::uint64_t data = 0; ///< a write's bytes: at data()[data, data+n)
    bool write = false;
  };
  /// A read of [addr, addr+n) in `buffer`.
  void read(std::uint64_t addr, std::uint32_t n, std::int32_t buffer, std::uint32_t tid,
            std::uint32_t op, std::uint32_t iteration);
  /// A write of `bytes` (n of them) at addr.
  void write(std::uint64_t addr, std::uint32_t n, std::int32_t buffer, std::uint32_t tid,
             std::uint32_t op, std::uint32_t iteration, const std::uint8_t* bytes);
  const std::vector<Rec>& recs() const { return recs_; }
  const std::vector<std::uint8_t>& data() const { return data_; }
  /// Sorts the accesses by address (then write, thread, op, iteration) and
  /// joins the runs of consecutive threads (Rec): the common "thread t touches element t"
  /// then costs one Rec per warp-wide access pattern, not one per thread.
  void compact();

private:
  std::vector<Rec> recs_;
  std::vector<std::uint8_t> data_;
};

/// The launch's side: every CTA's log, compared in linear CTA order.
class CrossCta {
public:
  CrossCta(const ir::Entry& e, const Launch& l, const std::vector<GlobalBuffer>& mem);
  /// Compares CTA `bid`'s log (compacted) with the CTAs before it and keeps it. Without an observer
  /// the first race (cross_cta) comes back as a fault; with one every race is recorded there.
  std::optional<Fault> add(std::uint64_t bid, CtaGlobalLog log);

private:
  /// Global bytes [begin, end) first written (or read) by CTA `bid`.
  struct Span {
    std::uint64_t end = 0;
    std::uint64_t bid = 0;
  };
  using Spans = std::map<std::uint64_t, Span>; ///< by begin; never overlapping
  /// The first access of `bid`'s log (its recs sorted by address) that covers byte `b`, a
  /// write or a read as `write` says.
  /// The single access (a run's member) is returned.
  CtaGlobalLog::Rec covering(const CtaGlobalLog& log, std::uint64_t b, bool write) const;
  /// CTA `bid`'s span [lo, hi), its writes or reads as `write` says, against `owners` (the
  /// earlier CTAs' writes or reads, as `owner_writes` says): each overlap is a race, recorded
  /// or returned.
  std::optional<Fault> compare(std::uint64_t bid, const CtaGlobalLog& log, std::uint64_t lo,
                               std::uint64_t hi, bool write, const Spans& owners,
                               bool owner_writes);
  /// The race between `r` of CTA `bid` and `w` of CTA `other` on byte `b`: recorded, or
  /// returned as a fault.
  std::optional<Fault> conflict(std::uint64_t bid, const CtaGlobalLog& log,
                                const CtaGlobalLog::Rec& r, std::uint64_t other,
                                const CtaGlobalLog::Rec& w, std::uint64_t b);
  /// Adds [lo, hi) of CTA `bid` to `spans` where no earlier CTA holds it.
  static void claim(Spans& spans, std::uint64_t lo, std::uint64_t hi, std::uint64_t bid);
  std::string thread_text(std::uint64_t bid, std::int64_t tid) const;

  const ir::Entry& e_;
  const Launch& l_;
  const std::vector<GlobalBuffer>& mem_;
  Spans writes_, reads_;
  std::unordered_map<std::uint64_t, CtaGlobalLog> logs_; ///< by CTA, recs sorted by address
};

} // namespace ptxgen::sim::exec
