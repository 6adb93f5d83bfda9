// One reproducer per bucket out of many directories.
#include "fuzz/campaign/merge.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "codegen/runtime/files.h"
#include "core/text.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/campaign/guide.h"
#include "fuzz/oracle/culprit.h"
#include "fuzz/oracle/shrink.h"

namespace uf {

namespace fs = std::filesystem;

namespace {

struct Kept {
  Program program;
  ProgramCost cost;
  std::string path;
  int64_t count = 0;
  std::string culprit;  // the first `meta culprit` of the bucket's files: the kept one may have none
};

// A file's `meta count`, or 1: a campaign saves one file per bucket and counts nothing in it.
int64_t count_of(const Program& p, const std::string& path) {
  const std::string* v = p.meta_value("count");
  if (!v) return 1;
  try {
    size_t used = 0;
    const long long n = std::stoll(*v, &used);
    if (used == v->size() && n >= 1) return n;
  } catch (const std::exception&) {}
  throw UserError(path + ": meta count is not a positive integer: " + *v);
}

// Every DIR/seeds/*.seed into out_dir/seeds, once per name.
void merge_seeds(const std::vector<std::string>& dirs, const std::string& out_dir, MergeResult& r) {
  std::map<std::string, fs::path> seeds;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(dir) / "seeds", ec))
      if (e.path().extension() == ".seed") seeds.emplace(e.path().filename().string(), e.path());
  }
  if (seeds.empty()) return;
  const fs::path to = fs::path(out_dir) / "seeds";
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) throw UserError(to.string() + ": cannot create directory");
  for (const auto& [name, from] : seeds) {
    try {
      const Seed s = read_seed(from.string());
      r.seed_features.insert(s.features.begin(), s.features.end());
      if (!fs::exists(to / name)) replace_user_file((to / name).string(), seed_text(s));
      ++r.seeds;
    } catch (const UserError& e) { r.skipped.push_back(e.what()); }
  }
}

}  // namespace

MergeResult merge_corpora(const std::vector<std::string>& dirs, const std::string& out_dir) {
  MergeResult r;
  std::map<std::string, Kept> buckets;
  for (const std::string& dir : dirs) {
    if (!fs::is_directory(dir)) throw UserError(dir + ": not a directory");
    for (const fs::path& f : uop_files_in(dir)) {  // sorted: ties keep the first file in a stable order
      Program p;
      try {
        p = read_program(f.string());
        verify(p);
      } catch (const UserError& e) { throw UserError(located(f.string(), e)); }
      ++r.files;
      const std::string* sig = p.meta_value("signature");
      if (!sig || sig->empty()) {
        r.skipped.push_back(f.string() + ": no meta signature");
        continue;
      }
      const int64_t n = count_of(p, f.string());
      const ProgramCost cost = program_cost(p);
      auto [it, fresh] = buckets.try_emplace(*sig);
      Kept& k = it->second;
      k.count += n;
      if (const std::string* c = p.meta_value("culprit"); c && k.culprit.empty()) k.culprit = *c;
      if (fresh || cost < k.cost) {
        k.cost = cost;
        k.path = f.string();
        k.program = std::move(p);
      }
    }
  }
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec || !fs::is_directory(out_dir)) throw UserError(out_dir + ": cannot create directory");
  for (auto& [sig, k] : buckets) {
    k.program.set_meta("count", std::to_string(k.count));
    if (!k.culprit.empty() && !k.program.meta_value("culprit")) k.program.set_meta("culprit", k.culprit);
    r.groups[group_key(sig, k.culprit)].push_back(sig);
    const fs::path target = fs::path(out_dir) / Corpus::file_name(sig);
    replace_user_file(target.string(), print_program(k.program));
    r.written.push_back(target.string());
  }
  merge_seeds(dirs, out_dir, r);
  return r;
}

}  // namespace uf
