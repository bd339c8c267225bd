#!/usr/bin/env bash
# Formats the C++ and C sources with the repository's .clang-format: scripts/format.sh [--check]
# --check changes nothing and fails, listing the files, when any file differs from its formatting
# (scripts/test.sh runs it, so an unformatted file fails CI).
set -euo pipefail
cd "$(dirname "$0")/.."
# Untracked files too (not ignored ones): a new file is formatted before its first commit.
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cc' '*.h' '*.c')
if [[ "${1:-}" != "--check" ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
differ=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || differ+=("$f")
done
if ((${#differ[@]})); then
  echo "format: ${#differ[@]} files differ from .clang-format (run bash scripts/format.sh):" >&2
  printf '  %s\n' "${differ[@]}" >&2
  clang-format --dry-run "${differ[0]}" 2>&1 | head -20 >&2
  exit 1
fi
echo "format: ${#files[@]} files match .clang-format"
