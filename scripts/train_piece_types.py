#!/usr/bin/python3
"""Trains one piece-type network (board squares or holding-area pieces) on the patches that
bench/train_piece_types cut (--patches DIR) and writes it as ONNX for vision's cv::dnn.

    /usr/bin/python3 scripts/train_piece_types.py --kind board --data DIR [--data DIR2 ...]
        --test DIR --out vision/models/piece_types_board.onnx [--epochs N]

Needs Debian's python3-torch and python3-numpy (run scripts/train-piece-types.sh, which does
the whole thing). Deterministic: fixed seeds, deterministic algorithms, one thread (two are
slower here than one: small convolutions).

The network: four 3x3 convolutions (batch-normalised, ReLU, 2x2 max-pooling), two fully
connected layers. Its input is the grey patch standardised (minus its mean, over its standard
deviation, at least 4 grey levels), exactly as vision/src/piece_types.cpp does before running
it; its outputs are logits whose softmax is the type probabilities (temperature fitted on
seeds held apart from training and folded into the last layer).
"""
import argparse
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

LETTERS = "PNBRQK"
CLASSES = {"board": 6, "holding": 5}  # no king is ever held
MIN_STDDEV = 4.0  # grey levels; as kMinStddev in vision/src/piece_types.cpp


def load_patches(path):
    """The patch file of bench/train_piece_types (format at its save_patches)."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, count, height, width = struct.unpack_from("<4sIIII", data, 0)
    if magic != b"BGPT" or version != 1:
        sys.exit(f"{path}: not a version 1 patch file")
    offset = 20
    patches = np.frombuffer(data, np.uint8, count * height * width, offset)
    patches = patches.reshape(count, height, width)
    offset += count * height * width
    labels = np.frombuffer(data, "<i4", count, offset).astype(np.int64)
    seeds = np.frombuffer(data, "<i4", count, offset + 4 * count).astype(np.int64)
    return patches, labels, seeds


def load_all(dirs, kind, name):
    parts = [load_patches(f"{d}/{kind}_{name}.bin") for d in dirs]
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))


def standardised(grey):
    """grey: float tensor N x 1 x H x W in grey levels."""
    mean = grey.mean(dim=(2, 3), keepdim=True)
    std = grey.std(dim=(2, 3), keepdim=True, unbiased=False).clamp(min=MIN_STDDEV)
    return (grey - mean) / std


def augmented(grey, generator):
    """Small shifts, scales, turns and mirror images (a mirrored piece is the same type), and
    contrast changes: the calibration's error and the light vary more than the stills show."""
    n = grey.shape[0]
    u = lambda lo, hi: lo + (hi - lo) * torch.rand(n, generator=generator)
    scale = u(0.9, 1.1)
    angle = u(-0.08, 0.08)
    mirror = torch.where(torch.rand(n, generator=generator) < 0.5, -1.0, 1.0)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = scale * torch.cos(angle) * mirror
    theta[:, 0, 1] = -scale * torch.sin(angle)
    theta[:, 1, 0] = scale * torch.sin(angle) * mirror
    theta[:, 1, 1] = scale * torch.cos(angle)
    theta[:, 0, 2] = u(-0.08, 0.08)
    theta[:, 1, 2] = u(-0.06, 0.06)
    grid = F.affine_grid(theta, list(grey.shape), align_corners=False)
    moved = F.grid_sample(grey, grid, mode="bilinear", padding_mode="border", align_corners=False)
    gamma = u(0.7, 1.4).view(n, 1, 1, 1)
    moved = 255.0 * (moved / 255.0).clamp(min=0, max=1) ** gamma
    noise = torch.randn(moved.shape, generator=generator) * u(0, 4).view(n, 1, 1, 1)
    return (moved + noise).clamp(0, 255)


def network(kind, height, width):
    def block(inputs, outputs):
        return [
            nn.Conv2d(inputs, outputs, 3, padding=1, bias=False),
            nn.BatchNorm2d(outputs),
            nn.ReLU(),
            nn.MaxPool2d(2),
        ]

    channels = [1, 12, 24, 48, 64]
    layers = []
    for i in range(4):
        layers += block(channels[i], channels[i + 1])
    flat = channels[-1] * (height // 16) * (width // 16)
    layers += [
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(flat, 96),
        nn.ReLU(),
        nn.Linear(96, CLASSES[kind]),
    ]
    return nn.Sequential(*layers)


def logits_of(model, grey, batch=512):
    model.eval()
    with torch.no_grad():
        return torch.cat(
            [model(standardised(grey[i : i + batch])) for i in range(0, len(grey), batch)]
        )


def report(what, logits, labels, classes):
    predicted = logits.argmax(dim=1)
    confusion = np.zeros((classes, classes), dtype=np.int64)
    for t, p in zip(labels.tolist(), predicted.tolist()):
        confusion[t, p] += 1
    right = np.trace(confusion)
    print(f"{what}: {100.0 * right / max(len(labels), 1):.1f} % ({right} / {len(labels)})")
    for k in range(classes):
        seen = confusion[k].sum()
        print(
            f"  {LETTERS[k]} {100.0 * confusion[k, k] / max(seen, 1):5.1f} %  "
            + " ".join(f"{v:5d}" for v in confusion[k])
        )


def fitted_temperature(logits, labels):
    """The softmax temperature that minimises the negative log-likelihood (a grid search)."""
    best, best_loss = 1.0, float("inf")
    for t in np.arange(0.5, 4.01, 0.05):
        loss = F.cross_entropy(logits / float(t), labels).item()
        if loss < best_loss:
            best, best_loss = float(t), loss
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kind", choices=CLASSES, required=True)
    parser.add_argument("--data", action="append", required=True, help="dump dir (repeatable)")
    parser.add_argument("--test", required=True, help="dump dir with the test patches")
    parser.add_argument("--out", required=True, help="ONNX file to write")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--held-apart", type=float, default=0.1,
                        help="share of the training stills (by seed) kept for the temperature")
    args = parser.parse_args()

    torch.manual_seed(1)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(2)
    started = time.monotonic()

    classes = CLASSES[args.kind]
    patches, labels, seeds = load_all(args.data, args.kind, "train")
    test_patches, test_labels, _ = load_all([args.test], args.kind, "test")
    if len(patches) == 0 or labels.max() >= classes:
        sys.exit(f"{args.kind}: no training patches, or a type beyond {LETTERS[:classes]}")
    # Whole stills apart: patches of one still are alike.
    unique = np.unique(seeds)
    apart = set(np.random.default_rng(3).choice(unique, int(len(unique) * args.held_apart),
                                                replace=False).tolist())
    is_apart = np.array([s in apart for s in seeds.tolist()])
    grey = torch.from_numpy(patches.astype(np.float32)).unsqueeze(1)
    target = torch.from_numpy(labels)
    train_x, train_y = grey[~is_apart], target[~is_apart]
    apart_x, apart_y = grey[is_apart], target[is_apart]
    test_x = torch.from_numpy(test_patches.astype(np.float32)).unsqueeze(1)
    test_y = torch.from_numpy(test_labels)
    height, width = patches.shape[1], patches.shape[2]
    print(f"{args.kind}: {len(train_y)} training, {len(apart_y)} held-apart, {len(test_y)} test "
          f"patches of {width}x{height}")

    # Each type weighs the same: the tracker brings its own prior (the candidates).
    counts = torch.bincount(train_y, minlength=classes).float().clamp(min=1)
    weights = counts.sum() / (classes * counts)
    model = network(args.kind, height, width)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = args.epochs * ((len(train_y) + args.batch - 1) // args.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps)
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(train_y), generator=generator)
        total, right, loss_sum = 0, 0, 0.0
        for i in range(0, len(order), args.batch):
            index = order[i : i + args.batch]
            x = standardised(augmented(train_x[index], generator))
            y = train_y[index]
            logits = model(x)
            loss = F.cross_entropy(logits, y, weight=weights)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += loss.item() * len(y)
            right += (logits.argmax(dim=1) == y).sum().item()
            total += len(y)
        apart_right = (logits_of(model, apart_x).argmax(dim=1) == apart_y).float().mean().item()
        print(f"  epoch {epoch + 1}: loss {loss_sum / total:.3f}, training {100.0 * right / total:.1f} %,"
              f" held apart {100.0 * apart_right:.1f} % ({time.monotonic() - started:.0f} s)",
              flush=True)

    model.eval()
    temperature = fitted_temperature(logits_of(model, apart_x), apart_y)
    last = model[-1]
    with torch.no_grad():
        last.weight /= temperature
        last.bias /= temperature
    print(f"softmax temperature {temperature:.2f} (folded into the last layer)")
    report(f"{args.kind} held apart", logits_of(model, apart_x), apart_y, classes)
    report(f"{args.kind} test", logits_of(model, test_x), test_y, classes)

    torch.onnx.export(model, torch.zeros(1, 1, height, width), args.out, opset_version=11,
                      input_names=["patch"], output_names=["logits"], do_constant_folding=True)
    print(f"wrote {args.out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
