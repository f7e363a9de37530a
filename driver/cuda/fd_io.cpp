#include "driver/cuda/fd_io.hpp"

#include <cerrno>

#include <sys/socket.h>
#include <unistd.h>

namespace ptxgen::driver::cuda {
namespace {

/// Calls `step(done)` (which moves bytes from offset `done` on and returns how many, as
/// read/write/send do) until `n` bytes have moved.
template <class Step>
bool transfer_all(std::size_t n, Step step) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t moved = step(done);
    if (moved < 0 && errno == EINTR) {
      continue;
    }
    if (moved <= 0) {
      return false;
    }
    done += static_cast<std::size_t>(moved);
  }
  return true;
}

} // namespace

bool write_all(int fd, std::string_view bytes) {
  return transfer_all(bytes.size(), [&](std::size_t done) {
    return ::write(fd, bytes.data() + done, bytes.size() - done);
  });
}

bool read_all(int fd, void* data, std::size_t n) {
  auto* p = static_cast<char*>(data);
  return transfer_all(n, [&](std::size_t done) { return ::read(fd, p + done, n - done); });
}

bool send_all(int socket, const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  return transfer_all(
      n, [&](std::size_t done) { return ::send(socket, p + done, n - done, MSG_NOSIGNAL); });
}

} // namespace ptxgen::driver::cuda
