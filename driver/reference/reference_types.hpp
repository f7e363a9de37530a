#pragma once
// What the reference is given and gives back (reference.hpp runs it), apart from the
// functions so that the evaluator's own header need not include its caller's.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptxgen::driver {

struct ReferenceInput {
  const tile::Kernel* kernel = nullptr;
  /// Initial bytes per global tensor name (missing ones start as zeros, with a problem).
  std::map<std::string, std::vector<std::uint8_t>> global;
  /// Locate a view's bytes through its affine form (affine_view.hpp) where it has one;
  /// false: always through naive_locate, the oracle the fast path is tested against.
  bool fast = true;
  /// On the fast path, a CTA whose shared-memory accesses (threads, bytes, order) and ops are
  /// those of an earlier CTA that ran with every ordering check and found nothing is replayed:
  /// its bytes move without the checks, which would find nothing either (driver/reference/
  /// cta_trace.hpp). Only where every apply copies global into shared, no global tensor is
  /// both read and written, and there are no mbarrier ops. false: every CTA runs every check.
  bool replay = true;
  /// The parameters' values, one per Kernel::params entry; empty: their test values.
  std::vector<std::uint64_t> param_values;
  /// false: the global tensors' values are neither held nor moved (`global` is not read and
  /// ReferenceOutput::global holds empty vectors), so the launch's memory is its shared
  /// tensors' and its pending copies', whatever the size of its global tensors. The findings
  /// are the same but one: none depends on a byte's value, only on which bytes are accessed,
  /// when and by whom, and on their definedness, which is kept (the ops' expressions read
  /// parameters, loop variables and the launch's indices, never memory). The exception: two
  /// CTAs writing the same global bytes with the same values do not race, which without the
  /// values cannot be shown, so such writes are reported (check_cross_cta_race). The
  /// whole-launch checks of kernels whose data is too large to hold run this way
  /// (range_proof.hpp).
  bool values = true;
};

/// One of the reference's findings, typed.
struct ReferenceFinding {
  DiagId id = DiagId::check_no_kernel;
  std::size_t op = 0;                  ///< the op it is about, or ReferenceOutput::kernel_problem
  std::string message;                 ///< what and the first instance, without the op's name
  Severity severity = Severity::error; ///< error: a problem; note: the spec is still valid
};

struct ReferenceOutput {
  /// Final bytes of every global tensor.
  std::map<std::string, std::vector<std::uint8_t>> global;
  /// Per byte of each global tensor: 0 when the byte came from uninitialised shared memory, else 1;
  /// empty when every byte of the tensor is defined (no per-byte vector for plain copies).
  std::map<std::string, std::vector<std::uint8_t>> defined;
  /// The reference's own problems (its error findings); empty for a correct kernel.
  std::vector<std::string> problems;
  /// For each problem, the index of the op it is about, or kernel_problem.
  std::vector<std::size_t> problem_ops;
  static constexpr std::size_t kernel_problem = static_cast<std::size_t>(-1);
  /// Every finding, typed, in the order found: the problems (one per line of `problems`, in
  /// the same order) and the notes (Severity::note), which are not problems.
  std::vector<ReferenceFinding> findings;
  /// The CTAs that were replayed (ReferenceInput::replay).
  std::int64_t replayed = 0;
};

} // namespace ptxgen::driver
