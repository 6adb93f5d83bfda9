void alloc_after(float* restrict data0, float* restrict data1) {
  float acc0 = 0;
  float val1 = data0[0];
  float val2 = data0[1];
  acc0 = (val1+val2);
  float val3 = acc0;
  data1[0] = uf_product_f32(val3,val3);
}
