#pragma once
// `ptxgen report merge`: the JSON reports of a sharded campaign's jobs (`ptxgen fuzz
// --report`, `ptxgen run --report`, one per shard of `--shard I/C` or of a scheduler's job
// array) joined into the report one process would have written: counts summed, per-class
// tallies summed, findings de-duplicated and kept as the fuzzer keeps them (the lowest seeds of
// each class, `kept_per_class` of them), conformance cases in spec order.

#include "emitter/support/result.hpp"

#include <string>
#include <vector>

namespace ptxgen::fuzz {

/// One shard's report: where it was read from (for messages) and its text.
struct ReportText {
  std::string path;
  std::string text;
};

struct MergeOptions {
  /// Merge even when some shards of the count are missing (the result says which).
  bool allow_missing = false;
};

/// The merged report's JSON text. Fails, naming the file (and line:column for bad JSON), on
/// reports of different kinds, campaigns (seed, generator, shard count) or a shard given
/// twice, and on missing shards unless `allow_missing`.
Fallible<std::string> merge_reports(const std::vector<ReportText>& reports,
                                    const MergeOptions& options = {});

} // namespace ptxgen::fuzz
