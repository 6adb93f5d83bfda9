// `uopfuzz corpus merge`: one reproducer per bucket, the smallest, counts added up; bad input is exit 2.
#include <gtest/gtest.h>

#include <fstream>

#include "core/text.h"
#include "fuzz/campaign/corpus.h"
#include "fuzz/campaign/guide.h"
#include "fuzz/oracle/shrink.h"
#include "tests/support/files.h"
#include "tests/support/uopfuzz.h"

namespace uf::testing {
namespace {

namespace fs = std::filesystem;

// A `mismatch MUL i32` reproducer: MUL of 3 by 3 stored, with `extra` ADDs of 3 after it.
std::string reproducer(const std::string& signature, int extra, const std::string& more_meta = "") {
  std::string s = "uops 1\nmeta signature = " + signature + "\nmeta class = mismatch\n" + more_meta +
                  "%0 = CONST i32 0\n%1 = BUFFER i32[1] slot=0\n%2 = INDEX i32 %1 %0\n%3 = CONST i32 3\n%4 = MUL i32 %3 %3\n";
  int last = 4;
  for (int i = 0; i < extra; ++i, ++last) s += "%" + std::to_string(last + 1) + " = ADD i32 %" + std::to_string(last) + " %3\n";
  s += "%" + std::to_string(last + 1) + " = STORE void %2 %" + std::to_string(last) + "\n%" + std::to_string(last + 2) +
       " = SINK void %" + std::to_string(last + 1) + "\n";
  return s;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(CorpusMerge, KeepsTheSmallestReproducerPerBucketAndAddsCounts) {
  TempDir tmp("uopfuzz-merge");
  write(tmp / "a/mul.uop", reproducer("mismatch MUL i32", 3));
  write(tmp / "b/mul-small.uop", reproducer("mismatch MUL i32", 0, "meta count = 5\n"));
  write(tmp / "c/mul-big.uop", reproducer("mismatch MUL i32", 6));
  write(tmp / "c/add.uop", reproducer("mismatch ADD i32", 1));
  write(tmp / "c/notes.txt", "not a reproducer");
  const Ran r = run_uopfuzz("corpus merge " + (tmp / "a").string() + " " + (tmp / "b").string() + " " + (tmp / "c").string() +
                            " -o " + (tmp / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("4 files, 2 buckets"), std::string::npos) << r.out;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(tmp / "out")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names, (std::vector<std::string>{Corpus::file_name("mismatch ADD i32"), Corpus::file_name("mismatch MUL i32")}));
  const Program mul = read_program((tmp / "out" / Corpus::file_name("mismatch MUL i32")).string());
  EXPECT_EQ(program_cost(mul).nodes, program_cost(parse_program(reproducer("mismatch MUL i32", 0))).nodes);
  ASSERT_NE(mul.meta_value("count"), nullptr);
  EXPECT_EQ(*mul.meta_value("count"), "7");  // 1 (no count meta) + 5 + 1
  const Program add = read_program((tmp / "out" / Corpus::file_name("mismatch ADD i32")).string());
  EXPECT_EQ(*add.meta_value("count"), "1");
}

// Shards' seeds (fuzz --guide): their union, one file per name, and the features they reach together.
TEST(CorpusMerge, SeedsOfEveryShardAreMergedOncePerName) {
  TempDir tmp("uopfuzz-merge-seeds");
  auto seed = [](uint64_t n, std::vector<std::string> features) {
    Seed s;
    s.choices = Choices{n, {n, n + 1}};
    s.features = std::move(features);
    return seed_text(s);
  };
  write(tmp / "a/mul.uop", reproducer("mismatch MUL i32", 0));
  write(tmp / "a/seeds/1.seed", seed(1, {"x.py:1", "x.py:2"}));
  write(tmp / "b/seeds/1.seed", seed(1, {"x.py:1", "x.py:2"}));
  write(tmp / "b/seeds/2.seed", seed(2, {"y.py:7"}));
  write(tmp / "b/seeds/bad.seed", "{");
  const Ran r = run_uopfuzz("corpus merge " + (tmp / "a").string() + " " + (tmp / "b").string() + " -o " + (tmp / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2 seeds reaching 3 target features"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped " + (tmp / "b/seeds/bad.seed").string() + ": not a seed file"), std::string::npos) << r.out;
  EXPECT_EQ(read_seed((tmp / "out/seeds/2.seed").string()).features, std::vector<std::string>{"y.py:7"});
  EXPECT_TRUE(fs::exists(tmp / "out/seeds/1.seed"));
  EXPECT_FALSE(fs::exists(tmp / "out/seeds/bad.seed"));
}

TEST(CorpusMerge, BucketsFormGroupsByCulpritElseByOpAcrossDtypes) {
  TempDir tmp("uopfuzz-merge");
  const std::string slp = "meta culprit = gcc -ftree-slp-vectorize (-fno-tree-slp-vectorize makes it pass; 14 checks)\n";
  write(tmp / "a/mul-i32.uop", reproducer("mismatch MUL i32", 0));
  write(tmp / "a/mul-u8.uop", reproducer("mismatch MUL u8", 0));
  write(tmp / "a/cast.uop", reproducer("mismatch CAST f32>f64", 0, slp));
  write(tmp / "b/exp2-small.uop", reproducer("mismatch EXP2 f32", 0));
  write(tmp / "b/exp2.uop", reproducer("mismatch EXP2 f32", 2, slp));  // the kept (smaller) file has no culprit
  const Ran r =
      run_uopfuzz("corpus merge " + (tmp / "a").string() + " " + (tmp / "b").string() + " -o " + (tmp / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("5 files, 4 buckets in 2 groups"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("group mismatch MUL: 2 buckets"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("group gcc -ftree-slp-vectorize: 2 buckets"), std::string::npos) << r.out;
  const Program exp2 = read_program((tmp / "out" / Corpus::file_name("mismatch EXP2 f32")).string());
  ASSERT_NE(exp2.meta_value("culprit"), nullptr);
  EXPECT_EQ(*exp2.meta_value("culprit") + "\n", slp.substr(15));
}

TEST(CorpusMerge, BadInputIsExit2WithTheFile) {
  TempDir tmp("uopfuzz-merge");
  write(tmp / "a/bad.uop", "uops 1\n%0 = FROB i32\n");
  Ran r = run_uopfuzz("corpus merge " + (tmp / "a").string() + " -o " + (tmp / "out").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find((tmp / "a/bad.uop").string() + ":2:"), std::string::npos) << r.out;
  r = run_uopfuzz("corpus merge " + (tmp / "missing").string() + " -o " + (tmp / "out").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find((tmp / "missing").string() + ": not a directory"), std::string::npos) << r.out;
  write(tmp / "b/x.uop", reproducer("mismatch MUL i32", 0, "meta count = many\n"));
  r = run_uopfuzz("corpus merge " + (tmp / "b").string() + " -o " + (tmp / "out").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("meta count is not a positive integer"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace uf::testing
