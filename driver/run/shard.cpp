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

/// A shard and the variables that gave it, for messages.
struct EnvShard {
  Shard shard;
  std::string from;
};

/// The test runners' shard; nullopt when they ask none.
Fallible<std::optional<EnvShard>> test_runner_shard(const Environment& env) {
  const auto index = env(shard_index_variable);
  const auto total = env(total_shards_variable);
  if (!index && !total)
    return std::optional<EnvShard>();
  if (!index || !total)
    return Failure{std::string(index ? total_shards_variable : shard_index_variable) +
                   " is not set, but " + (index ? shard_index_variable : total_shards_variable) +
                   " is: set both or neither"};
  const std::string from = std::string(shard_index_variable) + "=" + *index + ", " +
                           total_shards_variable + "=" + *total;
  auto s = parse_shard(*index + "/" + *total);
  if (!s)
    return Failure{from + ": " + s.error()};
  return std::optional<EnvShard>(EnvShard{*s, from});
}

/// The value of a scheduler's decimal variable: `fallback` when unset, a failure when not a
/// decimal number.
Fallible<std::optional<unsigned>> decimal_variable(const Environment& env, const char* name) {
  const auto v = env(name);
  if (!v)
    return std::optional<unsigned>();
  const auto d = decimal(*v);
  if (!d)
    return Failure{std::string(name) + "=" + *v + ": expected a decimal number"};
  return std::optional<unsigned>(*d);
}

/// The count a scheduler's index is out of: its own (Slurm's task count), `--shard-count`, or
/// both when they agree.
Fallible<unsigned> scheduler_count(std::optional<unsigned> own, const char* own_name,
                                   std::optional<unsigned> flag, const std::string& index_from) {
  if (own && flag && *own != *flag)
    return Failure{"--shard-count " + std::to_string(*flag) + " differs from " + own_name + "=" +
                   std::to_string(*own)};
  if (own)
    return *own;
  if (flag)
    return *flag;
  return Failure{index_from + " gives this task's index but not how many there are: give " +
                 "--shard-count COUNT (the job's task count)"};
}

/// A Slurm array task's shard; nullopt outside a job array.
Fallible<std::optional<EnvShard>> slurm_shard(const Environment& env,
                                              std::optional<unsigned> count_flag) {
  auto id = decimal_variable(env, slurm_task_id_variable);
  auto min = decimal_variable(env, slurm_task_min_variable);
  auto step = decimal_variable(env, slurm_task_step_variable);
  auto count = decimal_variable(env, slurm_task_count_variable);
  for (const auto* v : {&id, &min, &step, &count})
    if (!*v)
      return Failure{v->error()};
  if (!*id)
    return std::optional<EnvShard>();
  const unsigned first = min->value_or(0), stride = step->value_or(1);
  const std::string from = std::string(slurm_task_id_variable) + "=" + std::to_string(**id);
  if (stride == 0 || **id < first || (**id - first) % stride != 0)
    return Failure{from + " is not MIN + k * STEP (" + slurm_task_min_variable + "=" +
                   std::to_string(first) + ", " + slurm_task_step_variable + "=" +
                   std::to_string(stride) + "): an array given as a list has no shard index; " +
                   "give --shard INDEX/COUNT"};
  auto total = scheduler_count(*count, slurm_task_count_variable, count_flag, from);
  if (!total)
    return Failure{total.error()};
  auto s = parse_shard(std::to_string((**id - first) / stride) + "/" + std::to_string(*total));
  if (!s)
    return Failure{from + ": " + s.error()};
  return std::optional<EnvShard>(EnvShard{*s, from});
}

/// A Kubernetes Indexed Job's shard; nullopt outside one.
Fallible<std::optional<EnvShard>> k8s_shard(const Environment& env,
                                            std::optional<unsigned> count_flag) {
  auto index = decimal_variable(env, k8s_index_variable);
  if (!index)
    return Failure{index.error()};
  if (!*index)
    return std::optional<EnvShard>();
  const std::string from = std::string(k8s_index_variable) + "=" + std::to_string(**index);
  auto total = scheduler_count(std::nullopt, "", count_flag, from);
  if (!total)
    return Failure{total.error()};
  auto s = parse_shard(std::to_string(**index) + "/" + std::to_string(*total));
  if (!s)
    return Failure{from + ": " + s.error()};
  return std::optional<EnvShard>(EnvShard{*s, from});
}

/// The shard the environment asks for (nullopt when it asks none): every source that is set
/// must give the same one.
Fallible<std::optional<EnvShard>> shard_from_environment(const Environment& env,
                                                         std::optional<unsigned> count_flag) {
  std::optional<EnvShard> found;
  for (auto source :
       {test_runner_shard(env), slurm_shard(env, count_flag), k8s_shard(env, count_flag)}) {
    if (!source)
      return Failure{source.error()};
    if (!*source)
      continue;
    if (found && !(found->shard == (*source)->shard))
      return Failure{found->from + " gives shard " + str(found->shard) + ", but " +
                     (*source)->from + " gives " + str((*source)->shard)};
    if (!found)
      found = *source;
  }
  if (count_flag && !found)
    return Failure{"--shard-count takes the index from a scheduler, and none gives one (" +
                   std::string(slurm_task_id_variable) + ", " + k8s_index_variable +
                   "): give --shard INDEX/COUNT"};
  return found;
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

std::optional<Distribution> resolve_distribution(const DistributionFlags& flags,
                                                 const Environment& env, DistributionError& error) {
  Distribution d;
  error = {};
  std::optional<Shard> flag;
  if (!flags.shard.empty()) {
    auto parsed = parse_shard(flags.shard);
    if (!parsed) {
      error.message = "--shard: " + parsed.error();
      return std::nullopt;
    }
    flag = *parsed;
  }
  std::optional<unsigned> count_flag;
  if (!flags.shard_count.empty()) {
    count_flag = decimal(flags.shard_count);
    if (!count_flag || *count_flag == 0) {
      error.message =
          "--shard-count: expected a count of at least 1, got '" + flags.shard_count + "'";
      return std::nullopt;
    }
  }
  const auto env_shard = shard_from_environment(env, count_flag);
  if (!env_shard) {
    error.message = env_shard.error();
    return std::nullopt;
  }
  const std::optional<EnvShard>& from_env = *env_shard;
  if (flag && from_env && !(*flag == from_env->shard)) {
    error.message = "--shard " + str(*flag) + " differs from the environment's shard " +
                    str(from_env->shard) + " (" + from_env->from + ")";
    return std::nullopt;
  }
  d.shard = flag ? *flag : from_env ? from_env->shard : Shard{};
  if (!flags.devices.empty()) {
    auto devices = parse_devices(flags.devices);
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
