// A launcher that passes nullptr for an input the kernel does not read (DeepSpeed passes one for
// an optional residual through a macro): the kernel gets a buffer of no elements, `null0`.
__global__ void k(float* out, const float* res, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i];
}
#define LAUNCH_K() k<<<(n + 255) / 256, 256>>>(out, nullptr, x, n);
template <typename T>
void launch_plain(T* out, const T* x, int n) {
    k<<<(n + 255) / 256, 256>>>(out, nullptr, x, n);
}
template <typename T>
void launch_macro(T* out, const T* x, int n) {
    LAUNCH_K();
}
template void launch_plain<float>(float*, const float*, int);
template void launch_macro<float>(float*, const float*, int);
