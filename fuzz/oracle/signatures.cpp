// What a signature says (fuzz/oracle/oracle.h): whether an observed one is the recorded one, whether it
// is an optimizer finding or a render timeout. Text alone, apart from the comparison that makes them.
#include <string>

#include "codegen/plugin.h"
#include "fuzz/oracle/oracle.h"

namespace uf {

bool same_signature(const std::string& recorded, const std::string& observed) {
  static const std::string bare = verdict_name(Verdict::render_error);
  return observed == recorded || (recorded == bare && observed.rfind(bare + " ", 0) == 0);
}

bool is_optimizer_finding(const std::string& signature) { return signature.ends_with(kUnderOpts); }

std::string without_opts_mark(const std::string& signature) {
  return is_optimizer_finding(signature) ? signature.substr(0, signature.size() - kUnderOpts.size()) : signature;
}

bool is_render_timeout(const std::string& signature) {
  return without_opts_mark(signature) == verdict_name(Verdict::render_error) + " " + std::string(kTimeoutBucket);
}

}  // namespace uf
