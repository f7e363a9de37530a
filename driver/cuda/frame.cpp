#include "driver/cuda/frame.hpp"

#include "driver/cuda/wire.hpp"

#include <cstring>
#include <optional>

namespace ptxgen::driver::cuda {
namespace {

constexpr std::size_t length_bytes = sizeof(std::uint64_t);
constexpr std::size_t header_bytes = sizeof(std::uint64_t) + 1; ///< index and `last`

template <class T>
void append_scalar(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

} // namespace

std::string encode_frame(const BatchFrame& frame) {
  const std::string body = encode_outcome(frame.outcome);
  std::string out;
  out.reserve(length_bytes + header_bytes + body.size());
  append_scalar<std::uint64_t>(out, header_bytes + body.size());
  append_scalar<std::uint64_t>(out, frame.index);
  append_scalar<std::uint8_t>(out, frame.last ? 1 : 0);
  out += body;
  return out;
}

void FrameReader::feed(std::string_view bytes) {
  // Drop what was handed out once it is most of the buffer, so a long stream
  // of small frames does not keep growing it (nor get copied per frame).
  if (consumed_ > 0 && consumed_ * 2 >= buffer_.size()) {
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }
  buffer_.append(bytes);
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
