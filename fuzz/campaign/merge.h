// Merging corpus directories (`uopfuzz corpus merge`): the reproducers of several campaigns or nightly
// shards, one per bucket. A bucket is a `meta signature`; of its files the smallest (program_cost)
// is kept, and `meta count` says how many findings it stands for: the sum over the files of their own
// `meta count`, or 1 for a file without one. A bucket keeps the culprit one of its files names, and the
// buckets form groups by root cause (fuzz/oracle/culprit.h group_key).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

namespace uf {

struct MergeResult {
  size_t files = 0;                  // reproducers read
  std::vector<std::string> written;  // one path per bucket, sorted
  std::vector<std::string> skipped;  // `FILE: why` for .uop files that name no bucket
  std::map<std::string, std::vector<std::string>> groups;  // group key -> its buckets' signatures
  size_t seeds = 0;                                        // seed files in OUT_DIR/seeds (guide.h)
  std::set<std::string> seed_features;                     // the target features they reach, together
};

// Reads every visible `*.uop` of each directory (UserError `FILE:LINE: message` for one that does not
// read or verify, or a directory that cannot be listed), and writes the kept reproducers into `out_dir`
// (created if needed) under their corpus names (Corpus::file_name), each atomically. The seeds of
// guided campaigns (`DIR/seeds/*.seed`) are merged too, into OUT_DIR/seeds: their union (a seed's name is
// the hash of its choices), so the next campaign starts from all of them; a seed file that does not read
// is skipped with a message.
MergeResult merge_corpora(const std::vector<std::string>& dirs, const std::string& out_dir);

}  // namespace uf
