__device__ float gelu(float v) {
  return 0.5f * v * (1.0f + erff(v * 0.70710678f));
}
__device__ float clamp01(float v) {
  if (v < 0.0f) return 0.0f;
  if (v > 1.0f) return 1.0f;
  return v;
}
__global__ void act(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = clamp01(gelu(x[i]));
}
void launch(const float* x, float* y, int n) { act<<<(n + 255) / 256, 256>>>(x, y, n); }
