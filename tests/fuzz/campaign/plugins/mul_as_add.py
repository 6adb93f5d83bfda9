#!/usr/bin/env python3
# A deliberately broken renderer for the fuzzer's fault tests: uopfuzz's renderer, except that integer
# multiplication is rendered as addition, as tests/fuzz/campaign/broken_renderer.sh does in protocol 1.
# This one is a long-lived server (protocol 2), so a campaign finds, reduces and saves all the time
# while a plug-in process lives beside its workers (tests/faults/signals_test.cpp).
from renderer_edit import serve

if __name__ == "__main__":
    serve("mul_as_add", kernel=[(r"\buf_mul_", "uf_add_")])
