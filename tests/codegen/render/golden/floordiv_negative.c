void floordiv_negative(int32_t* restrict data0, int32_t* restrict data1) {
  int32_t val1 = data0[0];
  int32_t val2 = data0[1];
  data1[0] = uf_floordiv_i32(val1,val2);
  data1[1] = uf_floormod_i32(val1,val2);
}
