// The protocol-2 handshake (docs/format.md section 5): `CMD... --uopfuzz-describe` prints one JSON
// object saying what the plug-in serves and tests. A plug-in that does not answer speaks protocol 1.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/ops.h"

#include "codegen/languages.h"  // OutputLanguage: what its renders are

namespace uf {

// How uopfuzz speaks to a plug-in, in the order it prefers them (the table of their names is in
// plugin_describe.cpp).
enum class RendererProtocol { server, batch, program };
std::string protocol_name(RendererProtocol p);  // "server", "batch", "program"
std::optional<RendererProtocol> protocol_from_name(const std::string& name);

struct PluginTarget {
  std::string name, version;
  std::string text() const;  // "NAME VERSION" (meta target), "" when there is no name
};

struct PluginDescription {
  int protocol = 1;                     // 1: no handshake (the other fields are empty)
  // Protocol 1 because `--uopfuzz-describe` failed and said why on stderr (its last line, with the exit
  // status): a protocol-2 plug-in that cannot start (tinygrad not importable) is told apart from a plug-in
  // that has no handshake, which the user is told.
  std::string handshake_failure;
  std::vector<RendererProtocol> modes;  // what it serves
  OutputLanguage language = OutputLanguage::c;
  PluginTarget target;
  std::vector<std::string> without;  // --without names of what the target cannot take (unchecked here)
  // "one_unit": true: its renders of one batch may be compiled as one translation unit (the lines they
  // all begin with once, then the rest of each), which saves a compiler front end per program.
  bool one_unit = false;
  // "switches": what of the target can be switched off one at a time, in a server request's "off" (a
  // culprit search, fuzz/oracle/culprit.h; tinygrad: its rewrite rules). Needs the server mode.
  std::vector<std::string> switches;
  // "reachable": the switches a generated program can reach at all (tinygrad: its kernel pipeline's rules,
  // not its front end's), each one of `switches`: what target coverage counts against. Empty: all of them.
  std::vector<std::string> reachable;
  // "switch_source": one line of text per switch (tinygrad: the rule's first source line), which the
  // report shows beside a switch no program fired.
  std::map<std::string, std::string> switch_source;
  // "opts": the optimization actions the target takes (tinygrad: its OptOps names): a program may carry
  // an optimization sequence of them (docs/format.md, the `opts` line), which the generator draws.
  std::vector<std::string> opts;
  // "approximate": the ops the target computes approximately on floats (tinygrad: those its renderer lacks,
  // done by its own polynomials), each one the budget judges (interp/approx.h: SIN, LOG2, EXP2, POW, SQRT,
  // RECIP): their stored results are judged by their distance from the correctly rounded value.
  std::vector<Op> approximate;
  // "exports": formats `uopfuzz export --as FORMAT` may ask it for, in an "export" server request.
  std::vector<std::string> exports;
  // "reach": the target's front-end level (tinygrad: "tensor"): it answers "reach" server requests, whether
  // a finding fails as it does through that front end too, or only as a hand-built kernel. "" when none.
  std::string reach;

  // What the target suggests for a campaign (docs/format.md, "Target suggestions"), each path relative to
  // uopfuzz's working directory: "policy" a generator policy file (what --policy reads), "seeds"
  // directories of program seeds that campaigns read and never write, "known" the directory of its
  // tracked findings (what --known reads). `uopfuzz fuzz` uses them unless its options say otherwise.
  std::string policy;
  std::vector<std::string> seeds;
  std::string known;
  // "command": the plug-in's command line with every option its defaults choose spelled out: what a
  // campaign runs and records (`meta renderer`), so a reproducer keeps its meaning when the defaults change.
  std::string command;
  // "cc", "cflags": the compiler and flags its language needs (tinygrad's C: clang), used where neither a
  // flag nor the program's meta names one.
  std::string cc, cflags;
  // "backends": the target's sibling configurations (tinygrad: one per CPU backend), each a renderer
  // command and the compiler its language needs ("" keeps the caller's): `triage` runs a finding on each.
  struct Backend {
    std::string name, renderer, cc, cflags;
  };
  std::vector<Backend> backends;

  // The mode uopfuzz uses: the first of server, batch, program that it serves.
  RendererProtocol best_mode() const;
  bool serves(RendererProtocol p) const;
};

inline constexpr double kDescribeTimeoutS = 10;
inline constexpr int kPluginProtocol = 2;  // the highest protocol this uopfuzz speaks

// Runs the handshake (stdin /dev/null, own process group, kDescribeTimeoutS, 1 MiB of stdout): a protocol-1
// description when the plug-in exits non-zero, prints no JSON object or times out. Throws UserError, naming
// the command and the key, for a malformed description, a higher protocol or an unknown language.
PluginDescription describe_plugin(const std::string& cmd);
// The checks of describe_plugin on a JSON text it printed (nullopt: not a JSON object, so protocol 1).
std::optional<PluginDescription> parse_description(const std::string& json, const std::string& cmd);

}  // namespace uf
