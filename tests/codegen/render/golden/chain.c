void chain(float* restrict data0, float* restrict data1) {
  float val1 = data0[0];
  float alu2 = (uf_product_f32(val1,val1)+val1);
  float alu3 = (uf_product_f32(alu2,alu2)+alu2);
  float alu4 = (uf_product_f32(alu3,alu3)+alu3);
  data1[0] = (uf_product_f32(alu4,alu4)+alu4);
}
