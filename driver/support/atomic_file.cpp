#include "driver/support/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxgen::driver {

namespace fs = std::filesystem;

static std::string describe(const fs::path& p, const char* what, int err) {
  return std::string("cannot ") + what + " '" + p.string() + "': " + std::strerror(err);
}

namespace {

/// Writes all of `contents` to `fd`; false with errno set when a write fails.
bool write_all(int fd, std::string_view contents) {
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

/// A target that exists and is neither a regular file nor a directory (/dev/null, /dev/stdout,
/// a FIFO): renaming over it would replace the device with a file, so it is written in place.
std::optional<Status> write_special(const fs::path& path, std::string_view contents) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
    return std::nullopt;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return Status(Failure{describe(path, "write", errno)});
  const bool ok = write_all(fd, contents);
  const int err = errno;
  if (::close(fd) != 0 || !ok)
    return Status(Failure{describe(path, "write", ok ? errno : err)});
  return Status{};
}

} // namespace

Status write_file_atomically(const fs::path& path, std::string_view contents) {
  if (auto special = write_special(path, contents))
    return *special;
  fs::path dir = path.parent_path();
  if (dir.empty())
    dir = ".";
  std::string tmpl = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0)
    return Failure{describe(path, "write", errno)};
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    return Status(Failure{describe(path, what, err)});
  };
  if (!write_all(fd, contents))
    return fail("write");
  if (::fsync(fd) != 0 && errno != EINVAL)
    return fail("write");
  // mkstemp creates 0600; give the output the usual 0644 less the umask.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return Failure{describe(path, "write", err)};
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return Failure{describe(path, "replace", err)};
  }
  return {};
}

Fallible<std::string> read_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    return Failure{"cannot read '" + path.string() + "': it is a directory"};
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Failure{describe(path, "read", errno ? errno : ENOENT)};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    return Failure{describe(path, "read", errno)};
  return std::move(ss).str();
}

} // namespace ptxgen::driver
