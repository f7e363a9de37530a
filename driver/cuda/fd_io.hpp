#pragma once

#include <cstddef>
#include <string_view>

namespace ptxgen::driver::cuda {

/// Blocking transfers over the pipes and sockets between the parent and its worker
/// processes: each moves every byte, retrying on EINTR, and returns false at end of file or
/// on an error.

bool write_all(int fd, std::string_view bytes);
bool read_all(int fd, void* data, std::size_t n);
/// send() with MSG_NOSIGNAL: a socket whose peer is gone fails with EPIPE, never SIGPIPE.
bool send_all(int socket, const void* data, std::size_t n);

} // namespace ptxgen::driver::cuda
