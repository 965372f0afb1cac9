__global__ void udiv(const unsigned int* a, unsigned int* q, int* r, unsigned int n, int m) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    q[i] = a[i] / 3u + a[i] % n;
    r[i] = -m / 2 + m % 3;
    long long w = (long long)m * 2;
    r[i] += (int)(w >> 1);
  }
}
void launch(const unsigned int* a, unsigned int* q, int* r, unsigned int n, int m) {
  udiv<<<(n + 255) / 256, 256>>>(a, q, r, n, m);
}
