# The reference of sum_atomic.cu: the total, returned as a 0-d tensor.
import torch


def total(x):
    return x.sum()
