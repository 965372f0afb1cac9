# The reference of row_stats.cu, returning its outputs in the other order: biggest, then total.
import torch


def row_stats(x):
    total = x.sum(1)
    biggest = x.amax(1)
    return biggest, total.view(-1)
