#!/usr/bin/env bash
# Runs one scenario twice, each time in a fresh directory, and asserts that the two
# transcripts are byte-identical (SPEC §10: the same input and clock give the same output).
#   rerun_identical.sh BIN_DIR fixtures/NAME.sh
set -u
if [ $# -ne 2 ]; then
  echo "usage: rerun_identical.sh BIN_DIR SCENARIO.sh" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/weibo-rerun.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
for run in 1 2; do
  "$1/weibo-golden" --bin "$1" print "$2" >"$work/run$run" || exit 1
done
if ! cmp -s "$work/run1" "$work/run2"; then
  echo "two runs of $2 differ:" >&2
  diff -u --label "first run" --label "second run" "$work/run1" "$work/run2" >&2
  exit 1
fi
echo "two runs of $(basename "$2") are byte-identical ($(wc -c <"$work/run1") bytes)"
