__global__ void scale(float* x, float s, size_t n) {
  float total = 0.0f;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    x[i] = x[i] * s;
    total += x[i];
  }
  int k = 0;
  while (k < 4) { k += 2; }
}
void launch(float* x, float s, size_t n) {
  scale<<<128, 256>>>(x, s, n);
}
