// driver::write_file_atomically: a regular file is replaced whole, and a target that is not a
// regular file stays what it is (renaming a temporary over /dev/null, as root, replaced it with
// a regular file and broke every later reader of it; a FIFO stands in for it here).

#include "driver/support/atomic_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace unit_support_atomic_file {

namespace fs = std::filesystem;

TEST_CASE("write_file_atomically: a regular file is replaced, no temporary left") {
  const fs::path dir = fs::temp_directory_path() / ("ptxgen-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "out.txt";
  { std::ofstream(file) << "old contents, longer than the new"; }
  REQUIRE(ptxgen::driver::write_file_atomically(file, "new"));
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == "new");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 1);
  fs::remove_all(dir);
}

TEST_CASE("write_file_atomically: a FIFO is written in place and stays a FIFO") {
  // As /dev/null: a target that is not a regular file. The reader opens first (non-blocking),
  // so the writer's open does not wait; renaming over the FIFO would leave it nothing to read.
  const fs::path dir = fs::temp_directory_path() / ("ptxgen-fifo-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reader >= 0);
  CHECK(ptxgen::driver::write_file_atomically(fifo, "through the pipe"));
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  CHECK(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0) == "through the pipe");
  struct stat st {};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  fs::remove_all(dir);
}

} // namespace unit_support_atomic_file
