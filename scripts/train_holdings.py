#!/usr/bin/python3
"""Trains the holding network on the strips bench/train_holdings cut (--cut FILE) and writes it
as ONNX for vision's cv::dnn (vision::HoldingModel).

    /usr/bin/python3 scripts/train_holdings.py --train FILE [--train FILE2 ...]
        --test FILE [--test FILE2 ...] --out vision/models/holdings.onnx [--epochs N]

Needs Debian's python3-torch and python3-numpy (scripts/train-holdings.sh does the whole
thing). Deterministic: fixed seeds, deterministic algorithms, two threads.

Input: a holding area's strip (24 px per square) as vision::holding_net_input builds it, read
from the cut file as it is (never rebuilt here): 4 x H x W, H and W multiples of 4. Output:
logits 3 x H/4 x W/4 (no piece's middle in the cell, a white piece's, a black piece's). The
network is fully convolutional: a 3x3 convolution of stride 2, a 3x3 convolution and 2x2
max-pooling, then four 3x3 convolutions at a quarter of the resolution (two dilated, so that
a cell sees three squares around it: a piece next to others, lying or standing), then a 1x1
convolution. Augmented by mirroring left to right and changing the colours a little.
A tenth of the training stills (by seed) is held apart to choose the epoch and the bias of
the "no piece" logit (the piece classes are weighted up in the loss, which moves their
probabilities); the test file is only reported on.
"""
import argparse
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

STRIDE = 4  # vision::kHoldingNetStride
PIECE_AT_LEAST = 0.5  # vision::kHoldingNetPieceAtLeast
MERGE_RADIUS = 3  # kMergeRadius in vision/src/holding_model.cpp
VALLEY_SHARE = 0.6  # kValleyShare there
IGNORE = -1


class Strip:
    __slots__ = ("seed", "player", "input", "labels", "white", "black")


def load_strips(path):
    """The cut file of bench/train_holdings (format at its write_record)."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version = struct.unpack_from("<4sI", data, 0)
    if magic != b"BGHS" or version != 1:
        sys.exit(f"{path}: not a version 1 holding-strip file")
    strips = []
    offset = 8
    while offset < len(data):
        strip = Strip()
        strip.seed, strip.player, height, width, strip.white, strip.black = struct.unpack_from(
            "<6i", data, offset)
        offset += 24
        count = 4 * height * width
        strip.input = torch.from_numpy(
            np.frombuffer(data, "<f4", count, offset).reshape(4, height, width).copy())
        offset += 4 * count
        cells = (height // STRIDE) * (width // STRIDE)
        strip.labels = torch.from_numpy(
            np.frombuffer(data, np.int8, cells, offset).reshape(height // STRIDE, width // STRIDE)
            .astype(np.int64))
        offset += cells
        strips.append(strip)
    if offset != len(data):
        sys.exit(f"{path}: truncated")
    return strips


def network():
    def convolution(inputs, outputs, dilation=1, stride=1):
        return [
            nn.Conv2d(inputs, outputs, 3, stride=stride, padding=dilation, dilation=dilation,
                      bias=False),
            nn.BatchNorm2d(outputs),
            nn.ReLU(),
        ]

    # The first convolution strided rather than followed by pooling: at full resolution the
    # batch norm and ReLU cost as much as all the rest (training takes half as long). Receptive
    # field 73 input pixels (three squares) at each output cell: a lying piece is two long.
    return nn.Sequential(
        *convolution(4, 16, stride=2),
        *convolution(16, 32), nn.MaxPool2d(2),
        *convolution(32, 32), *convolution(32, 32, dilation=2),
        *convolution(32, 32, dilation=4), *convolution(32, 32),
        nn.Conv2d(32, 3, 1),
    )


def batched(strips, mirror):
    """The strips padded to the largest of them with zeros (the in-view channel 0 marks the
    padding; its cells are labelled no piece), the ones of `mirror` flipped left to right."""
    height = max(s.input.shape[1] for s in strips)
    width = max(s.input.shape[2] for s in strips)
    x = torch.zeros(len(strips), 4, height, width)
    y = torch.zeros(len(strips), height // STRIDE, width // STRIDE, dtype=torch.int64)
    for i, (s, flip) in enumerate(zip(strips, mirror)):
        h, w = s.input.shape[1:]
        x[i, :, :h, :w] = torch.flip(s.input, [2]) if flip else s.input
        y[i, : h // STRIDE, : w // STRIDE] = torch.flip(s.labels, [1]) if flip else s.labels
    return x, y


def jittered(x, generator):
    """The colour channels scaled by about 15 % each and a little noise added, in view only:
    the table's and the pieces' colours vary more than the stills' looks."""
    gain = torch.exp(0.15 * torch.randn(x.shape[0], 3, 1, 1, generator=generator))
    noise = 0.05 * torch.randn(x[:, :3].shape, generator=generator)
    x[:, :3] = (x[:, :3] * gain + noise) * x[:, 3:4]
    return x


def rounded(value):
    """std::lround: halves away from zero."""
    return int(np.sign(value) * np.floor(abs(value) + 0.5))


def counts_of(logits, none_bias=0.0):
    """White and black pieces in one strip (logits 1 x 3 x rows x cols), decoded as
    vision::HoldingModel::read decodes: the cells' piece probability (softmax's white plus
    black); candidates its maxima among their 8 neighbours of at least PIECE_AT_LEAST (of equal
    ones the first in raster order); strongest first, a candidate dropped where a kept one
    within MERGE_RADIUS cells joins it with no cell between below VALLEY_SHARE of it; each
    white where the probability-weighted white share of its 3x3 cells is at least half."""
    logits = logits.clone()
    logits[:, 0] += none_bias
    p = torch.softmax(logits, dim=1)[0]
    piece = p[1] + p[2]
    white = p[1] / (p[1] + p[2]).clamp(min=1e-30)
    rows, cols = piece.shape
    around = F.pad(piece, (1, 1, 1, 1), value=-1.0)  # beyond the edge: no cell to compare
    peak = piece >= PIECE_AT_LEAST
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy == 0 and dx == 0:
                continue
            q = around[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + cols]
            peak &= ~(q > piece)
            if dy < 0 or (dy == 0 and dx < 0):
                peak &= ~(q == piece)
    piece = piece.numpy()
    white = white.numpy()
    candidates = [(float(piece[y, x]), int(y), int(x)) for y, x in zip(*np.nonzero(peak.numpy()))]
    candidates.sort(key=lambda c: -c[0])  # stable: raster order among equals
    kept = []
    for c in candidates:
        joined = False
        for k in kept:
            dy, dx = c[1] - k[1], c[2] - k[2]
            steps = max(abs(dy), abs(dx))
            if steps > MERGE_RADIUS:
                continue
            lowest = c[0]
            for i in range(1, steps):
                y = k[1] + rounded(dy * i / steps)
                x = k[2] + rounded(dx * i / steps)
                lowest = min(lowest, float(piece[y, x]))
            if lowest >= VALLEY_SHARE * c[0]:
                joined = True
                break
        if not joined:
            kept.append(c)
    white_count = 0
    for _, y, x in kept:
        cells = piece[max(0, y - 1) : y + 2, max(0, x - 1) : x + 2]
        shares = white[max(0, y - 1) : y + 2, max(0, x - 1) : x + 2]
        white_count += (cells * shares).sum(dtype=np.float64) >= 0.5 * cells.sum(dtype=np.float64)
    return int(white_count), len(kept) - int(white_count)


def logits_of(model, strips):
    """Each strip's logits, run at its own size (as vision runs it: no padding beyond the
    stride), strips of one size together."""
    model.eval()
    by_size = {}
    for i, s in enumerate(strips):
        by_size.setdefault(tuple(s.input.shape), []).append(i)
    out = [None] * len(strips)
    with torch.no_grad():
        for indices in by_size.values():
            for start in range(0, len(indices), 64):
                part = indices[start : start + 64]
                logits = model(torch.stack([strips[i].input for i in part]))
                for i, l in zip(part, logits):
                    out[i] = l
    return out


def exact_shares(logits, strips, none_bias=0.0):
    """Shares of strips whose piece count is exactly the truth's: total, white, black."""
    right = np.zeros(3)
    for l, s in zip(logits, strips):
        white, black = counts_of(l.unsqueeze(0), none_bias)
        right += [white + black == s.white + s.black, white == s.white, black == s.black]
    return right / max(len(strips), 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", action="append", required=True, help="cut file (repeatable)")
    parser.add_argument("--test", action="append", required=True,
                        help="cut file of test stills (repeatable)")
    parser.add_argument("--out", required=True, help="ONNX file to write")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--piece-weight", type=float, default=6.0,
                        help="loss weight of the piece classes against no piece")
    parser.add_argument("--held-apart", type=float, default=0.1,
                        help="share of the training stills (by seed) kept to choose the epoch")
    args = parser.parse_args()

    torch.manual_seed(1)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(2)
    generator = torch.Generator().manual_seed(2)
    started = time.monotonic()

    strips = [s for path in args.train for s in load_strips(path)]
    test = [s for path in args.test for s in load_strips(path)]
    # Whole stills apart: the four areas of one still look alike.
    seeds = np.unique([s.seed for s in strips])
    apart_seeds = set(np.random.default_rng(3).choice(
        seeds, int(len(seeds) * args.held_apart), replace=False).tolist())
    apart = [s for s in strips if s.seed in apart_seeds]
    train = [s for s in strips if s.seed not in apart_seeds]
    pieces = sum(s.white + s.black for s in train)
    print(f"{len(train)} training strips ({pieces} pieces), {len(apart)} held apart, "
          f"{len(test)} test ({time.monotonic() - started:.0f} s)", flush=True)

    model = network()
    weights = torch.tensor([1.0, args.piece_weight, args.piece_weight])
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    batches_per_epoch = (len(train) + args.batch - 1) // args.batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=3e-3, total_steps=args.epochs * batches_per_epoch)
    best = (-1.0, None, 0)  # held-apart exact share, weights, epoch
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(train), generator=generator).tolist()
        mirror = (torch.rand(len(train), generator=generator) < 0.5).tolist()
        # Strips of like size in a batch (less padding): sorted by size within runs of 16
        # batches, the batches then shuffled.
        run = 16 * args.batch
        batches = []
        for start in range(0, len(order), run):
            part = sorted(order[start : start + run],
                          key=lambda i: (train[i].input.shape[1], train[i].input.shape[2], i))
            batches += [part[i : i + args.batch] for i in range(0, len(part), args.batch)]
        loss_sum, seen = 0.0, 0
        for b in torch.randperm(len(batches), generator=generator).tolist():
            x, y = batched([train[i] for i in batches[b]], [mirror[i] for i in batches[b]])
            x = jittered(x, generator)
            loss = F.cross_entropy(model(x), y, weight=weights, ignore_index=IGNORE)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += loss.item() * len(batches[b])
            seen += len(batches[b])
        apart_share = exact_shares(logits_of(model, apart), apart)
        test_share = exact_shares(logits_of(model, test), test)
        print(f"  epoch {epoch + 1}: loss {loss_sum / seen:.4f}, count exact: held apart "
              f"{100 * apart_share[0]:.1f} %, test {100 * test_share[0]:.1f} % (white "
              f"{100 * test_share[1]:.1f} %, black {100 * test_share[2]:.1f} %) "
              f"({time.monotonic() - started:.0f} s)", flush=True)
        if apart_share[0] >= best[0]:
            best = (apart_share[0], {k: v.clone() for k, v in model.state_dict().items()}, epoch)

    model.load_state_dict(best[1])
    model.eval()
    # The "no piece" bias that counts the held-apart strips best (the weighted loss pushes the
    # piece probabilities up), folded into the last layer.
    apart_logits = logits_of(model, apart)
    bias, bias_share = 0.0, exact_shares(apart_logits, apart)[0]
    for candidate in np.arange(-1.5, 1.51, 0.25):
        share = exact_shares(apart_logits, apart, float(candidate))[0]
        if share > bias_share + 1e-9:
            bias, bias_share = float(candidate), share
    with torch.no_grad():
        model[-1].bias[0] += bias
    test_share = exact_shares(logits_of(model, test), test)
    print(f"epoch {best[2] + 1} kept; no-piece bias {bias:+.2f}: held apart "
          f"{100 * bias_share:.1f} %, test count exact {100 * test_share[0]:.1f} % (white "
          f"{100 * test_share[1]:.1f} %, black {100 * test_share[2]:.1f} %)")

    torch.onnx.export(model, torch.zeros(1, 4, 48, 96), args.out, opset_version=11,
                      input_names=["input"], output_names=["logits"], do_constant_folding=True,
                      dynamic_axes={"input": {2: "height", 3: "width"},
                                    "logits": {2: "rows", 3: "cols"}})
    parameters = sum(p.numel() for p in model.parameters())
    print(f"wrote {args.out} ({parameters} parameters, {time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
