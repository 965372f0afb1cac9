# RUN: lowercheck lower %s --no-loc | filecheck %s
# A KernelBench problem: softmax(a @ b) * scale, with a weightless Model built from get_init_inputs().
# torch.export ties a's columns to b's rows (one size, a_size1), the result is [a_size0, b_size1],
# and the operator graph is kept in order; get_inputs()'s sizes are the example.

import torch
import torch.nn as nn

M, K, N = 64, 32, 48


class Model(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, a, b):
        return torch.softmax(a @ b, dim=-1) * self.scale


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return [0.5]

# CHECK:      kernel.entry @Model attributes {language = "torch", file = "{{.*}}torch_kernelbench.py"} {
# CHECK-NEXT:   kernel.param {name = "a", kind = "buffer", role = "in", element_type = f32, shape = ["a_size0", "a_size1"]}
# CHECK-NEXT:   kernel.param {name = "b", kind = "buffer", role = "in", element_type = f32, shape = ["a_size1", "b_size1"]}
# CHECK-NEXT:   kernel.param {name = "return0", kind = "buffer", role = "out", element_type = f32, shape = ["a_size0", "b_size1"]}
# CHECK-NEXT:   kernel.aten {target = "aten.matmul.default", result = "matmul", args = ["a", "b"], shape = ["a_size0", "b_size1"], element_type = f32}
# CHECK-NEXT:   kernel.aten {target = "aten.softmax.int", result = "softmax", args = ["matmul", "-1"], shape = ["a_size0", "b_size1"], element_type = f32}
# CHECK-NEXT:   kernel.aten {target = "aten.mul.Tensor", result = "return0", args = ["softmax", "0.5"], shape = ["a_size0", "b_size1"], element_type = f32}
# CHECK-NEXT:   kernel.example {names = ["a_size0", "a_size1", "b_size1"], values = [64 : i64, 32 : i64, 48 : i64]}
# CHECK-NEXT: }
