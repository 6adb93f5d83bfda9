// The compiler runtime: cache directory, cache key, integrity trailer, one compiler call (see compiler.h).
#include "codegen/runtime/compiler.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

#include "codegen/runtime/compile_failure.h"
#include "codegen/runtime/files.h"
#include "codegen/runtime/process.h"
#include "codegen/runtime/remarks.h"
#include "core/error.h"

namespace uf {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'U', 'F', 'S', 'O', 'C', 'H', 'K', '1'};
constexpr size_t kTrailer = 8 + 8 + 32;
constexpr const char* kKeyVersion = "uopfuzz-so-v1";

// SHA-256 over XXH3-128: 10x slower, yet 0.2 ms per 400 KB batch beside a compile's seconds, and keys cannot collide.
class Sha256 {  // OpenSSL's EVP interface
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), &EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) failed();
  }
  void update(const void* data, size_t n) {
    if (EVP_DigestUpdate(ctx_.get(), data, n) != 1) failed();
  }
  void update(const std::string& s) { update(s.data(), s.size()); }
  std::array<uint8_t, 32> digest() {  // finishes the hash
    std::array<uint8_t, 32> d;
    if (EVP_DigestFinal_ex(ctx_.get(), d.data(), nullptr) != 1) failed();
    return d;
  }

 private:
  [[noreturn]] static void failed() { throw UserError("OpenSSL cannot compute SHA-256 (no memory, or a broken OpenSSL setup)"); }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

std::string to_hex(const std::array<uint8_t, 32>& digest) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (const uint8_t b : digest) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

// The first lines of a compiler's output, for a message.
std::string head_lines(const std::string& text, size_t max_lines) {
  size_t pos = 0;
  for (size_t n = 0; n < max_lines && pos < text.size(); ++n) {
    const size_t nl = text.find('\n', pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  return text.substr(0, pos) + (pos < text.size() ? "...\n" : "");
}

void make_dirs_0700(const std::string& path) {
  std::string cur;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') cur = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    cur += part;
    if (::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST)
      throw UserError("cannot create cache directory " + cur + ": " + strerror(errno));
    cur += "/";
  }
}

// Least recently used entries go first; stale temporary directories of killed builds go too.
void prune(const std::string& dir) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto t = e.last_write_time(ec);
    if (ec) continue;
    const std::string name = e.path().filename().string();
    if (name.rfind("tmp-", 0) == 0 && now - t > std::chrono::hours(1))
      fs::remove_all(e.path(), ec);
    else if (e.path().extension() == ".so")
      entries.emplace_back(t, e.path());
  }
  if (entries.size() <= kMaxCacheEntries) return;
  std::sort(entries.begin(), entries.end());
  for (size_t i = 0; i < entries.size() - kMaxCacheEntries * 3 / 4; ++i) {
    fs::remove(entries[i].second, ec);
    fs::remove(remarks_path(entries[i].second.string()), ec);
  }
}

std::string cache_key(const CompilerId& id, const std::string& cflags, const std::vector<std::string>& sources) {
  Sha256 h;
  auto field = [&h](const std::string& s) {
    h.update(std::to_string(s.size()) + ":");
    h.update(s);
  };
  field(kKeyVersion);
  field(id.path);
  field(id.version);
  field(cflags);
  field(std::to_string(sources.size()));
  for (const std::string& s : sources) field(s);
  return to_hex(h.digest());
}

std::string with_trailer(std::string elf) {
  Sha256 h;
  h.update(elf);
  const auto d = h.digest();
  const uint64_t n = elf.size();
  elf.append(kMagic, 8);
  for (int i = 0; i < 8; ++i) elf += static_cast<char>(n >> (8 * i));
  elf.append(reinterpret_cast<const char*>(d.data()), d.size());
  return elf;
}

}  // namespace

bool verify_cache_entry(const std::string& path) {
  const std::optional<std::string> file = read_file(path);
  if (!file || file->size() < kTrailer) return false;
  const std::string& data = *file;
  const char* t = data.data() + data.size() - kTrailer;
  if (std::memcmp(t, kMagic, 8) != 0) return false;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= static_cast<uint64_t>(static_cast<uint8_t>(t[8 + i])) << (8 * i);
  if (n != data.size() - kTrailer) return false;
  Sha256 h;
  h.update(data.data(), n);
  const auto d = h.digest();
  return std::memcmp(d.data(), t + 16, 32) == 0;
}

std::string cache_dir() {
  std::string dir;
  if (const char* e = std::getenv("UOPFUZZ_CACHE_DIR"); e && *e) {
    dir = e;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/') {
    dir = std::string(x) + "/uopfuzz";
  } else {
    const char* home = std::getenv("HOME");
    if (!home || !*home) {
      const passwd* pw = ::getpwuid(::geteuid());
      home = pw ? pw->pw_dir : nullptr;
    }
    if (!home) throw UserError("no cache directory: set UOPFUZZ_CACHE_DIR or HOME");
    dir = std::string(home) + "/.cache/uopfuzz";
  }
  make_dirs_0700(dir);
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) throw UserError("cache directory " + dir + " is not a directory");
  // Shared objects from here are loaded and run: the directory must be ours alone to write.
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
    throw UserError("cache directory " + dir + " is writable by others or not owned by this user; refusing it");
  return dir;
}

CompilerId compiler_id(const std::string& cc) {
  static std::mutex mu;
  static std::map<std::string, CompilerId> known;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = known.find(cc); it != known.end()) return it->second;
  const std::vector<std::string> words = split_command(cc);
  if (words.size() != 1) throw UserError("--cc takes one compiler, got '" + cc + "' (put options in --cflags)");
  CompilerId id;
  id.path = find_executable(words[0]);
  if (id.path.empty()) throw UserError("C compiler '" + cc + "' not found (not in PATH, or not executable)");
  ProcessOptions po;
  po.timeout_s = 30;
  const ProcessResult r = run_process({id.path, "--version"}, po);
  if (!r.ok()) throw UserError("C compiler '" + cc + "' (" + id.path + ") failed on --version: " + r.describe());
  id.version = r.out;
  known.emplace(cc, id);
  return id;
}

std::string numbered_source(const std::string& src, size_t max_lines) {
  std::string out;
  std::istringstream in(src);
  std::string line;
  size_t n = 0;
  char num[16];
  while (std::getline(in, line)) {
    if (++n > max_lines) {
      out += "     ... (" + std::to_string(max_lines) + " lines shown)\n";
      break;
    }
    std::snprintf(num, sizeof num, "%4zu ", n);
    out += num + line + "\n";
  }
  return out;
}

namespace {

// The cache's files are ours alone: shared objects from it are loaded and run.
const FileOptions kPrivate{.mode = 0600};

std::mutex g_stats_mu;
CompilerStats g_stats;  // per process: each campaign worker reports its own

// A private directory for one build, inside the cache so that the final rename stays on one file system.
TempDir make_build_dir(const std::string& dir) {
  std::optional<TempDir> tmp = TempDir::create(dir + "/tmp-XXXXXX");
  if (!tmp) throw UserError("cannot create a directory in the cache " + dir + ": " + strerror(errno));
  return std::move(*tmp);
}

const char* suffix(SourceKind kind) { return kind == SourceKind::llvm_ir ? ".ll" : ".c"; }

// k0.c, k1.c, ... (or .ll) in `dir`; their paths.
std::vector<std::string> write_sources(const std::string& dir, const std::vector<std::string>& sources, SourceKind kind) {
  std::vector<std::string> files;
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string file = dir + "/k" + std::to_string(i) + suffix(kind);
    if (const FileError e = write_file(file, sources[i], kPrivate))
      throw UserError("cannot write " + file + " in the cache: " + e.reason());
    files.push_back(file);
  }
  return files;
}

// CC FLAGS... -shared -fPIC -o OUT [-x ir] FILES... -lm
std::vector<std::string> compiler_argv(const CompilerId& id, const std::vector<std::string>& flags, const std::string& out,
                                       const std::vector<std::string>& files, SourceKind kind) {
  std::vector<std::string> argv{id.path};
  argv.insert(argv.end(), flags.begin(), flags.end());
  for (const char* f : {"-shared", "-fPIC", "-o"}) argv.push_back(f);
  argv.push_back(out);
  if (kind == SourceKind::llvm_ir) {
    argv.push_back("-x");
    argv.push_back("ir");
  }
  argv.insert(argv.end(), files.begin(), files.end());
  argv.push_back("-lm");
  return argv;
}

// One compiler call, counted in compiler_stats(). Throws UserError when it cannot be started.
ProcessResult run_compiler(const std::vector<std::string>& argv, const CompileOptions& opt, const std::string& tmp) {
  ProcessOptions po;
  po.timeout_s = opt.timeout_s;
  po.max_stdout = po.max_stderr = size_t{1} << 20;
  // English diagnostics (environment_failure reads them); intermediate files (.s, .o) in the private
  // directory, so they are removed with it and a kill -9 leaves nothing in /tmp for long.
  po.env = {"LC_ALL=C", "TMPDIR=" + tmp};
  const auto started = std::chrono::steady_clock::now();
  const ProcessResult r = run_process(argv, po);
  {
    std::lock_guard<std::mutex> lock(g_stats_mu);
    ++g_stats.calls;
    g_stats.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (!r.started) throw UserError("cannot run the C compiler: " + r.message);
  return r;
}

// The message of a failed compiler call: its output and the numbered sources. Throws UserError when the
// machine, not the sources, made it fail.
std::string compile_error(const ProcessResult& r, const std::string& cc, const std::string& dir, const std::string& tmp,
                          const std::vector<std::string>& sources, SourceKind kind) {
  // A full disk, no memory, a broken installation: a setup problem, never a compile-error finding.
  if (const std::string why = environment_failure(r, {tmp}); !why.empty())
    throw UserError("cannot compile in " + dir + ": " + why + "; this is a problem of the machine, not of the " + "program:\n" +
                    head_lines(r.err + r.out, 20));
  std::string message = cc + " failed (" + r.describe() + "):\n" + r.err + r.out;
  for (size_t i = 0; i < sources.size(); ++i)
    message += "--- source k" + std::to_string(i) + suffix(kind) + " ---\n" + numbered_source(sources[i]);
  return message;
}

// The compiler's output with its trailer, staged in the build's directory and renamed to `entry` in one
// step: readers see no file or a whole one.
void install_entry(const std::string& out, const std::string& tmp, const std::string& entry) {
  std::optional<std::string> elf = read_file(out);
  if (!elf) throw UserError("cannot read the compiler's output " + out);
  FileOptions staged = kPrivate;
  staged.temporary_dir = tmp;
  const FileError e = replace_file(entry, with_trailer(std::move(*elf)), staged);
  if (e.step == FileError::Step::rename) throw UserError("cannot move a build into the cache " + entry + ": " + e.reason());
  if (e) throw UserError("cannot write " + e.path + " in the cache: " + e.reason());
}

}  // namespace

CompilerStats compiler_stats() {
  std::lock_guard<std::mutex> lock(g_stats_mu);
  return g_stats;
}

CompileResult compile_shared(const std::vector<std::string>& sources, const CompileOptions& opt) {
  const CompilerId id = compiler_id(opt.cc);
  if (opt.kind == SourceKind::llvm_ir && id.version.find("clang") == std::string::npos)
    throw UserError("LLVM IR needs a clang as --cc; " + opt.cc + " is " + id.version_line());
  const std::string cflags = opt.remarks ? opt.cflags + " " + remark_flag(id) : opt.cflags;
  const std::vector<std::string> flags = split_command(cflags);
  const std::string dir = cache_dir();
  const std::string entry = dir + "/" + cache_key(id, opt.kind == SourceKind::llvm_ir ? cflags + " -x ir" : cflags, sources) + ".so";
  CompileResult res;
  std::optional<std::string> remarks = opt.remarks ? read_file(remarks_path(entry)) : std::string();
  if (remarks && verify_cache_entry(entry)) {
    ::utimensat(AT_FDCWD, entry.c_str(), nullptr, 0);  // recently used: survives pruning
    res.ok = res.cached = true;
    res.so_path = entry;
    res.remarks = std::move(*remarks);
    return res;
  }
  const TempDir tmp = make_build_dir(dir);
  const std::string out = tmp.path() + "/out.so";
  const ProcessResult r =
      run_compiler(compiler_argv(id, flags, out, write_sources(tmp.path(), sources, opt.kind), opt.kind), opt, tmp.path());
  if (!r.ok()) {
    res.timed_out = r.timed_out;
    res.message = compile_error(r, opt.cc, dir, tmp.path(), sources, opt.kind);
    return res;
  }
  if (opt.remarks) res.remarks = keep_remarks(entry, r.err, tmp.path());  // before the entry: it always has them
  install_entry(out, tmp.path(), entry);
  prune(dir);
  res.ok = true;
  res.so_path = entry;
  return res;
}

}  // namespace uf
