#!/bin/sh
# Trains the piece-type networks (vision/models/piece_types_{board,holding}.onnx) in one go:
#   1. bench/train_piece_types cuts board-square and holding-area patches, with their types,
#      from synthetic stills of seeds 1-2999 (training) and 3000-3999 (test), through the
#      same vision code that runs when recording;
#   2. scripts/train_piece_types.py trains a small convolutional network on each kind and
#      writes it as ONNX (needs Debian's python3-torch and python3-numpy, installed here
#      when missing; building and testing bugcam does not need them);
#   3. bench/train_piece_types --evaluate-only measures the written files through OpenCV's
#      dnn, as vision runs them: per-type accuracy and confusion on the test seeds.
# The same run gives the same files. 400 training stills in three parts cut in parallel
# (seeds 1-2999, 2-1499 and 1500-2999), 120 test stills. Took 45 minutes here with the two
# cores shared by other work (load 15): 15 to cut the patches, 19 to train (the holding
# network's 8 alongside), 3 to evaluate; about 0.5 s of CPU per still, 1 s per 100 board
# patches per epoch.
# The holding network learns from 1000 more stills (seeds 4000-4999, parts d and e, cut only
# for it): held pieces are fewer per still than board pieces. Cutting all five parts took 28
# minutes here with two recordings rendering alongside, training the holding network 17 (24
# epochs, two recordings alongside).
# PATCHES (default build/piece-type-patches) keeps the patches, so a second run trains again
# without rendering; EPOCHS (default 12) for the board network, HOLDING_EPOCHS (default 24)
# for the holding one; KINDS (default "board holding") which networks to train: the
# checked-in board network was trained at 41a9546, the holding network
# at stop 67 by KINDS=holding.
#   scripts/train-piece-types.sh                     (train and evaluate)
#   KINDS=holding scripts/train-piece-types.sh       (the holding network only)
#   scripts/train-piece-types.sh --evaluate-only     (re-measure the checked-in networks)
set -eu
cd "$(dirname "$0")/.."
patches="${PATCHES:-build/piece-type-patches}"
epochs="${EPOCHS:-12}"
holding_epochs="${HOLDING_EPOCHS:-24}"
kinds="${KINDS:-board holding}"
cmake --preset release >/dev/null
cmake --build build/release -j2 --target train_piece_types
if [ "${1:-}" = "--evaluate-only" ]; then
  exec build/release/bench/train_piece_types --evaluate-only --out vision/models \
    --patches "$patches/b" --test-stills 120
fi
if ! /usr/bin/python3 -c "import torch, numpy" 2>/dev/null; then
  as_root=""
  if [ "$(id -u)" -ne 0 ]; then as_root=sudo; fi
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends \
    python3-torch python3-numpy
fi
cut() { build/release/bench/train_piece_types --patches "$patches/$1" --train "$2" \
  --train-stills "$3" --test-stills "$4" >"$patches/$1.log" 2>&1; }
mkdir -p "$patches"
cut a 1-2999 100 20 &
a=$!
cut b 2-1499 150 120 &
b=$!
cut c 1500-2999 150 0 &
c=$!
wait $a && wait $b && wait $c
case " $kinds " in *" holding "*)
  cut d 4000-4499 500 0 &
  d=$!
  cut e 4500-4999 500 0 &
  e=$!
  wait $d && wait $e ;;
esac
# The networks in parallel, one thread each.
train() { /usr/bin/python3 scripts/train_piece_types.py --kind "$1" --epochs "$2" \
  --data "$patches/a" --data "$patches/b" --data "$patches/c" $3 --test "$patches/b" \
  --out "vision/models/piece_types_$1.onnx" >"$patches/train_$1.log" 2>&1; }
pids=""
for kind in $kinds; do
  case $kind in
    board) train board "$epochs" "" & ;;
    holding) train holding "$holding_epochs" "--data $patches/d --data $patches/e" & ;;
    *) echo "KINDS: board and/or holding, not $kind" >&2; exit 2 ;;
  esac
  pids="$pids $!"
done
for pid in $pids; do wait "$pid"; done
for kind in $kinds; do tail -n 8 "$patches/train_$kind.log"; done
exec build/release/bench/train_piece_types --evaluate-only --out vision/models \
  --patches "$patches/b" --test-stills 120
