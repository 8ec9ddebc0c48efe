#!/bin/sh
# Trains the square network (vision/models/squares.onnx: empty / white / black per square)
# in one go:
#   1. bench/train_squares --cut cuts each board's top-down view, with its viewpoint and the
#      truth of each square, from every 6th frame of synthetic training clips (calibrated on
#      their first frame with learnt looks, as recording does), and every 10th frame of the
#      test clips; and from 700 rendered stills (seeds 10-990: random positions, every look,
#      tilt 0-40) for more looks than the clips show;
#   2. scripts/train_squares.py trains the network and writes it as ONNX (needs Debian's
#      python3-torch and python3-numpy, installed here when missing);
#   3. bench/train_squares --evaluate measures the written file through OpenCV's dnn, as
#      vision runs it, per class beside the hand-written reader, on the test clips.
# The same clips give the same file.
# TRAIN_CLIPS: the training clip directories (rendered by `bugcam synth`, seeds below 5000;
# never the held-out seeds 5000-5999); TEST_CLIPS: the test clips (default the dev clips
# /work/clips/dev/clip_1000..1005). BOARDS (default build/square-boards) keeps the cut
# boards, so a second run trains again without cutting; EPOCHS (default 4); FRAME_STEP
# (default 12): the training takes the clips' boards of every 12th frame only (their
# frames are much alike; half the time); OUT (default vision/models/squares.onnx).
#   TRAIN_CLIPS="..." scripts/train-squares.sh    (cut, train and evaluate)
#   scripts/train-squares.sh --evaluate-only      (re-measure the checked-in network)
set -eu
cd "$(dirname "$0")/.."
boards="${BOARDS:-build/square-boards}"
epochs="${EPOCHS:-4}"
frame_step="${FRAME_STEP:-12}"
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
if [ ! -f "$boards/stills_b.bin" ]; then
  build/release/bench/train_squares --cut "$boards/stills_a.bin" --stills 10-499 --count 350 \
    >"$boards/cut_stills_a.log" 2>&1 &
  a=$!
  build/release/bench/train_squares --cut "$boards/stills_b.bin" --stills 500-990 --count 350 \
    >"$boards/cut_stills_b.log" 2>&1 &
  b=$!
  wait $a && wait $b
fi
/usr/bin/python3 scripts/train_squares.py --data "$boards/train_a.bin" \
  --data "$boards/train_b.bin" --data "$boards/stills_a.bin" --data "$boards/stills_b.bin" \
  --test "$boards/test.bin" --epochs "$epochs" --frame-step "$frame_step" --out "$out" | tee "$boards/train.log"
# shellcheck disable=SC2086
exec build/release/bench/train_squares --evaluate --model "$out" --step 10 $test_clips
