// Atomic, deduplicated corpus writes.
#include "fuzz/campaign/corpus.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "codegen/runtime/files.h"
#include "core/timestamp.h"

namespace uf {

namespace fs = std::filesystem;

uint32_t fnv1a(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

namespace {

// Reproducers are whole or absent, and durable once saved: a campaign may be killed at any moment.
const FileOptions kDurable{.mode = 0644, .sync = true};

}  // namespace

std::string Corpus::file_name(const std::string& signature) {
  std::string slug;
  for (char c : signature) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::isalnum(static_cast<unsigned char>(l)))
      slug += l;
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  char hash[16];
  std::snprintf(hash, sizeof hash, "%08x", fnv1a(signature));
  return slug.substr(0, 60) + "-" + hash + ".uop";
}

std::vector<fs::path> uop_files_in(const std::string& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".uop" && e.path().filename().string().front() != '.') out.push_back(e.path());
  if (ec) throw UserError(dir + ": cannot read directory (" + ec.message() + ")");
  std::sort(out.begin(), out.end());
  return out;
}

std::set<std::string> read_signatures(const std::string& dir) {
  std::set<std::string> out;
  for (const fs::path& path : uop_files_in(dir)) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {  // the reader's meta rule: CRLF and blanks trimmed
      const MetaLine m = parse_meta_line(line);
      if (m.is_meta && !m.error && m.key == "signature" && !m.value.empty()) out.insert(m.value);
    }
  }
  return out;
}

Corpus::Corpus(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_))
    throw UserError(dir_ + ": cannot create corpus directory (" + (ec ? ec.message() : "not a directory") + ")");
  if (::access(dir_.c_str(), W_OK | X_OK) != 0) throw UserError(dir_ + ": corpus directory is not writable");
  remove_stale_temporaries(dir_);
  known_ = read_signatures(dir_);
}

std::string reproducer_text(Program p, const Observation& failure, const FindingContext& ctx) {
  auto set = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) p.set_meta(k, v);
  };
  set("found", utc_timestamp());
  set("worker", ctx.worker);
  set("signature", failure.signature);
  set("class", verdict_name(failure.verdict));
  set("status", "open");
  set("cc", ctx.cfg.cc);
  set("cc_version", ctx.compiler_version);
  set("cflags", ctx.cfg.cflags);
  set("renderer", ctx.cfg.renderer_cmd.empty() ? "builtin" : ctx.cfg.renderer_cmd);
  // The protocol belongs with the command: a program reduced under another renderer drops a stale one.
  // So is the target it names (a protocol-2 plug-in's handshake).
  std::erase_if(p.meta, [](const auto& kv) { return kv.first == "renderer_protocol" || kv.first == "target"; });
  if (!ctx.cfg.renderer_cmd.empty() && ctx.cfg.renderer_protocol != RendererProtocol::program)
    p.set_meta("renderer_protocol", protocol_name(ctx.cfg.renderer_protocol));
  if (!ctx.cfg.renderer_cmd.empty()) set("target", ctx.cfg.renderer_description.target.text());
  // A native mode is recorded so the finding replays in it; soft (the default) leaves no line.
  std::erase_if(p.meta, [](const auto& kv) { return kv.first == "f16" || kv.first == "bf16"; });
  if (ctx.cfg.renderer_cmd.empty() && ctx.cfg.render.f16_native) p.set_meta("f16", "native");
  if (ctx.cfg.renderer_cmd.empty() && ctx.cfg.render.bf16_native) p.set_meta("bf16", "native");
  if (failure.signal) set("signal", std::to_string(failure.signal));
  // A render timeout holds for the render timeout it was found or reduced under: replays use it.
  std::erase_if(p.meta, [](const auto& kv) { return kv.first == "render_timeout"; });
  if (is_render_timeout(failure.signature)) set("render_timeout", seconds_text(ctx.cfg.render_timeout_s));
  p.expect = failure.expect;
  p.got = failure.got;
  return print_program(p);
}

namespace {
// `text` over the file at `path`, written beside it and renamed over it; UserError when it cannot be.
void write_over(const std::string& path, const std::string& text) {
  const FileError e = replace_file(path, text, kDurable);
  if (e.step == FileError::Step::rename) throw UserError("cannot replace " + path + ": " + e.reason());
  if (e) throw UserError(e.message());
}
}  // namespace

void Corpus::replace(const std::string& path, Program reproducer, const Observation& failure, const FindingContext& ctx) {
  write_over(path, reproducer_text(std::move(reproducer), failure, ctx));
}

void Corpus::rewrite(const std::string& path, const Program& as_read) { write_over(path, print_program(as_read)); }

std::optional<std::string> Corpus::save(Program reproducer, const Observation& failure, const FindingContext& ctx) {
  if (has(failure.signature)) return std::nullopt;
  const std::string final_path = (fs::path(dir_) / file_name(failure.signature)).string();
  const FileError e = create_file_atomically(final_path, reproducer_text(std::move(reproducer), failure, ctx), kDurable);
  if (e && e.step != FileError::Step::link) throw UserError(e.message());
  known_.insert(failure.signature);
  if (e.error == EEXIST) return std::nullopt;  // another worker saved this bucket first
  if (e) throw UserError("cannot save " + final_path + ": " + e.reason());
  return final_path;
}

}  // namespace uf
