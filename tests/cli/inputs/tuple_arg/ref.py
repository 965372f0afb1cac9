# The reference of bwd.py, taking the residuals as arrays of their own.
import torch


def scaled_bwd(x, w, g):
    return g * w + x
