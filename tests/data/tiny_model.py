"""A tiny model for the capture tool's tests: 32 -> 64 -> 10 with a ReLU.
Parameters: 32*64 + 64 + 64*10 + 10 = 2762."""
import torch


def build(batch_size, device):
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    inputs = torch.randn(batch_size, 32, device=device)
    targets = torch.randint(0, 10, (batch_size,), device=device)
    return model.to(device), torch.nn.CrossEntropyLoss(), inputs, targets


def broken(batch_size, device):
    raise ValueError("this model cannot be built")


class ScaledBlock(torch.nn.Module):
    """A module with a child that also holds a parameter of its own, as timm's BatchNormAct2d and
    a transformer's embeddings do: the capture must still list `scale`."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(64))
        self.act = torch.nn.ReLU()

    def forward(self, x):
        return self.act(x * self.scale)


def with_parent_parameter(batch_size, device):
    """32 -> 64, a 64-element scale on a parent module, -> 10: 2762 + 64 = 2826 parameters."""
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), ScaledBlock(), torch.nn.Linear(64, 10))
    inputs = torch.randn(batch_size, 32, device=device)
    targets = torch.randint(0, 10, (batch_size,), device=device)
    return model.to(device), torch.nn.CrossEntropyLoss(), inputs, targets
