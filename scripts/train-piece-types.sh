#!/bin/sh
# Trains the piece-type networks (vision/models/piece_types_*.yml.gz) on synthetic stills of
# seeds 1-2999 and reports their accuracy per type on stills of seeds 3000-3999. The same
# options give the same files. Extra arguments go to the training program, e.g.
#   scripts/train-piece-types.sh --train-stills 200      (a quicker, weaker model)
#   scripts/train-piece-types.sh --evaluate-only         (re-measure the checked-in model)
set -eu
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build build/release -j2 --target train_piece_types
exec build/release/bench/train_piece_types --out vision/models "$@"
