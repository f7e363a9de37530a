#include "driver/ptxas/declared_target.hpp"

#include <sstream>
#include <string>

namespace ptxgen::driver {

std::optional<ptx::Target> declared_target(std::string_view ptx) {
  std::istringstream lines{std::string(ptx)};
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string directive, value;
    words >> directive >> value;
    if (directive != ".target")
      continue;
    value = value.substr(0, value.find_first_of(",;"));
    return ptx::Target::parse(value);
  }
  return std::nullopt;
}

} // namespace ptxgen::driver
