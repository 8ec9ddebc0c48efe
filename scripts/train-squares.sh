#!/bin/sh
# Trains the square network (vision/models/squares.onnx: empty / white / black per square)
# in one go:
#   1. bench/train_squares --cut cuts each board's top-down view, with its viewpoint and the
#      truth of each square, from every 6th frame of synthetic training clips (calibrated on
#      their first frame with learnt looks, as recording does), and every 10th frame of the
#      test clips; with STILLS=1 also from 700 rendered stills (seeds 10-990: random
#      positions, every look, tilt 0-40) for more looks than the clips show;
#   2. scripts/train_squares.py trains the network and writes it as ONNX (needs Debian's
#      python3-torch and python3-numpy, installed here when missing);
#   3. bench/train_squares --evaluate measures the written file through OpenCV's dnn, as
#      vision runs it, per class beside the hand-written reader, on the test clips.
# The same clips give the same file.
# TRAIN_CLIPS: the training clip directories (rendered by `bugcam synth`, seeds below 5000;
# never the held-out seeds 5000-5999); TEST_CLIPS: the test clips (default the dev clips
# /work/clips/dev/clip_1000..1005). BOARDS (default build/square-boards) keeps the cut
# boards, so a second run trains again without cutting; EPOCHS (default 4); FRAME_STEP
# (default 1): the training takes the clips' boards of every Nth cut frame only; OUT
# (default vision/models/squares.onnx).
# The checked-in network: the defaults, TRAIN_CLIPS the 26 clips /tmp/s12/t40/clip_4000..4002
# t41/clip_4100..4102 t46/clip_4600..4602 mwp/clip_4015 4024 4033 (train_a) and
# /tmp/types-new/clip_4300..4305 /tmp/king/inc/clip_2000..2007 (train_b; cut as two
# files so, where the script would split TRAIN_CLIPS 13/13 instead): 24552 boards,
# 4 epochs, 17 minutes on a busy machine. STILLS=1 FRAME_STEP=12 EPOCHS=3 (13512 boards with
# the stills) read the dev clips worse (97.83 against 98.21 %) and the labelled real photos no
# better (775 against 787 of 832 squares).
#   TRAIN_CLIPS="..." scripts/train-squares.sh    (cut, train and evaluate)
#   scripts/train-squares.sh --evaluate-only      (re-measure the checked-in network)
set -eu
cd "$(dirname "$0")/.."
boards="${BOARDS:-build/square-boards}"
epochs="${EPOCHS:-4}"
frame_step="${FRAME_STEP:-1}"
stills="${STILLS:-0}"
out="${OUT:-vision/models/squares.onnx}"
test_clips="${TEST_CLIPS:-$(echo /work/clips/dev/clip_100[0-5])}"
cmake --preset release >/dev/null
cmake --build build/release -j2 --target train_squares
if [ "${1:-}" = "--evaluate-only" ]; then
  # shellcheck disable=SC2086
  exec build/release/bench/train_squares --evaluate --model vision/models/squares.onnx \
    --step 10 $test_clips
fi
if ! /usr/bin/python3 -c "import torch, numpy" 2>/dev/null; then
  as_root=""
  if [ "$(id -u)" -ne 0 ]; then as_root=sudo; fi
  $as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends \
    python3-torch python3-numpy
fi
mkdir -p "$boards"
if [ ! -f "$boards/train_b.bin" ]; then
  : "${TRAIN_CLIPS:?give the training clip directories}"
  # In two halves on the two cores, and the test clips.
  # shellcheck disable=SC2086
  set -- $TRAIN_CLIPS
  half=$((($# + 1) / 2))
  first="" second=""
  i=0
  for clip in "$@"; do
    i=$((i + 1))
    if [ $i -le $half ]; then first="$first $clip"; else second="$second $clip"; fi
  done
  cut() { build/release/bench/train_squares --cut "$boards/$1.bin" --step "$2" $3 \
    >"$boards/cut_$1.log" 2>&1; }
  (cut train_a 6 "$first" && cut test 10 "$test_clips") &
  a=$!
  cut train_b 6 "$second" &
  b=$!
  wait $a && wait $b
fi
if [ "$stills" = 1 ] && [ ! -f "$boards/stills_b.bin" ]; then
  build/release/bench/train_squares --cut "$boards/stills_a.bin" --stills 10-499 --count 350 \
    >"$boards/cut_stills_a.log" 2>&1 &
  a=$!
  build/release/bench/train_squares --cut "$boards/stills_b.bin" --stills 500-990 --count 350 \
    >"$boards/cut_stills_b.log" 2>&1 &
  b=$!
  wait $a && wait $b
fi
extra=""
if [ "$stills" = 1 ]; then extra="--data $boards/stills_a.bin --data $boards/stills_b.bin"; fi
# shellcheck disable=SC2086
/usr/bin/python3 scripts/train_squares.py --data "$boards/train_a.bin" \
  --data "$boards/train_b.bin" $extra \
  --test "$boards/test.bin" --epochs "$epochs" --frame-step "$frame_step" --out "$out" | tee "$boards/train.log"
# shellcheck disable=SC2086
exec build/release/bench/train_squares --evaluate --model "$out" --step 10 $test_clips
