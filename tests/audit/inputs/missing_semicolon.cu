// A syntax error: the statement on line 5 lacks its semicolon (nvcc reports the next line).
__global__ void shift(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float bias = 0.5f;
    float v = x[i] + bias
    if (i < n) {
        y[i] = v;
    }
}
