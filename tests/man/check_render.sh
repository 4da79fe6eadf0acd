#!/usr/bin/env bash
# Every page in MAN_DIR (weibo*.1, weibo*.7) is plain ASCII roff and formats with no groff
# warning (-ww: all of them) at the widths a terminal commonly has, as man(1) would
# format it.
# usage: check_render.sh MAN_DIR
set -euo pipefail
man_dir=${1:?usage: check_render.sh MAN_DIR}
status=0 pages=0
for page in "$man_dir"/weibo*.[17]; do
  [ -e "$page" ] || continue
  pages=$((pages + 1))
  if LC_ALL=C grep -n '[^[:print:][:space:]]' "$page" >&2; then
    echo "$page: non-ASCII bytes (write them as groff escapes)" >&2
    status=1
  fi
  for width in 60n 78n 100n; do
    warnings=$(groff -man -Tutf8 -ww -z -rLL=$width "$page" 2>&1) || true
    if [ -n "$warnings" ]; then
      printf '%s (line length %s):\n%s\n' "$page" "$width" "$warnings" >&2
      status=1
    fi
  done
done
if [ "$pages" -eq 0 ]; then
  echo "no pages in $man_dir" >&2
  exit 1
fi
echo "formatted $pages page(s) at 3 widths: $([ $status = 0 ] && echo no warnings || echo warnings)"
exit $status
