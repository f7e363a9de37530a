#pragma once
// The reference's findings while a launch runs: one per (op, id, kind), with the first
// instance's text and a count, and the naive order restored after a batch of accesses.

#include "driver/reference/ref_state.hpp"
#include "driver/reference/reference.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

namespace ptxgen::driver::evaluation {

/// Problems, aggregated per (op, id, kind): the first instance and a count.
class Problems {
public:
  /// `count`: the instances this call stands for (the bytes of a granule).
  void add(std::size_t op, DiagId id, const std::string& kind,
           const std::function<std::string()>& detail, Severity severity = Severity::error,
           std::int64_t count = 1) {
    ++adds_;
    auto [it, fresh] = index_.try_emplace({op, id, kind}, entries_.size());
    if (fresh) {
      entries_.push_back({op, id, kind, detail(), count, severity, tag_, false});
    } else {
      entries_[it->second].count += count;
    }
  }

  /// A problem that is the cause of others: reported once, without a count of the accesses
  /// that ran into it.
  void add_cause(std::size_t op, DiagId id, const std::string& kind,
                 const std::function<std::string()>& detail) {
    ++adds_;
    if (index_.try_emplace({op, id, kind}, entries_.size()).second) {
      entries_.push_back({op, id, kind, detail(), 1, Severity::error, tag_, true});
    }
  }

  /// A batch: several elements' reads, then their writes, where the naive order alternates
  /// (element 0's read, its write, element 1's read, ...). Each problem found first in the
  /// batch is tagged with its place in the naive order (tag(): element * 2 + phase), and
  /// end_batch() puts them in that order. Exact when no problem can come from both phases
  /// (the caller batches only where one side is a global tensor, which has no hazards).
  std::size_t begin_batch() const { return entries_.size(); }
  void tag(std::int64_t t) { tag_ = t; }
  void end_batch(std::size_t mark) {
    tag_ = 0;
    if (entries_.size() - mark < 2)
      return;
    std::stable_sort(entries_.begin() + static_cast<std::ptrdiff_t>(mark), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.tag < b.tag; });
    for (std::size_t i = mark; i < entries_.size(); ++i)
      index_[{entries_[i].op, entries_[i].id, entries_[i].kind}] = i;
  }

  /// How many findings (instances) were added so far: unchanged over a run, it found nothing.
  std::uint64_t adds() const { return adds_; }

  /// Each finding (errors and notes): its ID, its op and its text without the op's name.
  std::vector<ReferenceFinding> findings() const {
    std::vector<ReferenceFinding> out;
    for (const auto& e : entries_)
      out.push_back({e.id, e.op == kernel_level ? ReferenceOutput::kernel_problem : e.op, text(e),
                     e.severity});
    return out;
  }

  /// The op index of each line of lines(), in the same order.
  std::vector<std::size_t> ops() const {
    std::vector<std::size_t> out;
    for (const auto& e : entries_)
      if (e.severity == Severity::error)
        out.push_back(e.op == kernel_level ? ReferenceOutput::kernel_problem : e.op);
    return out;
  }

  /// The errors (not the notes), one line each, with the op's name.
  std::vector<std::string> lines(const tile::Kernel& k) const {
    std::vector<std::string> out;
    for (const auto& e : entries_) {
      if (e.severity != Severity::error) {
        continue;
      }
      std::string line;
      if (e.op == kernel_level) {
        line = "kernel";
      } else {
        const tile::Op& op = k.ops[e.op];
        line = tile::op_label(k, e.op);
        if (op.origin.role != tile::OpOrigin::Role::written) {
          out.push_back(line + ": " + text(e));
          continue;
        }
        line += " (" + std::string(tile::op_kind(op.body));
        if (op.pos.line != 0) {
          line += " at " + (op.pos.file.empty() ? k.file : op.pos.file) + ":" +
                  std::to_string(op.pos.line);
        }
        line += ")";
      }
      out.push_back(line + ": " + text(e));
    }
    return out;
  }

private:
  struct Entry {
    std::size_t op;
    DiagId id;
    std::string kind;
    std::string first;
    std::int64_t count;
    Severity severity;
    std::int64_t tag;   ///< its place in a batch (begin_batch)
    bool cause = false; ///< from add_cause: counted once
  };

  /// "kind: first instance (N times in all)".
  static std::string text(const Entry& e) {
    std::string s = e.kind;
    if (!e.first.empty()) {
      s += ": " + e.first;
    }
    if (e.count > 1) {
      s += " (" + std::to_string(e.count) + " times in all)";
    }
    return s;
  }

  std::vector<Entry> entries_;
  std::map<std::tuple<std::size_t, DiagId, std::string>, std::size_t> index_;
  std::int64_t tag_ = 0;
  std::uint64_t adds_ = 0;
};

} // namespace ptxgen::driver::evaluation
