import numpy as np
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """Vectorised on the host."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.from_numpy(np.maximum(x.detach().cpu().numpy(), 0)).to(x.device)
