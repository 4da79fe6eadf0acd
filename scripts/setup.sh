# Sourced by scripts/demo and scripts/test: install what is missing (as root), configure
# and build. Idempotent: a second run only rebuilds what changed.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${WEIBO_BUILD_DIR:-$top/build}

packages=(build-essential cmake pkg-config libsqlite3-dev sqlite3 libcli11-dev nlohmann-json3-dev
          libzmq3-dev cppzmq-dev catch2 libsodium-dev zlib1g-dev libsimdjson-dev libutf8proc-dev libjq-dev
          libhiredis-dev redis-server
          libmimalloc-dev  # the programs' allocator (CMakeLists.txt, WEIBO_MIMALLOC)
          libvips-dev  # weibo-avatar: decode, resize and encode pictures
          man-db groff-base python3
          clang libclang-rt-14-dev clang-format)  # clang + libFuzzer: the fuzz.libfuzzer test
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 || true
    apt-get install -y -qq "${missing[@]}" >&2
  else
    echo "missing Debian packages; run as root:" >&2
    echo "  apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# ccache, where it is installed, makes a second build directory (or worktree) of the same
# sources nearly free; it is not required.
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=${WEIBO_BUILD_TYPE:-RelWithDebInfo} \
  "${launcher[@]}" ${WEIBO_CMAKE_ARGS:-} >/dev/null
# WEIBO_BUILD_TARGET narrows the build (scripts/demo: weibo-apps, the programs only).
cmake --build "$build" -j"$(nproc)" ${WEIBO_BUILD_TARGET:+--target "$WEIBO_BUILD_TARGET"} >&2
export PATH="$build/bin:$PATH"
