// Every line of golden/alu.txt (tinygrad's own exec_alu) through exec_alu and through the interpreter,
// with operands as CONSTs and as values LOADed from BUFFERs. No line is skipped; any difference fails.
#include "interp/alu.h"
#include "support.h"

namespace uf::testing {
namespace {

struct AluCase {
  std::string line;
  Op op;
  DType result;
  std::vector<DType> dtypes;  // of each operand
  std::vector<Scalar> operands;
  bool undefined;
  Scalar expected;
};

std::vector<std::string> split(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

DType dtype_or_throw(const std::string& s) {
  if (auto d = parse_dtype(s)) return *d;
  throw std::runtime_error("bad dtype " + s);
}

// `OP DTYPE operands... -> result`; CAST/BITCAST write `SRC>DST`; WHERE's DTYPE is the value dtype and
// comparisons' DTYPE is the operand dtype.
AluCase parse_case(const std::string& line) {
  const auto t = split(line);
  AluCase c{line, Op::ADD, DType::Void, {}, {}, false, {}};
  const auto op = t.empty() ? std::nullopt : parse_op(t[0]);
  if (!op || !is_alu(*op)) throw std::runtime_error("bad op");
  c.op = *op;
  const size_t arity = static_cast<size_t>(info(c.op).arity);
  if (t.size() != arity + 4 || t[arity + 2] != "->") throw std::runtime_error("bad shape");
  if (c.op == Op::CAST || c.op == Op::BITCAST) {
    const size_t gt = t[1].find('>');
    if (gt == std::string::npos) throw std::runtime_error("bad SRC>DST");
    c.dtypes = {dtype_or_throw(t[1].substr(0, gt))};
    c.result = dtype_or_throw(t[1].substr(gt + 1));
  } else {
    const DType d = dtype_or_throw(t[1]);
    c.dtypes.assign(arity, d);
    if (c.op == Op::WHERE) c.dtypes[0] = DType::Bool;
    c.result = info(c.op).result == ResultRule::BOOL ? DType::Bool : d;
  }
  for (size_t k = 0; k < arity; ++k) c.operands.push_back(parse_or_throw(c.dtypes[k], t[2 + k]));
  c.undefined = t.back() == "UNDEFINED";
  if (!c.undefined) c.expected = parse_or_throw(c.result, t.back());
  return c;
}

struct Golden {
  std::vector<AluCase> cases;
  size_t declared = 0;  // the count the header promises
};

const Golden& golden() {
  static const Golden g = [] {
    Golden out;
    for (const std::string& line : read_lines(golden_path("alu.txt"))) {
      if (line.starts_with("#")) {
        // "..., seed 1, 53256 cases": the number before " cases"
        if (const size_t end = line.find(" cases"); end != std::string::npos) {
          const size_t begin = line.find_last_not_of("0123456789", end - 1) + 1;
          if (begin < end) out.declared = std::stoul(line.substr(begin, end - begin));
        }
        continue;
      }
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        out.cases.push_back(parse_case(line));
      } catch (const std::exception& e) {
        throw std::runtime_error("alu.txt: cannot parse '" + line + "': " + e.what());
      }
    }
    return out;
  }();
  return g;
}

std::string show(DType d, Scalar v) {
  std::ostringstream out;
  out << format_scalar(d, v) << " (bits 0x" << std::hex << v.u << ")";
  return out.str();
}

// Empty when the result agrees with the golden line, else what differs.
std::string compare(const AluCase& c, bool undefined, Scalar got) {
  if (c.undefined != undefined) return undefined ? "got UNDEFINED" : "got " + show(c.result, got) + ", want UNDEFINED";
  if (!c.undefined && !same_value(c.result, got, c.expected))
    return "got " + show(c.result, got) + ", want " + show(c.result, c.expected);
  return "";
}

// Runs every case through `run` and fails once per differing line (the first 200 printed in full).
template <class Run>
void check_all(Run run) {
  const Golden& g = golden();
  ASSERT_GT(g.declared, 0u) << "alu.txt header does not state its case count";
  ASSERT_EQ(g.cases.size(), g.declared) << "alu.txt holds a different number of cases than its header says";
  size_t failures = 0;
  for (const AluCase& c : g.cases) {
    const std::string diff = run(c);
    if (diff.empty()) continue;
    if (++failures <= 200) ADD_FAILURE() << c.line << "  ->  " << diff;
  }
  EXPECT_EQ(failures, 0u) << "golden ALU lines that differ";
}

TEST(InterpGoldenAlu, FileIsPresentAndComplete) {
  ASSERT_TRUE(std::filesystem::exists(golden_path("alu.txt"))) << golden_path("alu.txt");
  EXPECT_EQ(golden().cases.size(), 53256u);
}

TEST(InterpGoldenAlu, ExecAlu) {
  check_all([](const AluCase& c) {
    const AluResult r = exec_alu(c.op, c.result, c.dtypes.back(), c.operands.data());
    return compare(c, !r.defined(), r.value);
  });
}

std::string through_interpreter(const AluCase& c, bool from_memory) {
  OneOp one = one_op_program(c.op, c.result, c.dtypes, c.operands, from_memory);
  verify(one.program);
  const RefResult r = interpret(one.program);
  if (r.undefined && r.undefined->node != one.node) return "UNDEFINED at the wrong node: " + r.undefined->reason;
  if (r.undefined && r.undefined->reason.empty()) return "UNDEFINED without a reason";
  const Scalar got = r.undefined ? Scalar::zero() : r.buffers.at(0).at(0);
  return compare(c, r.undefined.has_value(), got);
}

TEST(InterpGoldenAlu, InterpreterWithConstOperands) {
  check_all([](const AluCase& c) { return through_interpreter(c, false); });
}

TEST(InterpGoldenAlu, InterpreterWithLoadedOperands) {
  check_all([](const AluCase& c) { return through_interpreter(c, true); });
}

}  // namespace
}  // namespace uf::testing
