#include "driver/support/atomic_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxgen::driver {

namespace fs = std::filesystem;

static std::string describe(const fs::path& p, const char* what, int err) {
  return std::string("cannot ") + what + " '" + p.string() + "': " + std::strerror(err);
}

Status write_file_atomically(const fs::path& path, std::string_view contents) {
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
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail("write");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
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
