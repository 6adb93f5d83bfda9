# tg_reduce.py: our accumulator loops as tinygrad's REDUCE (uopfuzz_tinygrad.py --reduce int). tinygrad's own
# front end never builds an accumulator: it writes REDUCE(value, ranges) and lowers it late (codegen's
# reduce_ranges_to_acc), after its reduction rules (simplify.py's reduce_collapse, reduce_unparented, the
# REDUCE expansion of codegen/__init__.py) had their turn. An accumulator loop of ours in the exact shape
# tinygrad lowers to (docs/semantics.md, "Accumulators") is given to tinygrad as the REDUCE it came from, so
# those rules see it. Integers only: their ADD, MUL and MAX wrap and are associative, so any order tinygrad
# picks (it splits and reorders reductions) gives our value bit for bit; a float sum would not.
import collections
from dataclasses import dataclass

OPS = ("ADD", "MUL", "MAX")


@dataclass(frozen=True)
class Reduction:
  """What a LOAD of a finished accumulator is: op over value for every iteration of ranges, after init."""
  op: str
  value: object
  ranges: tuple
  init: object


def is_zero(n): return n.op.name == "CONST" and n.arg == 0


def identity(op, dtype):
  """The value op starts from: 0, 1, or the dtype's minimum for MAX."""
  if op == "ADD": return 0
  if op == "MUL": return 1
  bits = dtype.itemsize * 8
  return -(1 << (bits - 1)) if dtype.is_signed else 0


def users_of(program):
  users = collections.defaultdict(list)
  for n in program.nodes:
    for s in n.sources:
      if n not in users[s.id]: users[s.id].append(n)
  return users


def accumulation(end, users):
  """The LOADs an accumulator loop closed by END produces, as {load id: Reduction}, or {} when the loop is not
  exactly an integer accumulator nothing else touches: INDEX(AFTER(acc, init store, ranges), 0) loaded, op-ed
  with a value, stored back; the END closing just those ranges; the result read through AFTER(acc, END)."""
  store, ranges = end.sources[0], end.sources[1:]
  if store.op.name != "STORE" or len(store.sources) != 2: return {}
  at, step = store.sources
  if at.op.name != "INDEX" or not is_zero(at.sources[1]) or step.op.name not in OPS: return {}
  during = at.sources[0]
  if during.op.name != "AFTER" or len(during.sources) < 3 or during.sources[0].op.name != "ALLOC": return {}
  acc, init_store = during.sources[0], during.sources[1]
  if acc.length != 1 or not acc.dtype.is_int or {r.id for r in during.sources[2:]} != {r.id for r in ranges}: return {}
  # tinygrad's front end reduces no axis of size 0 or 1 (it folds them first; its rules assume so: a RANGE
  # of one trip folds to 0 under a REDUCE that then fails its assert, codegen/simplify.py:84)
  if any(r.sources[0].op.name == "CONST" and r.sources[0].arg <= 1 for r in ranges): return {}
  loads = [s for s in step.sources if s.op.name == "LOAD" and s.sources == (at,)]
  if len(loads) != 1 or len(step.sources) != 2 or step.sources[0] is step.sources[1]: return {}
  value = step.sources[1] if step.sources[0] is loads[0] else step.sources[0]
  if users[loads[0].id] != [step] or users[step.id] != [store] or users[store.id] != [end] or users[at.id] != [loads[0], store]:
    return {}
  if users[during.id] != [at] or any(u.op.name == "END" and u is not end for r in ranges for u in users[r.id]): return {}
  if init_store.op.name != "STORE" or len(init_store.sources) != 2 or users[init_store.id] != [during]: return {}
  init_at = init_store.sources[0]
  if init_at.op.name != "INDEX" or not is_zero(init_at.sources[1]) or users[init_at.id] != [init_store]: return {}
  init_base = init_at.sources[0]
  if init_base is not acc and not (init_base.op.name == "AFTER" and init_base.sources[0] is acc and users[init_base.id] == [init_at]):
    return {}
  afters = users[end.id]
  if not afters or any(a.op.name != "AFTER" or a.sources != (acc, end) for a in afters): return {}
  reads = [i for a in afters for i in users[a.id]]
  if any(i.op.name != "INDEX" or not is_zero(i.sources[1]) for i in reads): return {}
  results = [ld for i in reads for ld in users[i.id]]
  if any(ld.op.name != "LOAD" or len(ld.sources) != 1 for ld in results): return {}
  if set(users[acc.id]) != {init_base if init_base is not acc else init_at, during, *afters}: return {}
  reduction = Reduction(step.op.name, value, tuple(ranges), init_store.sources[1])
  return {ld.id: reduction for ld in results}


def reductions(program):
  """Every accumulator loop of the program that is a tinygrad REDUCE: {result LOAD id: Reduction}."""
  users, found = users_of(program), {}
  for n in program.nodes:
    if n.op.name == "END": found.update(accumulation(n, users))
  return found
