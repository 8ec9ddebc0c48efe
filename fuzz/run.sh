#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build/fuzz, seeds their corpora from the real
# BPGN games and a few positions, and runs each target for SECONDS (default 600).
# Fails if any target crashes. Not part of CI.
#
#   fuzz/run.sh [SECONDS]
#
# Environment: BUGCAM_SHARED_DIR (default: ../shared beside the checkout), FUZZ_JOBS (ninja
# parallelism, default 2), FUZZ_TARGETS (default "fuzz_bpgn fuzz_bfen fuzz_san").
set -euo pipefail

seconds="${1:-600}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
  echo "usage: fuzz/run.sh [SECONDS]" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build/fuzz"
shared="${BUGCAM_SHARED_DIR:-$root/../shared}"
targets="${FUZZ_TARGETS:-fuzz_bpgn fuzz_bfen fuzz_san}"

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O2 -g" \
  -DBUGCAM_BUILD_FUZZ=ON -DBUGCAM_SANITIZE=ON \
  -DBUGCAM_BUILD_TESTS=OFF -DBUGCAM_BUILD_BENCH=OFF \
  -DBUGCAM_SHARED_DIR="$shared" >/dev/null
# shellcheck disable=SC2086
ninja -C "$build" -j "${FUZZ_JOBS:-2}" $targets

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/fuzz_bpgn" "$seeds/fuzz_bfen" "$seeds/fuzz_san"

# BPGN: every real game on its own, plus the small files whole.
for file in "$shared"/data/bpgn/*.bpgn; do
  name="$(basename "$file" .bpgn)"
  awk -v out="$seeds/fuzz_bpgn/$name" '
    /^\[Event / { n++ }
    { print > (out "-" (n ? n : 0) ".bpgn") }' "$file"
done
cp "$shared"/data/bpgn/chesscom_sample_from_pychess_bugchess_pgn.bpgn \
  "$shared"/data/bpgn/fics_bughousedb_pychess_5.bpgn "$seeds/fuzz_bpgn/"
printf '%s\n' '[Event "t"]' '1A.e4 {[%clk 0:02:59.5] [%ts 0.5]} 1a. e5 {[179.25]} $1' \
  '2A. Nf3 (2A. Nc3 {v}) {1:00} ; c' '1B. P@e4 {BlackA checkmated} 1-0' >"$seeds/fuzz_bpgn/forms.bpgn"

# FEN/BFEN: the layouts of the rule documents and the perft reference positions.
fens=(
  "r2k1r2/pbppNppp/1p2p1nb/1P5N/3N4/4Pn1q/PPP1QP1P/2KR2R1/BBBNqrppp w - - 45 56 | Q~4rk1/8/8/8/8/8/8/R3K2R w KQ - 45 60"
  "r2k1r2/pbppNppp/1p2p1nb/1P5N/3N4/4Pn1q/PPP1QP1P/2KR2R1/BrpBBqppN - - w 45 56 | Q~4rk1/8/8/8/8/8/8/R3K2R KQ - w 45 60"
  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/ w KQkq - 0 1"
  "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR/Pp w KQkq f6 0 3"
  "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R/NBqp w KQkq - 0 1"
)
while read -r _ _ fen; do
  fens+=("$fen")
done < <(grep '^id ' "$shared/data/bpgn/perft_reference.txt" | sed 's/ *(.*//')
i=0
for fen in "${fens[@]}"; do
  printf '%s' "$fen" >"$seeds/fuzz_bfen/fen-$i"
  printf '%s\n%s' "${fen%% | *}" "O-O" >"$seeds/fuzz_san/castle-$i"
  i=$((i + 1))
done

# SAN: the written forms, each after a position-picking byte and after a FEN line.
sans=("e4" "Nf3+" "N@f3" "n@f3" "\$146@g4" "@e4" "P@e4" "e8=Q" "e8Q" "exd8=N+" "O-O-O" "0-0"
  "Nbd7" "R1e2" "Qh4e1" "exf6 e.p." "Kxf2#" "Bb5!?" "gxh8=N+" "Q@e4+")
i=0
for san in "${sans[@]}"; do
  for pick in 0 1 2 3 4 5 6 7; do
    printf '%s%s' "$pick" "$san" >"$seeds/fuzz_san/pick-$pick-$i"
  done
  printf '%s\n%s' "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R/NBqp w KQkq - 0 1" \
    "$san" >"$seeds/fuzz_san/fen-$i"
  i=$((i + 1))
done

# Dictionaries of the notation's tokens help the mutations reach past the first characters.
printf '%s\n' '"[Event \""' '"\"]"' '"[FEN \""' '" | "' '"{[%clk "' '"{[%ts "' '"]}"' '"1A. "' \
  '"1a. "' '"1B. "' '"1b. "' '"{C: "' '"} 1-0"' '"0-1"' '"1/2-1/2"' '" *"' '"$146@"' '"P@"' \
  '"N@"' '"=Q"' '"O-O-O"' '"0-0"' '"x"' '"+"' '"#"' '"e.p."' '";"' '"("' '")"' >"$seeds/bpgn.dict"
printf '%s\n' '"/"' '"~"' '"["' '"]"' '" w "' '" b "' '" KQkq "' '" - "' '" | "' '"8"' \
  '"rnbqkbnr"' '"PPPPPPPP"' '"QRBNPqrbnp"' '" 45 56"' >"$seeds/bfen.dict"
printf '%s\n' '"@"' '"$146"' '"=Q"' '"=N"' '"O-O"' '"-O"' '"x"' '"+"' '"#"' '"!?"' '" e.p."' \
  '"\x0A"' >"$seeds/san.dict"

status=0
for target in $targets; do
  corpus="$build/corpus/$target"
  artifacts="$build/artifacts/$target"
  mkdir -p "$corpus" "$artifacts"
  echo "== $target: $seconds s"
  if ! "$build/fuzz/$target" -max_total_time="$seconds" -max_len=16384 -timeout=10 \
    -print_final_stats=1 -dict="$seeds/${target#fuzz_}.dict" -artifact_prefix="$artifacts/" \
    "$corpus" "$seeds/$target"; then
    echo "== $target FAILED: see $artifacts" >&2
    status=1
  fi
done
exit "$status"
