#!/usr/bin/env python3
# A deliberately broken renderer for the vector tests: uopfuzz's renderer, except that lanes 0 and 1 of
# every vector are read swapped (GEP and the lane-by-lane rules read vecN[1] for lane 0 and vecN[0] for
# lane 1): a wrong lane order. The fuzzer must find it, reduce it and replay it
# (tests/fuzz/campaign/vector_campaign_test.cpp).
from renderer_edit import serve

if __name__ == "__main__":
    serve("lanes_swapped", kernel=[(r"(vec[0-9]+)\[([01])\]", lambda m: "%s[%d]" % (m.group(1), 1 - int(m.group(2))))])
