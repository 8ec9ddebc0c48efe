#!/usr/bin/python3
"""Trains the square network (empty / white piece / black piece for each of a board's 64
squares) on the boards that bench/train_squares cut from synthetic clips, and writes it as
ONNX for vision's cv::dnn.

    /usr/bin/python3 scripts/train_squares.py --data FILE [--data FILE2 ...] --test FILE
        --out vision/models/squares.onnx [--epochs N]

Needs Debian's python3-torch and python3-numpy (scripts/train-squares.sh does the whole
thing). Deterministic: fixed seeds, deterministic algorithms, one thread.

The input is built exactly as vision/src/square_model.cpp's square_net_input builds it: the
board's top-down view at 8 pixels per square, minus its mean per channel, over its spread
(at least 8 levels), on a zero margin of one square; plus two channels giving, at each
pixel, which way and how far a piece one square tall leans in this view (from the camera's
viewpoint). The network is fully convolutional: three 3x3 convolutions (batch-normalised,
ReLU, 2x2 max-pooling) bring the 80x80 input to one cell per square and its margin (10x10),
a 3x3 convolution without padding to the 8x8 squares, and a 1x1 convolution gives each
square's three logits (softmax temperature fitted on clips held apart and folded in). Each
square's output sees about five squares each way.
"""
import argparse
import struct
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ["empty", "white", "black"]
PX = 8  # pixels per square: kSquareNetPx
MARGIN = 8  # kSquareNetMargin
MIN_SPREAD = 8.0  # kSquareNetMinSpread
LEAN_SCALE = 2.0  # kSquareNetLeanScale
SURE = 0.7  # SquareObservation::symbol's threshold


def load_boards(path):
    """The board file of bench/train_squares (format at its write_boards)."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, count, side = struct.unpack_from("<4sIII", data, 0)
    if magic != b"BGSQ" or version != 1:
        sys.exit(f"{path}: not a version 1 board file")
    record = np.dtype([("clip", "<i4"), ("frame", "<i4"), ("board", "<i4"), ("nadir", "<f4", 2),
                       ("height", "<f4"), ("labels", "i1", 64), ("pixels", "u1", side * side * 3)])
    rows = np.frombuffer(data, record, count, 16)
    pixels = rows["pixels"].reshape(count, side, side, 3)
    # Labels a1 = 0 -> grid rows with rank 8 first, as the image.
    labels = rows["labels"].reshape(count, 8, 8)[:, ::-1, :].astype(np.int64)
    views = np.concatenate([rows["nadir"], rows["height"][:, None]], axis=1).astype(np.float32)
    return pixels, labels, views, rows["clip"].astype(np.int64), rows["frame"].astype(np.int64)


def inputs_of(pixels, views):
    """pixels: N x 64 x 64 x 3 uint8 tensor (BGR); views: N x 3 (nadir x, y, camera height).
    The network's N x 5 x 80 x 80 input, as square_net_input."""
    x = pixels.permute(0, 3, 1, 2).double()
    n, side = x.shape[0], x.shape[2]
    mean = x.mean(dim=(2, 3), keepdim=True)
    variance = ((x * x).mean(dim=(2, 3), keepdim=True) - mean * mean).sum(dim=1, keepdim=True)
    spread = (variance / 3).clamp(min=0).sqrt().clamp(min=MIN_SPREAD)
    colour = F.pad(((x - mean) / spread).float(), (MARGIN, MARGIN, MARGIN, MARGIN))
    full = side + 2 * MARGIN
    index = torch.arange(full, dtype=torch.float64)
    bx = ((index - MARGIN + 0.5) / PX).view(1, 1, full)  # by column
    by = (8 - (index - MARGIN + 0.5) / PX).view(1, full, 1)  # by row
    views = views.double()
    nx, ny, h = views[:, 0].view(n, 1, 1), views[:, 1].view(n, 1, 1), views[:, 2].view(n, 1, 1)
    factor = torch.where(h > 1 + 1e-6, 1.0 / (h - 1).clamp(min=1e-6), torch.zeros_like(h))
    lean_x = ((bx - nx) * factor).expand(n, full, full) * LEAN_SCALE
    lean_y = (-(by - ny) * factor).expand(n, full, full) * LEAN_SCALE
    return torch.cat([colour, lean_x.float().unsqueeze(1), lean_y.float().unsqueeze(1)], dim=1)


def augmented(pixels, labels, views, generator):
    """The boards turned and mirrored (the viewpoint with them), shifted by up to a pixel (a
    calibration's error), their colours changed a little per channel, with noise."""
    pixels, labels, views = pixels.clone(), labels.clone(), views.clone()
    n = pixels.shape[0]
    flip_x = torch.rand(n, generator=generator) < 0.5
    flip_y = torch.rand(n, generator=generator) < 0.5
    swap = torch.rand(n, generator=generator) < 0.5
    pixels[flip_x] = pixels[flip_x].flip(2)
    labels[flip_x] = labels[flip_x].flip(2)
    views[flip_x, 0] = 8 - views[flip_x, 0]
    pixels[flip_y] = pixels[flip_y].flip(1)
    labels[flip_y] = labels[flip_y].flip(1)
    views[flip_y, 1] = 8 - views[flip_y, 1]
    pixels[swap] = pixels[swap].transpose(1, 2)
    labels[swap] = labels[swap].transpose(1, 2)
    nx = views[swap, 0].clone()
    views[swap, 0] = 8 - views[swap, 1]
    views[swap, 1] = 8 - nx
    # A shift of up to one pixel each way, the border repeated.
    x = pixels.permute(0, 3, 1, 2).float()
    side = x.shape[2]
    padded = F.pad(x, (1, 1, 1, 1), mode="replicate")
    dx = torch.randint(0, 3, (n,), generator=generator)
    dy = torch.randint(0, 3, (n,), generator=generator)
    shifted = torch.empty_like(x)
    for i in range(n):
        shifted[i] = padded[i, :, dy[i] : dy[i] + side, dx[i] : dx[i] + side]
    gain = 0.9 + 0.2 * torch.rand(n, 3, 1, 1, generator=generator)
    gamma = 0.8 + 0.45 * torch.rand(n, 1, 1, 1, generator=generator)
    noise = torch.randn(shifted.shape, generator=generator) * 3 * torch.rand(n, 1, 1, 1, generator=generator)
    y = 255.0 * ((shifted * gain / 255.0).clamp(0, 1) ** gamma) + noise
    pixels = y.clamp(0, 255).round().to(torch.uint8).permute(0, 2, 3, 1)
    return pixels, labels, views


def network():
    def block(inputs, outputs):
        return [nn.Conv2d(inputs, outputs, 3, padding=1, bias=False), nn.BatchNorm2d(outputs),
                nn.ReLU(), nn.MaxPool2d(2)]

    return nn.Sequential(*block(5, 12), *block(12, 24), *block(24, 32),
                         nn.Conv2d(32, 32, 3), nn.ReLU(), nn.Conv2d(32, 3, 1))


def logits_of(model, pixels, views, batch=256):
    model.eval()
    with torch.no_grad():
        return torch.cat([model(inputs_of(pixels[i : i + batch], views[i : i + batch]))
                          for i in range(0, len(pixels), batch)])


def report(what, logits, labels):
    """Per class: right at the argmax, and right and sure (probability >= 0.7) as vision
    reads it; the confusion (truth by row; read empty, white, black, unsure)."""
    p = logits.softmax(dim=1).permute(0, 2, 3, 1).reshape(-1, 3)
    truth = labels.reshape(-1)
    keep = truth >= 0
    p, truth = p[keep], truth[keep]
    top, arg = p.max(dim=1)
    read = torch.where(top >= SURE, arg, torch.full_like(arg, 3))
    confusion = np.zeros((3, 4), dtype=np.int64)
    np.add.at(confusion, (truth.numpy(), read.numpy()), 1)
    argmax_right = (arg == truth).float().mean().item()
    right = np.trace(confusion[:, :3])
    print(f"{what}: {100.0 * right / max(len(truth), 1):.3f} % right and sure, "
          f"{100.0 * argmax_right:.3f} % at the argmax ({len(truth)} squares)")
    print("  truth    right %   read: empty   white   black  unsure")
    for k in range(3):
        seen = confusion[k].sum()
        print(f"  {CLASSES[k]:6s} {100.0 * confusion[k, k] / max(seen, 1):8.3f}        "
              + " ".join(f"{v:7d}" for v in confusion[k]))


def fitted_temperature(logits, labels):
    best, best_loss = 1.0, float("inf")
    for t in np.arange(0.5, 4.01, 0.05):
        loss = F.cross_entropy(logits / float(t), labels, ignore_index=-1).item()
        if loss < best_loss:
            best, best_loss = float(t), loss
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", action="append", required=True, help="board file (repeatable)")
    parser.add_argument("--test", required=True, help="board file of the test clips")
    parser.add_argument("--out", required=True, help="ONNX file to write")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--frame-step", type=int, default=1,
                        help="of the clips' boards, only frames that are a multiple of this")
    parser.add_argument("--apart-every", type=int, default=8,
                        help="every Nth training clip is held apart (the temperature)")
    args = parser.parse_args()

    torch.manual_seed(1)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(2)
    started = time.monotonic()

    parts = []
    for path in args.data:
        part = load_boards(path)
        keep = part[4] % args.frame_step == 0
        parts.append(tuple(a[keep] for a in part))
    clip_ids = np.concatenate([p[3] + 1000 * i for i, p in enumerate(parts)])
    pixels = torch.from_numpy(np.concatenate([p[0] for p in parts]).copy())
    labels = torch.from_numpy(np.concatenate([p[1] for p in parts]))
    views = torch.from_numpy(np.concatenate([p[2] for p in parts]))
    unique = np.unique(clip_ids)
    apart = np.isin(clip_ids, unique[args.apart_every - 1 :: args.apart_every])
    apart_t = torch.from_numpy(apart)
    train = (pixels[~apart_t], labels[~apart_t], views[~apart_t])
    held = (pixels[apart_t], labels[apart_t], views[apart_t])
    test_pixels, test_labels, test_views, _, _ = (np.array(a) for a in load_boards(args.test))
    test = (torch.from_numpy(test_pixels), torch.from_numpy(test_labels),
            torch.from_numpy(test_views))
    counts = [int((train[1] == k).sum()) for k in range(3)]
    print(f"{len(train[0])} training boards ({len(unique)} clips, squares by class {counts}), "
          f"{len(held[0])} held apart, {len(test[0])} test boards", flush=True)

    model = network()
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    steps = args.epochs * ((len(train[0]) + args.batch - 1) // args.batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps)
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(train[0]), generator=generator)
        loss_sum, batches = 0.0, 0
        for i in range(0, len(order), args.batch):
            index = order[i : i + args.batch]
            p, y, v = augmented(train[0][index], train[1][index], train[2][index], generator)
            logits = model(inputs_of(p, v))
            loss = F.cross_entropy(logits, y, ignore_index=-1)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += loss.item()
            batches += 1
        if len(held[0]) == 0:
            print(f"  epoch {epoch + 1}: loss {loss_sum / max(batches, 1):.4f}", flush=True)
            continue
        held_logits = logits_of(model, held[0], held[2])
        keep = held[1] >= 0
        held_right = (held_logits.argmax(dim=1) == held[1])[keep].float().mean().item()
        print(f"  epoch {epoch + 1}: loss {loss_sum / max(batches, 1):.4f}, held apart "
              f"{100.0 * held_right:.3f} % ({time.monotonic() - started:.0f} s)", flush=True)

    model.eval()
    temperature = 1.0
    if len(held[0]) > 0:
        temperature = fitted_temperature(logits_of(model, held[0], held[2]), held[1])
    last = model[-1]
    with torch.no_grad():
        last.weight /= temperature
        last.bias /= temperature
    print(f"softmax temperature {temperature:.2f} (folded into the last layer)")
    if len(held[0]) > 0:
        report("held apart", logits_of(model, held[0], held[2]), held[1])
    report("test", logits_of(model, test[0], test[2]), test[1])

    dummy = torch.zeros(2, 5, 8 * PX + 2 * MARGIN, 8 * PX + 2 * MARGIN)
    torch.onnx.export(model, dummy, args.out, opset_version=11, input_names=["board"],
                      output_names=["logits"], do_constant_folding=True,
                      dynamic_axes={"board": {0: "boards"}, "logits": {0: "boards"}})
    print(f"wrote {args.out} ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
