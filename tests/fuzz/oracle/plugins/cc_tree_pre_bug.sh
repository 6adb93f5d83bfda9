#!/bin/sh
# A C compiler with a bug tied to one optimisation flag, for the culprit search's tests: gcc, except that
# when -ftree-pre is in effect (-O2 and up, no -fno-tree-pre) every integer multiplication of uopfuzz's
# renderer is compiled as an addition. `--version` and `-Q --help=optimizers` are gcc's own.
pre=no
for a in "$@"; do
  case "$a" in
    -O2|-O3|-Os|-Ofast) pre=yes ;;
    -O0|-O1|-O|-Og) pre=no ;;
    -fno-tree-pre) pre=never ;;
  esac
done
[ "$pre" = yes ] || exec gcc "$@"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
n=0
for a in "$@"; do
  shift
  case "$a" in
    *.c) n=$((n + 1)); sed '/end of prelude/,$ s/uf_mul_/uf_add_/g' "$a" > "$dir/$n.c" && set -- "$@" "$dir/$n.c" ;;
    *) set -- "$@" "$a" ;;
  esac
done
gcc "$@"
