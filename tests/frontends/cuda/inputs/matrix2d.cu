__global__ void add2d(const float* a, float* out, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    out[row * cols + col] = 2.0f * a[row * cols + col];
  }
}
void launch2d(const float* a, float* out, int rows, int cols) {
  dim3 block(16, 16);
  dim3 grid((cols + block.x - 1) / block.x, (rows + 15) / 16);
  add2d<<<grid, block>>>(a, out, rows, cols);
}
