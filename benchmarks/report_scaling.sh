#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How `neurobench report` and `neurobench compare` scale with the number of metric keys: two
# results files of N metrics each (every metric described in `_metrics`, as `run --json`
# writes them), timed for N = 1,000, 10,000 and 64,000, best of RUNS. The baseline is the same
# command on files of 10 metrics: the process start (loading LibTorch), which the per-key
# time is measured above. Linear time gives about the same time per key at 10k and 64k keys;
# quadratic code six times as much at 64k (the seconds at 10k keys are close to the noise).
#   benchmarks/report_scaling.sh [CLI] [RUNS]      (CLI: default build/release/neurobench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${1:-$root/build/release/neurobench}
runs=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# results N SCALE FILE: metric i is i * SCALE; every 1000th is an object of two keys.
results() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
n, scale, path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
doc = {f"M{i}": ({"a": i * scale, "b": 1} if i % 1000 == 0 else i * scale) for i in range(n)}
doc["_metrics"] = {f"M{i}": {"unit": "ms", "better": "lower"} for i in range(n)}
with open(path, "w") as f:
    json.dump(doc, f)
PY
}

# best COMMAND...: the smallest CPU time (user + system) of $runs runs, in seconds, and the
# wall time of that run. CPU time, because a loaded machine stretches the wall time.
best() {
  local best= wall=
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>&1 || true  # compare exits 1
    read -r e u s < <(tail -n 1 "$work/time")  # after "Command exited with non-zero status"
    local cpu
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')
    if [[ -z $best ]] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$cpu wall=$e
    fi
  done
  echo "$best $wall"
}

sizes=(10 1000 10000 64000)
for n in "${sizes[@]}"; do
  results "$n" 1.0 "$work/a$n.json"
  results "$n" 1.1 "$work/b$n.json"
done
printf '%s, best of %s runs: CPU seconds (wall in brackets); "above start" is minus the\n' \
  "$cli" "$runs"
printf 'same command on 10 metrics (loading LibTorch)\n'
printf '%-7s %-15s %-12s %-15s %-12s\n' keys compare "above start" report "above start"
declare -A c r cw rw
for n in "${sizes[@]}"; do
  read -r c[$n] cw[$n] < <(best "$cli" compare "$work/a$n.json" "$work/b$n.json")
  read -r r[$n] rw[$n] < <(best "$cli" report "$work/a$n.json" "$work/b$n.json" -o "$work/r$n.md")
  awk -v n="$n" -v c="${c[$n]}" -v r="${r[$n]}" -v c0="${c[10]}" -v r0="${r[10]}" \
    -v cw="${cw[$n]}" -v rw="${rw[$n]}" \
    'BEGIN { printf "%-7s %5.2fs (%5.2fs) %8.2fs    %5.2fs (%5.2fs) %8.2fs\n",
             n, c, cw, c - c0, r, rw, r - r0 }'
done
awk -v c10="${c[10000]}" -v c64="${c[64000]}" -v r10="${r[10000]}" -v r64="${r[64000]}" \
  -v c0="${c[10]}" -v r0="${r[10]}" \
  'BEGIN { printf "CPU per key above start, 10k and 64k keys: compare %.1f and %.1f us, report %.1f and %.1f us\n",
           (c10 - c0) / 10000 * 1e6, (c64 - c0) / 64000 * 1e6, (r10 - r0) / 10000 * 1e6,
           (r64 - r0) / 64000 * 1e6 }'
