#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build of the libFuzzer targets (fuzz/libfuzzer): the nested build
# (UOPFUZZ_TARGETS=libfuzzer-only) with the environment's $CC, $CXX, $CFLAGS, $CXXFLAGS and
# $LIB_FUZZING_ENGINE; targets, seed corpora (staged by that build), dictionary and options go to $OUT.
# Runs from the repository root (the image's WORKDIR). Locally, for example:
#   CC=clang CXX=clang++ CFLAGS="-O1 -gline-tables-only -fsanitize=address,fuzzer-no-link" \
#   CXXFLAGS="$CFLAGS" LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/out WORK=/tmp/work .clusterfuzzlite/build.sh
src=$PWD
[[ -f $src/fuzz/libfuzzer/targets.cmake ]] || { echo "build.sh: run from the repository root" >&2; exit 1; }
build=$WORK/uopfuzz-libfuzzer
# Division of a float by zero is IEEE arithmetic the reference computes on purpose (docs/semantics.md), and
# unsigned wrap-around is defined (hashes, the RNG): neither is a finding, though OSS-Fuzz's
# `undefined` flag set reports both.
quiet="-fno-sanitize=float-divide-by-zero,unsigned-integer-overflow"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$src" -B "$build" "${generator[@]}" \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS $quiet" -DCMAKE_CXX_FLAGS="$CXXFLAGS $quiet" \
  -DUOPFUZZ_TARGETS=libfuzzer-only -DUOPFUZZ_FUZZ_FLAGS= -DUOPFUZZ_FUZZ_ENGINE="$LIB_FUZZING_ENGINE"
cmake --build "$build" -j "$(nproc)"

# The seed corpora: what the nested build staged in $build/seeds/ (fuzz/libfuzzer/targets.cmake), the
# same corpora CTest runs the targets on.
lf=$src/fuzz/libfuzzer
for t in parse_target diff_target; do
  cp "$build/$t" "$OUT/"
  rm -f "$OUT/${t}_seed_corpus.zip"
  (cd "$build/seeds/$t" && cmake -E tar cf "$OUT/${t}_seed_corpus.zip" --format=zip -- *.uop)
done
cp "$lf/uop.dict" "$OUT/parse_target.dict"
# The differential target compiles each new input: give it time, and keep inputs program-sized.
printf '[libfuzzer]\nmax_len = 65536\ntimeout = 60\n' >"$OUT/diff_target.options"
printf '[libfuzzer]\nmax_len = 16384\n' >"$OUT/parse_target.options"
