import torch


def scale(x):
    return 2.0 * x
