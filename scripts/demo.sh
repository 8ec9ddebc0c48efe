#!/usr/bin/env bash
# Sets up, builds and runs `bugcam demo` on the bundled sample.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target bugcam
# Records the bundled sample clip (samples/clip) and prints the game, the incidents and the
# accuracy against the clip's truth.
exec build/release/app/bugcam demo "$@"
