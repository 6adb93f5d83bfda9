// reduce_c: the interestingness script, C-Vise's run under a deadline, and the check of what it kept.
#include "codegen/c_reduce.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "codegen/runtime/compiler.h"
#include "codegen/runtime/files.h"
#include "codegen/runtime/process.h"
#include "core/error.h"

namespace uf {

namespace {

namespace fs = std::filesystem;

std::string escape_regex(const std::string& s) {
  static const std::string special = R"(\^$.|?*+()[]{})";
  std::string out;
  for (char c : s) {
    if (special.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

bool is_clang(const std::string& cc) {
  try {
    return compiler_id(cc).version.find("clang") != std::string::npos;
  } catch (const UserError&) { return false; }
}

// The lines of the script that build repro.c with the failing configuration and judge its failure.
// `want`: the failing run's output, recorded by the first run (UOPFUZZ_RECORD set): a wrong-code
// reduction keeps the same wrong values, not just some difference (an emptied kernel differs too).
std::string failure_check(const CReduceSpec& s, const std::string& want) {
  // clang's crash reports would leave preprocessed copies behind at every step
  const std::string cc = shell_quote(s.cc) + " " + s.cflags + (is_clang(s.cc) ? " -fno-crash-diagnostics" : "");
  if (s.failure == "compile-error") {
    const std::string pattern = compile_error_pattern(s.compile_message);
    if (pattern.empty()) throw UserError("reduce --c: the compile error has no line to keep (nothing like `error:`)");
    const std::string valid = is_clang(s.cc) ? "gcc" : "clang";  // valid C: another compiler takes it
    return cc + " -fPIC -c -o repro.o repro.c > build.log 2>&1 && fail 'it compiles'\n"
                "grep -Eq " + shell_quote(pattern) + " build.log || fail 'the compiler fails otherwise'\n" +
           valid + " -O0 -Werror=implicit-function-declaration -Werror=implicit-int -Werror=return-type -c -o valid.o repro.c > "
                   "valid.log 2>&1 || fail '" + valid + " -O0 rejects it (not valid C)'\n";
  }
  std::string check = cc + " -fPIC -o repro repro.c -lm > build.log 2>&1 || fail 'it does not build'\n"
                           "timeout 10 ./repro > run.log 2>&1; status=$?\n";
  if (s.failure == "crash")
    check += "[ $status -eq " + std::to_string(128 + s.signal) + " ] || fail 'it does not die by signal " + std::to_string(s.signal) + "'\n";
  else
    check += "[ $status -eq 1 ] && grep -Eq '^buf[0-9]+\\[[0-9]+\\] = .* expected ' run.log || fail 'it prints no difference'\n";
  check += "[ -n \"${UOPFUZZ_RECORD:-}\" ] && cp run.log " + want + "\ncmp -s run.log " + want +
           " || fail 'it prints another difference'\n";
  // No undefined behaviour: both compilers at -O0 with the sanitizers run it clean, and one of them
  // prints the expected values (the failure is the failing configuration's, not the program's).
  check += "ok=0\nfor san in gcc clang; do\n"
           "  $san -O0 -g -fsanitize=undefined,address -fno-sanitize-recover=all -Werror=implicit-function-declaration \\\n"
           "    -Werror=implicit-int -Werror=return-type -Werror=uninitialized -Werror=int-conversion -o san repro.c -lm \\\n"
           "    > san.log 2>&1 || fail \"$san -O0 with sanitizers does not build it\"\n"
           "  ASAN_OPTIONS=detect_leaks=0 timeout 20 ./san > san.log 2>&1; s=$?\n"
           "  grep -Eq 'runtime error|AddressSanitizer' san.log && fail \"undefined behaviour ($san sanitizers): the C is at fault\"\n"
           "  [ $s -eq 0 ] && ok=1\ndone\n"
           "[ $ok = 1 ] || fail \"no other configuration prints the expected values (gcc and clang at -O0 differ too: the C "
           "computes it, so the bug is the renderer's; reduce the .uop)\"\n";
  return check;
}

std::string script(const CReduceSpec& s) {
  const fs::path dir = s.work_dir;
  return "#!/bin/sh\n# uopfuzz reduce --c: exit 0 when ./kernel.c, followed by the driver, still fails as recorded.\n"
         "export TMPDIR=\"$PWD\"\nfail() { echo \"$1\" > why.txt; exit 1; }\n"
         "cat kernel.c " + shell_quote((dir / "driver.c").string()) + " > repro.c || exit 1\n" +
         failure_check(s, shell_quote((dir / "want.log").string())) + "exit 0\n";
}

void write(const std::string& path, const std::string& text) {
  if (const FileError e = write_file(path, text, {.mode = 0755})) throw UserError(e.message());
}

// Runs the script on the kernel in `dir`: "" when interesting, else why not. `record`: the first run,
// which keeps the failing run's output as the one to keep.
std::string interesting(const std::string& dir, bool record = false) {
  ProcessOptions po;
  po.timeout_s = 120;
  if (record) po.env.push_back("UOPFUZZ_RECORD=1");
  const ProcessResult r = run_process({"sh", "-c", "cd " + shell_quote(dir) + " && sh ./test.sh"}, po);
  if (r.ok()) return "";
  std::string why;
  std::ifstream f(fs::path(dir) / "why.txt");
  std::getline(f, why);
  return why.empty() ? r.describe() : why;
}

// The kernel with its own macros expanded by the failing compiler's preprocessor (its #include lines kept
// as they are, not expanded): C-Vise's passes do not see through a macro that defines a family of
// functions (the prelude's UF_INT(t, T, ...)), so most of such a prelude would stay. "" when the
// preprocessor fails.
std::string expand_own_macros(const CReduceSpec& s, const fs::path& dir) {
  std::string includes, rest;
  for (size_t at = 0; at < s.kernel.size();) {
    const size_t nl = s.kernel.find('\n', at);
    const std::string line = s.kernel.substr(at, nl == std::string::npos ? std::string::npos : nl - at + 1);
    (line.rfind("#include", 0) == 0 ? includes : rest) += line;
    at = nl == std::string::npos ? s.kernel.size() : nl + 1;
  }
  write((dir / "unexpanded.c").string(), rest);
  std::vector<std::string> argv{s.cc};
  for (std::string& f : split_command(s.cflags)) argv.push_back(std::move(f));
  argv.insert(argv.end(), {"-E", "-P", (dir / "unexpanded.c").string()});
  const ProcessResult r = run_process(argv);
  return r.ok() ? includes + r.out : "";
}

}  // namespace

std::string compile_error_pattern(const std::string& message) {
  std::smatch m;
  // A backend's instruction selection: the node's type and name, not its addresses.
  if (std::regex_search(message, m, std::regex(R"(Cannot select: [^:]*: (\S+) = (\S+))")))
    return "Cannot select: [^:]*: " + escape_regex(m[1].str()) + " = " + escape_regex(m[2].str()) + "( |$)";
  if (std::regex_search(message, m, std::regex(R"(internal compiler error: (in \S+))")))
    return "internal compiler error: " + escape_regex(m[1].str());
  if (std::regex_search(message, m, std::regex(R"(Assertion `([^']*)' failed)")))
    return "Assertion `" + escape_regex(m[1].str()) + "' failed";
  if (std::regex_search(message, m, std::regex(R"(error: ([^\n]*))"))) return "error: " + escape_regex(m[1].str());
  return "";
}

CReduceResult reduce_c(const CReduceSpec& s) {
  if (s.failure != "compile-error" && s.failure != "crash" && s.failure != "mismatch")
    throw UserError("reduce --c reduces compile-errors, crashes and mismatches, not a " + s.failure);
  const std::string cvise = find_executable("cvise");
  if (cvise.empty()) throw UserError("reduce --c needs C-Vise (`cvise`, Debian package cvise; tools/setup installs it)");
  const fs::path dir = s.work_dir;
  write((dir / "driver.c").string(), s.driver);
  write((dir / "kernel.c").string(), s.kernel);
  CReduceResult r;
  r.script = script(s);
  write((dir / "test.sh").string(), r.script);
  if (const std::string why = interesting(dir.string(), true); !why.empty())
    throw UserError("reduce --c: the exported C does not fail as recorded to begin with: " + why);
  if (const std::string expanded = expand_own_macros(s, dir); !expanded.empty()) {
    write((dir / "kernel.c").string(), expanded);
    if (!interesting(dir.string()).empty()) write((dir / "kernel.c").string(), s.kernel);  // the macros mattered
  }
  const auto start = std::chrono::steady_clock::now();
  ProcessOptions po;
  po.timeout_s = s.time_s;
  const ProcessResult ran = run_process({"sh", "-c", "cd " + shell_quote(dir.string()) + " && exec " + shell_quote(cvise) + " --n " +
                                                         std::to_string(s.jobs) + " --timeout 60 --tidy ./test.sh kernel.c"},
                                        po);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.complete = ran.ok();
  std::ifstream f(dir / "kernel.c");
  r.kernel.assign(std::istreambuf_iterator<char>(f), {});
  if (!interesting(dir.string()).empty()) r.kernel = s.kernel;  // stopped mid-write: keep what surely fails
  return r;
}

}  // namespace uf
