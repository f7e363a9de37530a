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

bool write_file_atomically(const fs::path& path, std::string_view contents, std::string& error) {
  fs::path dir = path.parent_path();
  if (dir.empty())
    dir = ".";
  std::string tmpl = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    error = describe(path, "write", errno);
    return false;
  }
  auto fail = [&](const char* what) {
    int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    error = describe(path, what, err);
    return false;
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
    error = describe(path, "write", err);
    return false;
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    error = describe(path, "replace", err);
    return false;
  }
  return true;
}

bool read_file(const fs::path& path, std::string& contents, std::string& error) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    error = "cannot read '" + path.string() + "': it is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = describe(path, "read", errno ? errno : ENOENT);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    error = describe(path, "read", errno);
    return false;
  }
  contents = std::move(ss).str();
  return true;
}

} // namespace ptxgen::driver
