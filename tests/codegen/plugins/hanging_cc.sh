#!/bin/sh
# A C compiler that answers --version and then never finishes a compile: the budget, not the compiler,
# must end the call.
case "$1" in
  --version) echo "hanging_cc 1.0 (a test compiler that never finishes)" ;;
  *) exec sleep 1000 ;;
esac
