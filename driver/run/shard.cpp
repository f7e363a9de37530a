#include "driver/run/shard.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <thread>

namespace ptxgen::driver {

namespace fs = std::filesystem;

bool contains(Shard s, std::size_t i) {
  return i % s.count == s.index;
}

bool sharded(Shard s) {
  return s.count > 1;
}

std::string str(Shard s) {
  return std::to_string(s.index) + "/" + std::to_string(s.count);
}

namespace {

/// A decimal number of at most 9 digits (no sign, no spaces); nullopt otherwise.
std::optional<unsigned> decimal(std::string_view text) {
  if (text.empty() || text.size() > 9)
    return std::nullopt;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return value;
}

/// The shard the environment asks for; nullopt when it asks none.
Fallible<std::optional<Shard>> shard_from_environment(const Environment& env) {
  const auto index = env(shard_index_variable);
  const auto total = env(total_shards_variable);
  if (!index && !total)
    return std::optional<Shard>();
  if (!index || !total)
    return Failure{std::string(index ? total_shards_variable : shard_index_variable) +
                   " is not set, but " + (index ? shard_index_variable : total_shards_variable) +
                   " is: set both or neither"};
  auto s = parse_shard(*index + "/" + *total);
  if (!s)
    return Failure{std::string(shard_index_variable) + "=" + *index + ", " + total_shards_variable +
                   "=" + *total + ": " + s.error()};
  return std::optional<Shard>(*s);
}

/// Creates the file or updates its time, as `touch` does.
Status touch(const fs::path& path) {
  {
    std::ofstream f(path, std::ios::app);
    if (!f)
      return Failure{"cannot touch " + std::string(shard_status_variable) + " '" + path.string() +
                     "'"};
  }
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
  if (ec)
    return Failure{"cannot touch " + std::string(shard_status_variable) + " '" + path.string() +
                   "': " + ec.message()};
  return {};
}

} // namespace

Fallible<Shard> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos)
    return Failure{"expected INDEX/COUNT (e.g. 0/4), got '" + std::string(text) + "'"};
  const auto index = decimal(text.substr(0, slash));
  const auto count = decimal(text.substr(slash + 1));
  if (!index || !count)
    return Failure{"expected INDEX/COUNT with decimal numbers (e.g. 0/4), got '" +
                   std::string(text) + "'"};
  if (*count == 0)
    return Failure{"the shard count must be at least 1, got '" + std::string(text) + "'"};
  if (*index >= *count)
    return Failure{"the shard index must be below the count (0 to " + std::to_string(*count - 1) +
                   "), got '" + std::string(text) + "'"};
  return Shard{*index, *count};
}

Fallible<DeviceChoice> parse_devices(std::string_view text) {
  DeviceChoice choice;
  if (text == "all") {
    choice.all = true;
    return choice;
  }
  std::size_t at = 0;
  for (;;) {
    const auto comma = text.find(',', at);
    const auto item = text.substr(at, comma == std::string_view::npos ? text.npos : comma - at);
    const auto ordinal = decimal(item);
    if (!ordinal || *ordinal > static_cast<unsigned>(std::numeric_limits<int>::max()))
      return Failure{"expected 'all' or device ordinals separated by commas (e.g. 0,2), got '" +
                     std::string(text) + "'"};
    const int o = static_cast<int>(*ordinal);
    if (std::find(choice.ordinals.begin(), choice.ordinals.end(), o) != choice.ordinals.end())
      return Failure{"device " + std::to_string(o) + " is listed twice in '" + std::string(text) +
                     "'"};
    choice.ordinals.push_back(o);
    if (comma == std::string_view::npos)
      return choice;
    at = comma + 1;
  }
}

Environment process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (v == nullptr)
      return std::nullopt;
    return std::string(v);
  };
}

std::optional<Distribution> resolve_distribution(const std::string& shard_flag,
                                                 const std::string& devices_flag,
                                                 const Environment& env, DistributionError& error) {
  Distribution d;
  error = {};
  std::optional<Shard> flag;
  if (!shard_flag.empty()) {
    auto parsed = parse_shard(shard_flag);
    if (!parsed) {
      error.message = "--shard: " + parsed.error();
      return std::nullopt;
    }
    flag = *parsed;
  }
  const auto env_shard = shard_from_environment(env);
  if (!env_shard) {
    error.message = env_shard.error();
    return std::nullopt;
  }
  const std::optional<Shard>& from_env = *env_shard;
  if (flag && from_env && !(*flag == *from_env)) {
    error.message = "--shard " + str(*flag) + " differs from the test runner's shard " +
                    str(*from_env) + " (" + shard_index_variable + ", " + total_shards_variable +
                    ")";
    return std::nullopt;
  }
  d.shard = flag ? *flag : from_env.value_or(Shard{});
  if (!devices_flag.empty()) {
    auto devices = parse_devices(devices_flag);
    if (!devices) {
      error.message = "--devices: " + devices.error();
      return std::nullopt;
    }
    d.devices = std::move(*devices);
  }
  d.junit_output = env(junit_output_variable).value_or("");
  if (const auto status = env(shard_status_variable); status && !status->empty()) {
    if (auto touched = touch(*status); !touched) {
      error.message = touched.error();
      error.kind = DistributionError::Kind::environment;
      return std::nullopt;
    }
  }
  return d;
}

void hand_out(std::size_t count, std::size_t workers, const RunWorker& run) {
  std::mutex queue; // guards next and failure
  std::size_t next = 0;
  std::exception_ptr failure;
  const NextItem take = [&]() -> std::optional<std::size_t> {
    std::lock_guard<std::mutex> lock(queue);
    if (next == count || failure)
      return std::nullopt;
    return next++;
  };
  if (workers <= 1) {
    run(0, take);
    return;
  }
  auto worker = [&](std::size_t w) {
    try {
      run(w, take);
    } catch (...) {
      std::lock_guard<std::mutex> lock(queue);
      if (!failure)
        failure = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back(worker, w);
  for (auto& t : threads)
    t.join();
  if (failure)
    std::rethrow_exception(failure);
}

} // namespace ptxgen::driver
