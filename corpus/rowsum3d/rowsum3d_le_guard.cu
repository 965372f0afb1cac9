// rowsum3d, seeded bug: the row guard is `idx <= B * T`, so thread B*T reads the row past the end of
// inp and stores past the end of out (row B*T is batch B, one past the last).

__global__ void rowsum3d_kernel(const float* inp, float* out, int B, int T, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx <= B * T) {
        float s = 0.0f;
        for (int c = 0; c < C; c++) {
            s += inp[idx * C + c];
        }
        out[idx] = s;
    }
}

void rowsum3d(const float* inp, float* out, int B, int T, int C) {
    int n = B * T;
    rowsum3d_kernel<<<(n + 127) / 128, 128>>>(inp, out, B, T, C);
}
