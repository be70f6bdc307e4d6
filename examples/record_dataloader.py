#!/usr/bin/python3
"""Record small PyTorch profiler Chrome traces of a CPU training loop.

Usage (from the repository root):

    /usr/bin/python3 examples/record_dataloader.py input_bound
    /usr/bin/python3 examples/record_dataloader.py in_memory

Both scenarios train the same small CNN on the same synthetic 3x32x32 images
(batch size 32, SGD) under torch.profiler with a wait=1, warmup=1, active=6
schedule, and call prof.step() once per iteration so every profiled step is
wrapped in a ProfilerStep#N annotation.

  input_bound  The Dataset builds and augments every image in __getitem__
               (plain tensor ops on one thread) and the DataLoader runs with
               num_workers=0, so each step waits for the batch to be made
               inside enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__.

  in_memory    The same batches are built once before profiling and kept in a
               Python list; the profiled loop iterates a DataLoader over that
               list (batch_size=None), so __next__ only hands out a ready
               tensor and the step is dominated by forward/backward/optimizer.

The trace is written with prof.export_chrome_trace() and then gzip-compressed
with Python's gzip module (mtime=0, no embedded file name) to
examples/dataloader_<scenario>.pt.trace.json.gz.
"""

import argparse
import gzip
import os
import shutil
import sys
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, Dataset

SEED = 1234
BATCH_SIZE = 32
IMAGE_SHAPE = (3, 32, 32)
NUM_CLASSES = 10
WAIT, WARMUP, ACTIVE = 1, 1, 6
NUM_STEPS = WAIT + WARMUP + ACTIVE
# Number of augmentation passes per item; sets how slow __getitem__ is.
AUG_ROUNDS = 6

EXAMPLES_DIR = os.path.dirname(os.path.abspath(__file__))


class SyntheticImages(Dataset):
    """Deterministic synthetic images with a CPU-heavy per-item pipeline.

    Every item is generated from its own index-seeded generator, then run
    through a few rounds of blur / flip / crop-and-pad / normalise so that
    __getitem__ costs real CPU time on the calling thread.
    """

    def __init__(self, length, aug_rounds=AUG_ROUNDS):
        self.length = length
        self.aug_rounds = aug_rounds
        c = IMAGE_SHAPE[0]
        blur = torch.tensor([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16.0
        self.blur = blur.expand(c, 1, 3, 3).contiguous()
        self.mean = torch.tensor([0.49, 0.48, 0.45]).view(c, 1, 1)
        self.std = torch.tensor([0.25, 0.24, 0.26]).view(c, 1, 1)

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        g = torch.Generator().manual_seed(SEED + index)
        img = torch.rand(IMAGE_SHAPE, generator=g)
        label = int(torch.randint(NUM_CLASSES, (1,), generator=g))
        for r in range(self.aug_rounds):
            # Depthwise 3x3 blur.
            img = F.conv2d(img.unsqueeze(0), self.blur, padding=1, groups=IMAGE_SHAPE[0])[0]
            # Horizontal flip on alternate rounds, picked by the index.
            if (index + r) % 2 == 0:
                img = torch.flip(img, dims=[2])
            # Random crop of 28x28 and reflect-pad back to 32x32.
            oy, ox = torch.randint(0, 5, (2,), generator=g).tolist()
            img = F.pad(img[:, oy:oy + 28, ox:ox + 28].unsqueeze(0), (2, 2, 2, 2), mode="reflect")[0]
            # Brightness / contrast jitter and clamp.
            scale, shift = (torch.rand(2, generator=g) * 0.2 + 0.9).tolist()
            img = ((img - img.mean()) * scale + img.mean() * shift).clamp_(0.0, 1.0)
        img = (img - self.mean) / self.std
        return img, label


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 8 * 8, 128)
        self.fc2 = nn.Linear(128, NUM_CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def make_loader(scenario):
    dataset = SyntheticImages(length=NUM_STEPS * BATCH_SIZE)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=False, num_workers=0)
    if scenario == "input_bound":
        return loader
    # in_memory: build every batch up front (outside the profiler), keep them
    # in a list and only hand them out inside the profiled loop.
    batches = [(x.clone(), y.clone()) for x, y in loader]
    return DataLoader(batches, batch_size=None, shuffle=False, num_workers=0)


def gzip_trace(src, dst):
    with open(src, "rb") as fin, open(dst, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as fout:
            shutil.copyfileobj(fin, fout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=["input_bound", "in_memory"])
    parser.add_argument("--out", default=None,
                        help="output path (default: examples/dataloader_<scenario>.pt.trace.json.gz)")
    args = parser.parse_args()
    out = args.out or os.path.join(EXAMPLES_DIR, f"dataloader_{args.scenario}.pt.trace.json.gz")

    torch.manual_seed(SEED)
    torch.set_num_threads(1)

    loader = make_loader(args.scenario)
    model = SmallCNN()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    model.train()

    def on_trace_ready(prof):
        fd, tmp = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        try:
            prof.export_chrome_trace(tmp)
            if out.endswith(".gz"):
                gzip_trace(tmp, out)
            else:
                shutil.copyfile(tmp, out)
        finally:
            os.remove(tmp)

    with profile(
        activities=[ProfilerActivity.CPU],
        schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1),
        on_trace_ready=on_trace_ready,
    ) as prof:
        for step, (images, labels) in enumerate(loader):
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            prof.step()
            if step + 1 >= NUM_STEPS:
                break

    print(f"torch {torch.__version__}, scenario {args.scenario}, "
          f"final loss {loss.item():.4f}, wrote {out} ({os.path.getsize(out)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
