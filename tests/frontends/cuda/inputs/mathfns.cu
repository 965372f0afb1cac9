__global__ void maths(const float* x, double* d, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = expf(v) + tanhf(v) + sqrtf(fabsf(v)) + logf(v) + powf(v, 2.0f) + fmaxf(v, 0.0f) + fminf(v, 1.0f);
    d[i] = exp(d[i]) + tanh((double)v);
  }
}
void launch(const float* x, double* d, float* y, int n) { maths<<<(n + 255) / 256, 256>>>(x, d, y, n); }
