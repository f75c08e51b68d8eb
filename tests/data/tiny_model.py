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
