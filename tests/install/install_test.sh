#!/usr/bin/env bash
# The installed package works as README says: `cmake --install` into a temporary prefix,
# then a small program (hello.cc) built against it twice — with find_package(weibo) and
# with pkg-config — and run. It installs the build's existing artefacts and builds only
# the one program; the prefix is gone afterwards, so nothing depends on /usr/local.
#   install_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/weibo-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
pc=$(find "$prefix" -name weibo.pc)
[ -n "$pc" ] || { echo "no weibo.pc under $prefix" >&2; exit 1; }

# The expected output of every build: the user added to a fresh one-shard cluster.
expected='{"id":"1","name":"alice","msg_count":0,"fans_count":0,"follow_count":0}'
check() {  # check LABEL PROGRAM
  local out
  out=$("$2" "$work/data-$1")
  if [ "$out" != "$expected" ]; then
    echo "$1: printed '$out', expected '$expected'" >&2
    exit 1
  fi
  echo "$1: built and ran ($2)"
}

# 1. CMake: find_package(weibo) from the prefix only.
cmake -S "$here/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="${WEIBO_CONSUMER_FLAGS:-}" \
  >"$work/configure.log" || { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/cmake-build" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
check find_package "$work/cmake-build/hello"

# 2. pkg-config: the relocated prefix, with every dependency on the link line.
export PKG_CONFIG_PATH="$(dirname "$pc")"
cflags=$(pkg-config --cflags weibo)
libs=$(pkg-config --libs weibo)
case "$cflags" in
  *"-I$prefix/"* | *"-I$(dirname "$pc")/"*) ;;
  *) echo "pkg-config --cflags weibo does not point into $prefix: $cflags" >&2; exit 1 ;;
esac
# shellcheck disable=SC2086  # the flags are words
"${CXX:-c++}" -std=c++17 -O1 ${WEIBO_CONSUMER_FLAGS:-} -o "$work/hello-pc" "$here/hello.cc" $cflags $libs
check pkg-config "$work/hello-pc"
