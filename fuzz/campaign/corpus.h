// The corpus: one readable .uop reproducer per bucket (signature), written so that a killed run never
// leaves a partial file and concurrent workers never save one bucket twice.
//
// A reproducer's file name is derived from its signature (`mismatch-cast-f64-u32-1a2b3c4d.uop`). Saving
// writes a temporary file in the same directory, syncs it, then hard-links it to the final name: link()
// fails if the name exists, so exactly one worker wins a bucket, and readers only ever see whole files.
// A later campaign over the same directory reads the signatures already there (`meta signature`) and
// does not save those buckets again.
#pragma once
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/text.h"
#include "fuzz/oracle/oracle.h"

namespace uf {

// Every `meta` a saved reproducer carries, besides those of the program itself (seed, generator, ...).
struct FindingContext {
  std::string worker;
  CompiledPathConfig cfg;
  std::string compiler_version;  // first line of `cc --version`
};

class Corpus {
 public:
  // Creates the directory if needed; UserError if it cannot be created, read or written.
  explicit Corpus(std::string dir);

  const std::string& dir() const { return dir_; }
  bool has(const std::string& signature) const { return known_.count(signature) > 0; }
  const std::set<std::string>& signatures() const { return known_; }

  // Saves the reproducer; returns its path, or nullopt when the bucket is already in the directory
  // (saved by another worker or an earlier run). UserError on a write failure (disk full, permissions),
  // in which case nothing is left behind.
  std::optional<std::string> save(Program reproducer, const Observation& failure, const FindingContext& ctx);
  // Replaces the reproducer at `path` (one this corpus saved) by a new one of the same bucket, e.g. its
  // reduction: written beside it and renamed over it, so a reader sees the old file or the new, whole.
  void replace(const std::string& path, Program reproducer, const Observation& failure, const FindingContext& ctx);
  // Rewrites the file at `path` as `as_read` prints (its own expect, got and meta): a note added to a
  // reproducer whose failure is kept as it was found. Written and renamed over as replace does.
  void rewrite(const std::string& path, const Program& as_read);

  static std::string file_name(const std::string& signature);

 private:
  std::string dir_;
  std::set<std::string> known_;
};

// The text a reproducer is saved as: the program with its data, `expect` (every BUFFER), `got` (the
// buffers that differ) and meta (found, signature, status = open, compiler, flags, renderer, ...).
std::string reproducer_text(Program reproducer, const Observation& failure, const FindingContext& ctx);

// DIR's `.uop` files (not hidden ones, as a temporary of an atomic write is), sorted by name; UserError
// for a directory that cannot be read.
std::vector<std::filesystem::path> uop_files_in(const std::string& dir);
// The signatures recorded in a corpus directory's .uop files (`meta signature = ...`).
std::set<std::string> read_signatures(const std::string& dir);

// FNV-1a of a text: a stable short name (a bucket's file name) or a split of names between workers.
uint32_t fnv1a(const std::string& s);

}  // namespace uf
