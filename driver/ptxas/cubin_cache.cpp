#include "driver/ptxas/cubin_cache.hpp"

#include "driver/support/atomic_file.hpp" // read_file
#include "driver/support/process.hpp"
#include "driver/support/sha256.hpp"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptxgen::driver {

namespace fs = std::filesystem;

namespace {

/// The first bytes of every cache file; bumped with any change of format.
constexpr std::string_view kMagic = "PTXGENC1";
/// The subdirectory of the format version, so an old ptxgen never reads new files.
constexpr std::string_view kLayout = "v1";
constexpr std::string_view kVersionsDir = "ptxas";
constexpr std::size_t kLengthBytes = 8;
constexpr std::size_t kDigestBytes = 32;
constexpr std::size_t kHeaderBytes = kMagic.size() + kLengthBytes + kDigestBytes;

void put_u64(std::string& out, std::uint64_t v) {
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    out += static_cast<char>(static_cast<std::uint8_t>(v >> (8 * i)));
}

bool get_u64(std::string_view& in, std::uint64_t& v) {
  if (in.size() < kLengthBytes)
    return false;
  v = 0;
  for (std::size_t i = 0; i < kLengthBytes; ++i)
    v |= std::uint64_t(static_cast<std::uint8_t>(in[i])) << (8 * i);
  in.remove_prefix(kLengthBytes);
  return true;
}

void put_bytes(std::string& out, std::string_view bytes) {
  put_u64(out, bytes.size());
  out += bytes;
}

bool get_bytes(std::string_view& in, std::string_view& bytes) {
  std::uint64_t n = 0;
  if (!get_u64(in, n) || n > in.size())
    return false;
  bytes = in.substr(0, n);
  in.remove_prefix(n);
  return true;
}

struct Process {
  std::mutex mutex;
  std::optional<fs::path> dir;
  /// `ptxas --version` per (path, size, mtime ns, inode); nullopt: it gave none.
  std::map<std::tuple<std::string, std::uint64_t, std::int64_t, std::uint64_t>,
           std::optional<std::string>>
      versions;
  std::atomic<std::uint64_t> hits{0}, misses{0}, stores{0}, corrupt{0};
  /// The in-memory layer (set_process_memory_cache): entries by key, oldest first out.
  bool memory = false;
  std::map<std::string, CachedAssembly> entries;
  std::deque<std::string> order;
};

Process& process() {
  static Process p;
  return p;
}

fs::path entry_path(const fs::path& dir, const CacheKey& key) {
  return dir / kLayout / key.hex.substr(0, 2) / key.hex;
}

/// Writes a cache file: a temporary in the same directory, renamed over `path`.
/// Unlike write_file_atomically() there is no fsync: an entry torn by a crash
/// fails its header check and is a miss, so durability is not worth a disk
/// flush per ptxas run.
bool store_file(const fs::path& path, std::string_view payload) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    return false;
  const std::string file = encode_cache_file(payload);
  std::string tmp =
      (path.parent_path() / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    return false;
  std::string_view left = file;
  while (!left.empty()) {
    const ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    left.remove_prefix(static_cast<std::size_t>(n));
  }
  const bool written = left.empty() && ::close(fd) == 0;
  if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    if (!written && !left.empty())
      ::close(fd);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

std::optional<std::string> load_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return std::nullopt;
  auto contents = read_file(path);
  if (!contents)
    return std::nullopt;
  auto payload = decode_cache_file(*contents);
  if (!payload)
    ++process().corrupt;
  return payload;
}

bool is_set(const char* value) {
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

} // namespace

std::optional<fs::path> cache_dir_from_environment() {
  if (is_set(std::getenv("PTXGEN_NO_CACHE")))
    return std::nullopt;
  if (const char* d = std::getenv("PTXGEN_CACHE_DIR"); d && *d)
    return fs::path(d);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return fs::path(x) / "ptxgen";
  if (const char* h = std::getenv("HOME"); h && *h)
    return fs::path(h) / ".cache" / "ptxgen";
  return std::nullopt;
}

void set_process_cache_dir(std::optional<fs::path> dir) {
  std::lock_guard lock(process().mutex);
  process().dir = std::move(dir);
}

std::optional<fs::path> process_cache_dir() {
  std::lock_guard lock(process().mutex);
  return process().dir;
}

void set_process_memory_cache(bool on) {
  std::lock_guard lock(process().mutex);
  process().memory = on && !is_set(std::getenv("PTXGEN_NO_CACHE"));
  if (!process().memory) {
    process().entries.clear();
    process().order.clear();
  }
}

bool process_memory_cache() {
  std::lock_guard lock(process().mutex);
  return process().memory;
}

std::optional<CachedAssembly> memory_cache_lookup(const CacheKey& key) {
  Process& p = process();
  std::lock_guard lock(p.mutex);
  auto it = p.entries.find(key.hex);
  if (it == p.entries.end()) {
    ++p.misses;
    return std::nullopt;
  }
  ++p.hits;
  return it->second;
}

void memory_cache_store(const CacheKey& key, const CachedAssembly& a) {
  Process& p = process();
  std::lock_guard lock(p.mutex);
  if (!p.memory || !p.entries.insert_or_assign(key.hex, a).second)
    return;
  ++p.stores;
  p.order.push_back(key.hex);
  while (p.order.size() > max_memory_entries) {
    p.entries.erase(p.order.front());
    p.order.pop_front();
  }
}

CacheCounters process_cache_counters() {
  const Process& p = process();
  return CacheCounters{p.hits.load(), p.misses.load(), p.stores.load(), p.corrupt.load()};
}

CacheKey make_cache_key(std::string_view ptx, std::string_view ptxas_version,
                        const std::vector<std::string>& flags) {
  Sha256 h;
  h.update_field(kMagic);
  h.update_field(ptx);
  h.update_field(ptxas_version);
  h.update_field(std::to_string(flags.size()));
  for (const auto& f : flags)
    h.update_field(f);
  return CacheKey{Sha256::hex(h.finish())};
}

std::string encode_cache_file(std::string_view payload) {
  std::string out(kMagic);
  put_u64(out, payload.size());
  const Sha256::Digest d = Sha256::of(payload);
  out.append(reinterpret_cast<const char*>(d.data()), d.size());
  out += payload;
  return out;
}

std::optional<std::string> decode_cache_file(std::string_view file) {
  if (file.size() < kHeaderBytes || file.substr(0, kMagic.size()) != kMagic)
    return std::nullopt;
  file.remove_prefix(kMagic.size());
  std::uint64_t length = 0;
  get_u64(file, length);
  const std::string_view digest = file.substr(0, kDigestBytes);
  file.remove_prefix(kDigestBytes);
  if (file.size() != length)
    return std::nullopt;
  const Sha256::Digest d = Sha256::of(file);
  if (digest != std::string_view(reinterpret_cast<const char*>(d.data()), d.size()))
    return std::nullopt;
  return std::string(file);
}

std::optional<std::string> ptxas_version(const fs::path& ptxas, const std::optional<fs::path>& dir,
                                         std::chrono::milliseconds timeout) {
  struct stat st {};
  if (::stat(ptxas.c_str(), &st) != 0)
    return std::nullopt;
  const std::int64_t mtime_ns =
      std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  const auto id = std::make_tuple(fs::absolute(ptxas).string(), std::uint64_t(st.st_size), mtime_ns,
                                  std::uint64_t(st.st_ino));
  {
    std::lock_guard lock(process().mutex);
    if (auto it = process().versions.find(id); it != process().versions.end())
      return it->second;
  }
  Sha256 h;
  h.update_field(std::get<0>(id));
  for (std::uint64_t v : {std::get<1>(id), std::uint64_t(std::get<2>(id)), std::get<3>(id)})
    h.update_field(std::to_string(v));
  const fs::path record =
      dir ? *dir / kLayout / kVersionsDir / Sha256::hex(h.finish()) : fs::path();
  std::optional<std::string> version;
  if (dir)
    version = load_file(record);
  if (!version) {
    ProcessOptions options;
    options.timeout = timeout;
    ProcessResult r = run_process(ptxas, {"--version"}, options);
    if (r.succeeded() && r.output.find_first_not_of(" \t\r\n") != std::string::npos &&
        !r.output_truncated) {
      version = r.output;
      if (dir)
        store_file(record, *version);
    }
  }
  std::lock_guard lock(process().mutex);
  process().versions[id] = version;
  return version;
}

std::optional<CachedAssembly> cache_lookup(const fs::path& dir, const CacheKey& key) {
  auto payload = load_file(entry_path(dir, key));
  if (!payload) {
    ++process().misses;
    return std::nullopt;
  }
  std::string_view in = *payload;
  std::uint64_t status = 0, exit_code = 0;
  std::string_view raw, cubin;
  const bool parsed = get_u64(in, status) && get_u64(in, exit_code) && get_bytes(in, raw) &&
                      get_bytes(in, cubin) && in.empty();
  CachedAssembly a;
  a.status = static_cast<AssembleResult::Status>(status);
  if (!parsed ||
      (a.status != AssembleResult::Status::ok && a.status != AssembleResult::Status::rejected)) {
    ++process().corrupt;
    ++process().misses;
    return std::nullopt;
  }
  a.exit_code = static_cast<int>(static_cast<std::int64_t>(exit_code));
  a.raw_output = std::string(raw);
  a.cubin.assign(cubin.begin(), cubin.end());
  ++process().hits;
  return a;
}

bool cache_store(const fs::path& dir, const CacheKey& key, const CachedAssembly& a) {
  std::string payload;
  put_u64(payload, static_cast<std::uint64_t>(a.status));
  put_u64(payload, static_cast<std::uint64_t>(static_cast<std::int64_t>(a.exit_code)));
  put_bytes(payload, a.raw_output);
  put_bytes(payload,
            std::string_view(reinterpret_cast<const char*>(a.cubin.data()), a.cubin.size()));
  const bool ok = store_file(entry_path(dir, key), payload);
  if (ok)
    ++process().stores;
  return ok;
}

CacheStats cache_stats(const fs::path& dir) {
  CacheStats s;
  std::error_code ec;
  const fs::path root = dir / kLayout;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_directory(ec) && it->path().filename() == kVersionsDir) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec) || it->path().filename().string().front() == '.')
      continue;
    ++s.entries;
    s.bytes += it->file_size(ec);
  }
  return s;
}

Fallible<std::uint64_t> cache_clear(const fs::path& dir) {
  std::error_code ec;
  const std::uintmax_t removed = fs::remove_all(dir / kLayout, ec);
  if (ec)
    return Failure{"cannot remove '" + (dir / kLayout).string() + "': " + ec.message()};
  return std::uint64_t{removed == static_cast<std::uintmax_t>(-1) ? 0 : removed};
}

} // namespace ptxgen::driver
