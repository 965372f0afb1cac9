__global__ void relu(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  if (v < 0.0f) v = 0.0f;
  y[i] = v;
}
void launch(const float* x, float* y, int n) {
  relu<<<(n + 127) / 128, 128>>>(x, y, n);
}
