"""A small CPU-only training job for `stepdoctor run`: a model step on torch's threads and a
per-sample preprocessing step in Python (num_workers=0, so in the training process itself).

    stepdoctor run --interval 500ms -- python3 examples/live/train.py [--seconds 8] [--workers 0]
"""
import argparse
import time

import torch
from torch.utils.data import DataLoader, Dataset


class Synthetic(Dataset):
    def __len__(self):
        return 1_000_000

    def __getitem__(self, i):
        # Python-side "augmentation": deliberately slow, like decoding in pure Python.
        x = [((i * 31 + k) % 97) / 97.0 for k in range(512)]
        for _ in range(3):
            x = [v * 0.99 + 0.01 for v in x]
        return torch.tensor(x), i % 10


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=8)
    p.add_argument("--workers", type=int, default=0)
    a = p.parse_args()
    model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Synthetic(), batch_size=64, num_workers=a.workers)
    end = time.time() + a.seconds
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if time.time() > end:
            break
    print(f"{step + 1} steps, loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
