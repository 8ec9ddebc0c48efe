#!/usr/bin/env bash
# Fails when a tracked C++ source is not formatted as .clang-format says.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mapfile -t sources < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc' 2>/dev/null || find . -path ./build -prune -o \( -name '*.cpp' -o -name '*.hpp' \) -print)
if [ ${#sources[@]} -eq 0 ]; then
  echo "check-format: no sources found" >&2
  exit 1
fi
# One clang-format for all the files (a process a file took most of the time in starting up);
# file by file only to name those that are not formatted.
unformatted=()
if ! clang-format --dry-run -Werror "${sources[@]}" >/dev/null 2>&1; then
  for file in "${sources[@]}"; do
    if ! clang-format --dry-run -Werror "$file" >/dev/null 2>&1; then unformatted+=("$file"); fi
  done
  if [ ${#unformatted[@]} -eq 0 ]; then
    echo "check-format: clang-format failed on the files together and on none alone" >&2
    exit 1
  fi
fi
if [ ${#unformatted[@]} -gt 0 ]; then
  echo "check-format: not formatted (run clang-format -i):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "check-format: ${#sources[@]} files formatted"
