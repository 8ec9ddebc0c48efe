#!/usr/bin/env bash
# Sets up, builds and runs `bugcam demo` on the bundled sample.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target bugcam
# Until the recorder exists (issue 5), the demo checks the bundled real game against the rules.
exec build/release/app/bugcam bpgn check samples/games/*.bpgn
