#pragma once
// The cubin cache: what ptxas returned for one (PTX text, ptxas version,
// target, flags), kept on disk so an unchanged kernel is never assembled twice.
//
// Layout: DIR/v1/XX/<64 hex digits>, one file per entry, keyed by SHA-256 over
// every input; DIR/v1/ptxas/<hex> remembers `ptxas --version` per ptxas file
// (path, size, mtime, inode). Each file is a header (magic, payload length,
// SHA-256 of the payload) and the payload; a file whose header does not match is
// a miss. Files are written to a temporary in the same directory and renamed,
// so processes sharing DIR only ever see whole entries.

#include "driver/ptxas/assembly.hpp"
#include "emitter/support/result.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ptxgen::driver {

/// Where the process's cache lives, from the environment: nullopt when
/// PTXGEN_NO_CACHE is set to anything but "" or "0"; else PTXGEN_CACHE_DIR, else
/// $XDG_CACHE_HOME/ptxgen, else $HOME/.cache/ptxgen (nullopt with neither).
std::optional<std::filesystem::path> cache_dir_from_environment();

/// The cache assemble() uses; none (the default) until set. The CLI sets it
/// from cache_dir_from_environment() unless --no-cache is given.
void set_process_cache_dir(std::optional<std::filesystem::path> dir);
std::optional<std::filesystem::path> process_cache_dir();

/// What an entry holds: exactly what ptxas returned.
struct CachedAssembly {
  AssembleResult::Status status = AssembleResult::Status::ok; ///< ok or rejected only
  int exit_code = 0;
  std::string raw_output;
  std::vector<std::uint8_t> cubin;
};

/// The in-memory layer, for a process without a cache directory (the Python module turns it
/// on): ptxas's results by the same key, for the life of the process, so that a second run of
/// an unchanged kernel starts no ptxas. Off by default, and off whatever is asked while
/// PTXGEN_NO_CACHE is set; turning it off empties it. A directory, when set, is used instead.
void set_process_memory_cache(bool on);
bool process_memory_cache();
/// The most entries the in-memory layer keeps (the oldest go first).
inline constexpr std::size_t max_memory_entries = 256;

/// Counters of this process's cache use (for tests and `--timings`).
struct CacheCounters {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t stores = 0;
  std::uint64_t corrupt = 0; ///< entries found torn or damaged (and treated as misses)
};
CacheCounters process_cache_counters();

/// The key of one assembly: SHA-256 over the PTX, the ptxas version text, and
/// ptxas's argument vector without its file names (target and every flag).
struct CacheKey {
  std::string hex;
};
CacheKey make_cache_key(std::string_view ptx, std::string_view ptxas_version,
                        const std::vector<std::string>& flags);

/// `ptxas --version`'s output, remembered per ptxas file in memory and in
/// `dir` (when given). nullopt when ptxas does not answer it within `timeout`
/// (exit status not 0, or nothing printed): such a ptxas is never cached.
std::optional<std::string> ptxas_version(const std::filesystem::path& ptxas,
                                         const std::optional<std::filesystem::path>& dir,
                                         std::chrono::milliseconds timeout);

/// Reads an entry; nullopt on a miss, an unreadable file or a damaged one.
std::optional<CachedAssembly> cache_lookup(const std::filesystem::path& dir, const CacheKey& key);
/// Writes an entry atomically; false (and nothing written) on failure, which
/// callers ignore: the cache is an optimisation.
bool cache_store(const std::filesystem::path& dir, const CacheKey& key, const CachedAssembly& a);

/// The in-memory layer's entry, or nullopt (counted as a miss); and storing one (nothing
/// while the layer is off).
std::optional<CachedAssembly> memory_cache_lookup(const CacheKey& key);
void memory_cache_store(const CacheKey& key, const CachedAssembly& a);

/// The whole-file format, exposed for tests: header + payload, and back.
std::string encode_cache_file(std::string_view payload);
std::optional<std::string> decode_cache_file(std::string_view file);

struct CacheStats {
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
};
/// Counts entries (not the ptxas version records) under `dir`.
CacheStats cache_stats(const std::filesystem::path& dir);
/// Removes every entry and version record; returns how many files it removed.
Fallible<std::uint64_t> cache_clear(const std::filesystem::path& dir);

} // namespace ptxgen::driver
