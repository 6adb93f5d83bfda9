void casts_where(float* restrict data0, int32_t* restrict data1) {
  float val1 = data0[0];
  data1[0] = ((val1<0.0f)?(-1):uf_wrap_i32(uf_f2u64((double)val1)));
  float val2 = data0[1];
  data1[1] = ((val2<0.0f)?(-1):uf_wrap_i32(uf_f2u64((double)val2)));
  float val3 = data0[2];
  data1[2] = ((val3<0.0f)?(-1):uf_wrap_i32(uf_f2u64((double)val3)));
}
