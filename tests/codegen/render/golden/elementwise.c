void elementwise(float* restrict data0, float* restrict data1, float* restrict data2) {
  float val1 = data0[0];
  float val2 = data1[0];
  data2[0] = (uf_product_f32(val1,val2)+1.0f);
  float val3 = data0[1];
  float val4 = data1[1];
  data2[1] = (uf_product_f32(val3,val4)+1.0f);
  float val5 = data0[2];
  float val6 = data1[2];
  data2[2] = (uf_product_f32(val5,val6)+1.0f);
  float val7 = data0[3];
  float val8 = data1[3];
  data2[3] = (uf_product_f32(val7,val8)+1.0f);
}
