#!/usr/bin/env bash
# Runs one golden scenario with the installed runner, weibo-golden(1), from BIN_DIR:
#
#   run_golden.sh [--print] BIN_DIR fixtures/NAME.sh
#
# The same as `BIN_DIR/weibo-golden --bin BIN_DIR run|print fixtures/NAME.sh`; kept so
# that the ctest commands and habits that name this script go on working.
set -u
mode=run
if [ "${1:-}" = "--print" ]; then
  mode=print
  shift
fi
if [ $# -ne 2 ]; then
  echo "usage: run_golden.sh [--print] BIN_DIR SCENARIO.sh" >&2
  exit 2
fi
exec "$1/weibo-golden" --bin "$1" "$mode" "$2"
