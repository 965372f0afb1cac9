"""Our PyTorch reference of PolyNorm (PolyCom): w0 * norm(x^3) + w1 * norm(x^2) + w2 * norm(x) + b,
where norm(u) = u / sqrt(mean(u^2) + eps) over the last dimension."""

import torch


def poly_norm(x, weight, bias):
    def norm(u):
        return u * torch.rsqrt(u.pow(2).mean(-1, keepdim=True) + 1e-6)

    return weight[0] * norm(x ** 3) + weight[1] * norm(x ** 2) + weight[2] * norm(x) + bias
