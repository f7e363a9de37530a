#pragma once
// Runs a batch of cases in forked child processes, as few as possible: one
// child takes the cases one at a time (the parent sends it each case's index
// over a socket) and streams each outcome back as a frame (frame.hpp) as soon
// as it is known; the parent reads the pipe with poll(), so it sees each case
// end and keeps a deadline per case. The cases come in order
// (run_batch_in_children) or from a source several devices share
// (run_queue_in_children).
//
// When a child stops early (it reports a case with `last` set, dies, or a case
// passes its deadline and the parent kills it), the parent records that case's
// outcome and forks a new child for the cases after it. So a fault or a hang
// costs its own case only, and cases without trouble share one child (one CUDA
// context), which is what makes a batch fast.
//
// The work runs in the child only, so state it creates there (a Runner, the
// CUDA driver) never reaches the parent: each new child starts from the
// parent's memory as it was at the fork. IsolatedRunner::launch_batch is the
// user; this layer knows nothing of CUDA, so tests can drive it with fake work.

#include "driver/cuda/runner.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver::cuda {

/// What the parent knows of one case.
struct BatchCase {
  std::string name; ///< names the case in the parent's own messages ("case NAME: ...")
  /// From the moment the child begins this case until its outcome arrives;
  /// past it the child is killed and the case is timed_out. Zero: no limit.
  std::chrono::milliseconds limit{0};
};

/// One case's result inside the child.
struct BatchStep {
  LaunchOutcome outcome;
  /// The child must exit after this case (its context is unusable); the
  /// parent continues with a new child.
  bool stop = false;
};

/// Called in the child, once per case it is given.
using BatchWork = std::function<BatchStep(std::size_t index)>;
/// Called in the parent as each case's outcome becomes known, in order.
using BatchDone = std::function<void(std::size_t index, const LaunchOutcome& outcome)>;

/// Runs every case of `cases` through `work` in children and returns the
/// outcomes in case order. Besides what `work` returns, a case yields:
/// fault "case X: the worker process was killed by signal 11 (...) before
/// reporting an outcome" when its child died during it; timed_out when it
/// passed its limit (the child is killed); launch_error when no child could be
/// started. A timed_out outcome from `work` gets " (the worker process was
/// ended, so later cases still run)" appended, and its child is killed.
std::vector<LaunchOutcome> run_batch_in_children(const std::vector<BatchCase>& cases,
                                                 const BatchWork& work,
                                                 const BatchDone& on_done = {});

/// Where the cases of a queue come from: called in the parent each time a child
/// is ready for another case; an index into the cases, or nullopt when none is
/// left. Several threads may share one (one per device), each with its children.
using BatchSource = std::function<std::optional<std::size_t>()>;
/// A source that hands out 0, 1, ..., count - 1 in order, then nullopt (a copy counts on its
/// own).
BatchSource in_order(std::size_t count);
/// Called in the parent as each case's outcome becomes known; may move from it.
using QueueDone = std::function<void(std::size_t index, LaunchOutcome& outcome)>;

/// Runs the cases `source` hands out, one at a time, through `work` in
/// children: the parent sends a child each case's index when it has the last
/// one's outcome, so a child lives, with its context, until a case stops it or
/// it dies or passes a limit (then its case gets the outcome described above and
/// a new child takes the next case), or `source` has nothing left. `cases`
/// gives each index's name and limit. run_batch_in_children is this with the
/// cases in order; with one source shared by several threads (one per device)
/// each case goes to whichever device asks first.
void run_queue_in_children(const std::vector<BatchCase>& cases, const BatchSource& source,
                           const BatchWork& work, const QueueDone& on_done);

/// "was killed by signal 11 (Segmentation fault)", "exited with status 3".
std::string describe_wait_status(int status);

} // namespace ptxgen::driver::cuda
