#include "driver/cuda/frame.hpp"

#include "driver/cuda/wire.hpp"

#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>

namespace ptxgen::driver::cuda {
namespace {

constexpr std::size_t length_bytes = sizeof(std::uint64_t);
constexpr std::size_t header_bytes = sizeof(std::uint64_t) + 1; ///< index and `last`

template <class T>
void append_scalar(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

} // namespace

std::string frame_head(const BatchFrame& frame, std::size_t body_bytes) {
  std::string out;
  out.reserve(length_bytes + header_bytes);
  append_scalar<std::uint64_t>(out, header_bytes + body_bytes);
  append_scalar<std::uint64_t>(out, frame.index);
  append_scalar<std::uint8_t>(out, frame.last ? 1 : 0);
  return out;
}

std::string encode_frame(const BatchFrame& frame) {
  const std::string body = encode_outcome(frame.outcome);
  return frame_head(frame, body.size()) + body;
}

void FrameReader::feed(std::string_view bytes) {
  // Drop what was handed out once it is most of the buffer, so a long stream
  // of small frames does not keep growing it (nor get copied per frame).
  if (consumed_ > 0 && consumed_ * 2 >= buffer_.size()) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  buffer_.append(bytes);
  // Once a frame's length is known, room for all of it at once: a frame carrying a
  // 2 GiB tensor then grows the buffer once instead of doubling through fresh pages.
  const std::string_view rest = std::string_view(buffer_).substr(consumed_);
  if (rest.size() >= length_bytes) {
    std::uint64_t length = 0;
    std::memcpy(&length, rest.data(), length_bytes);
    // A length no frame can have (a damaged stream: next() calls it malformed) or
    // memory that is not there only skip the reservation.
    constexpr std::uint64_t most = std::uint64_t{1} << 40;
    const std::uint64_t want = consumed_ + length_bytes + length;
    if (length <= most && want > buffer_.capacity()) {
      try {
        buffer_.reserve(static_cast<std::size_t>(want));
      } catch (const std::bad_alloc&) {
      } catch (const std::length_error&) {
      }
    }
  }
}

FrameReader::Next FrameReader::next(BatchFrame& out) {
  const std::string_view rest = std::string_view(buffer_).substr(consumed_);
  if (rest.size() < length_bytes) {
    return Next::incomplete;
  }
  std::uint64_t length = 0;
  std::memcpy(&length, rest.data(), length_bytes);
  if (length < header_bytes) {
    return Next::malformed;
  }
  if (rest.size() - length_bytes < length) {
    return Next::incomplete;
  }
  const std::string_view payload = rest.substr(length_bytes, static_cast<std::size_t>(length));
  std::uint64_t index = 0;
  std::uint8_t last = 0;
  std::memcpy(&index, payload.data(), sizeof index);
  std::memcpy(&last, payload.data() + sizeof index, sizeof last);
  std::optional<LaunchOutcome> outcome = decode_outcome(payload.substr(header_bytes));
  if (last > 1 || !outcome) {
    return Next::malformed;
  }
  out.index = index;
  out.last = last == 1;
  out.outcome = std::move(*outcome);
  consumed_ += length_bytes + static_cast<std::size_t>(length);
  return Next::frame;
}

} // namespace ptxgen::driver::cuda
