#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Compile time of one user file: with neurobench's header API (the library compiled once), and
# as a header-only library would make it, with the headers the compiled core uses (LibTorch's
# JIT IR, graph functions, operator registration) and the core's private headers in the same
# translation unit. The second is a lower bound for header-only: the core's code itself would
# come on top. Same flags as the library's release build, no ccache, best of N runs.
# With --full, also the library's own code: the sum of compiling each of its sources once, which
# a header-only library would add to every translation unit that includes it (slow: minutes).
# With --build [PRESET], instead: the whole build from cold in a scratch folder (an empty ccache
# of its own, as on a fresh machine or in CI: the tests that build the library again hit it), as
# scripts/example and scripts/test build it: the example's targets (library, command line,
# Mackey-Glass example), then everything else, then the tests run; wall and CPU time of each
# phase, CPU counting every process the phase waited for (tens of minutes; docs/design.md
# records the figures). Wall time is only comparable on an otherwise idle machine.
#   benchmarks/compile_time.sh [--full] [RUNS]
#   benchmarks/compile_time.sh --build [PRESET] [--no-tests]
set -euo pipefail
if [[ ${1:-} == --build ]]; then
  shift
  preset=release
  if [[ $# -gt 0 && $1 != --* ]]; then preset=$1; shift; fi
  tests=1
  if [[ ${1:-} == --no-tests ]]; then tests=0; fi
  root=$(cd "$(dirname "$0")/.." && pwd)
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  export CCACHE_DIR=$scratch/ccache
  jobs=${NEUROBENCH_JOBS:-2}
  phase() {  # phase NAME COMMAND...: the command's wall and CPU (user + system) time
    local name=$1 log=$scratch/$1.log
    shift
    if ! /usr/bin/time -o "$scratch/time" -f '%e %U %S' "$@" >"$log" 2>&1; then
      tail -20 "$log" >&2
      echo "compile_time: $name failed (log above)" >&2
      exit 1
    fi
    read -r wall user sys <"$scratch/time"
    awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" \
      'BEGIN { printf "  %-34s %7.0f s wall %7.0f s CPU\n", n, w, u + s }'
  }
  echo "cold build, preset $preset, $jobs jobs, empty ccache ($(nproc) cores):"
  phase configure cmake -S "$root" -B "$scratch/build" --preset "$preset"
  phase "example: library, cli, example" cmake --build "$scratch/build" -j "$jobs" \
    --target neurobench_example_mackey_glass neurobench_cli
  phase "the rest of the build" cmake --build "$scratch/build" -j "$jobs"
  if [[ $tests == 1 ]]; then phase "ctest" ctest --test-dir "$scratch/build" -j "$jobs"; fi
  exit 0
fi
full=0
if [[ ${1:-} == --full ]]; then full=1; shift; fi
runs=${1:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
user=$root/tests/consumer/main.cpp
flags=(-std=c++17 -O3 -DNDEBUG -fPIC -D_GLIBCXX_USE_CXX11_ABI=1 -I"$root/include" -I"$root/src"
       -isystem /usr/include/torch/csrc/api/include)

# What the core's sources include from LibTorch and from src/, gathered from the sources.
{
  grep -rhoE '^#include <(torch|ATen|c10)/[^>]+>' "$root/src" | sort -u
  (cd "$root/src" && find . -name '*.hpp' | sed 's|^\./|#include "|; s|$|"|' | sort)
  echo "#include \"$user\""
} >"$work/header_only.cpp"
echo "#include \"$user\"" >"$work/header_api.cpp"

best() {  # best SOURCE: the fastest of $runs compiles, in seconds
  local best=
  for _ in $(seq "$runs"); do
    local t0 t1
    t0=$(date +%s.%N)
    c++ "${flags[@]}" -c "$1" -o "$work/out.o"
    t1=$(date +%s.%N)
    best=$(awk -v a="$best" -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
      'BEGIN { print (a == "" || t < a) ? t : a }')
  done
  echo "$best"
}

api=$(best "$work/header_api.cpp")
only=$(best "$work/header_only.cpp")
printf 'one user file (%s), best of %s compiles:\n' "${user#"$root"/}" "$runs"
printf '  header API (this library):          %6.1f s\n' "$api"
printf '  header-only, lower bound:           %6.1f s\n' "$only"
awk -v a="$api" -v b="$only" 'BEGIN { printf "  ratio header-only / header API:     %6.2fx\n", b / a }'
if [[ $full == 1 ]]; then
  code=0
  count=0
  while IFS= read -r source; do
    t0=$(date +%s.%N)
    c++ "${flags[@]}" -I"$root/build/release/generated" -DNEUROBENCH_VERSION='"0"' \
      -DNEUROBENCH_BUILD_TYPE='"Release"' -c "$source" -o "$work/lib.o"
    t1=$(date +%s.%N)
    code=$(awk -v c="$code" -v a="$t0" -v b="$t1" 'BEGIN { print c + b - a }')
    count=$((count + 1))
  done < <(find "$root/src" -name '*.cpp' -not -path '*/cli/*' | sort)
  printf '  the library code (%d sources):      %6.1f s\n' "$count" "$code"
  awk -v a="$api" -v c="$code" \
    'BEGIN { printf "  header-only with its code / API:    %6.2fx\n", (a + c) / a }'
fi
