#pragma once
// Length-prefixed frames that carry a batch's outcomes, one per case, from an
// IsolatedRunner child back to the parent through a pipe, as each case ends.
//
// A frame is [u64 payload length][payload]; the payload is [u64 request index]
// [u8 last][encode_outcome bytes] (wire.hpp). Native-endian, like wire.hpp:
// the same program writes and reads it. The parent reads the pipe in pieces of
// any size and feeds them to a FrameReader, which hands out whole frames only.

#include "driver/cuda/runner.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ptxgen::driver::cuda {

/// One case's outcome as a batch child reports it.
struct BatchFrame {
  std::uint64_t index = 0; ///< the request's position in the batch
  /// The child exits after this frame (a fault, a timeout, or its Runner
  /// became unavailable), so the parent starts a new one for the rest.
  bool last = false;
  LaunchOutcome outcome;
};

/// The frame, length prefix included.
std::string encode_frame(const BatchFrame& frame);
/// The bytes of encode_frame(frame) before its body (encode_outcome(frame.outcome), of
/// `body_bytes` bytes): a writer may send the two apart and spare a copy of the body.
std::string frame_head(const BatchFrame& frame, std::size_t body_bytes);

/// Splits a byte stream into frames, whatever the pieces it arrives in.
class FrameReader {
public:
  /// What next() found.
  enum class Next : std::uint8_t {
    incomplete, ///< no whole frame buffered yet; feed more bytes
    frame,      ///< a frame was decoded into the argument and consumed
    malformed,  ///< a whole frame whose payload does not decode; the stream is unusable
  };

  /// Appends bytes read from the stream.
  void feed(std::string_view bytes);
  /// Takes the next whole frame, if one is buffered.
  Next next(BatchFrame& out);
  /// Bytes of a frame that has begun but not fully arrived (0 at a boundary):
  /// non-zero at end of stream means the writer died mid-frame.
  std::size_t partial_bytes() const { return buffer_.size() - consumed_; }

private:
  std::string buffer_;
  std::size_t consumed_ = 0; ///< bytes of buffer_ already handed out
};

} // namespace ptxgen::driver::cuda
