void divmod_fast(uint8_t* restrict data0, int32_t* restrict data1) {
  uint8_t val1 = data0[0];
  int32_t alu2 = ((int32_t)val1);
  data1[0] = (alu2/4);
  data1[1] = (alu2%4);
  data1[2] = uf_floordiv_i32(alu2,(-4));
  data1[3] = uf_floormod_i32(alu2,(-4));
}
