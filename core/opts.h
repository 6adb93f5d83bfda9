// An optimization sequence (docs/format.md, the `opts` line): what a program asks its target's optimizer
// to do, e.g. `opts UPCAST:0:4 UNROLL:1:2`. A step names the RANGE it acts on by that RANGE's axis number,
// not by the target's own axis numbering, so dropping one step does not retarget the next.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace uf {

struct Program;
struct UOp;

struct OptStep {
  std::string action;  // the target's name for it (tinygrad: an OptOps name), [A-Z][A-Z_]*
  int64_t axis = -1;   // the axis of the RANGE it acts on; -1: none
  int64_t arg = -1;    // its amount (tinygrad: 0 is the whole range); -1: none (then axis is given or none)
  auto operator<=>(const OptStep&) const = default;
};
using OptSequence = std::vector<OptStep>;

// `NAME`, `NAME:AXIS` or `NAME:AXIS:ARG`; nullopt when `text` is not one.
std::optional<OptStep> parse_opt(std::string_view text);
std::string format_opt(const OptStep& o);
std::string format_opts(const OptSequence& s);  // the steps joined by blanks ("" when empty)

// Throws UserError (at the opts line when the program knows it) when a step names an axis that no RANGE
// of the program, or more than one, has.
// `order`: the program's linear order (linearize).
void check_opts(const Program& p, const std::vector<const UOp*>& order);

}  // namespace uf
