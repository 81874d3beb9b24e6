#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ctest plugin_walkthrough: runs the plugin section of docs/writing-a-metric.md exactly as
# written, in an empty folder, against the installed package, then checks what it promises.
#   run_walkthrough.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work" && mkdir -p "$work/walk"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export NEUROBENCH_PREFIX="$work/prefix" PATH="$work/prefix/bin:$PATH"
export MODEL="$src/tests/fixtures/core/classifier.pt" DATA="$src/tests/fixtures/core/classifier.npz"
export CMAKE_GENERATOR=Ninja CMAKE_BUILD_TYPE=Release
command -v ccache >/dev/null && export CMAKE_CXX_COMPILER_LAUNCHER=ccache
unset NEUROBENCH_PLUGIN_PATH

# The files (<!-- file: PATH --> before a fence) and the commands (<!-- walkthrough -->).
cd "$work/walk"
awk -v out="$work/walk" '
  /^<!-- file: .* -->$/ { target = $3; next }
  /^<!-- walkthrough -->$/ { target = "walkthrough.sh"; next }
  /^```/ { if (inside) { inside = 0; target = "" } else if (target != "") { inside = 1;
           system("mkdir -p \"$(dirname \"" out "/" target "\")\"") } next }
  inside { print > (out "/" target) }
' "$src/docs/writing-a-metric.md"
for f in mymetrics/activation_rate.cpp mymetrics/CMakeLists.txt walkthrough.sh; do
  [[ -s $f ]] || { echo "docs/writing-a-metric.md gave no $f" >&2; exit 1; }
done

fail() { echo "FAIL: $*" >&2; exit 1; }
set +e
bash -x walkthrough.sh >log.txt 2>&1
status=$?
set -e
cat log.txt
# compare, the last command, flags the regression: exit 1 (any earlier failure shows below).
[[ $status == 1 ]] || fail "the walkthrough exited $status, expected 1 (compare's regression)"
grep -q "ActivationRate .*fraction, lower is better" log.txt || fail "list does not describe it"
grep -q "from $work/walk/mymetrics/build/libmymetrics.so" log.txt || fail "list names no library"
grep -q "option threshold (number, default 0.0)" log.txt || fail "list shows no option"
/usr/bin/env python3 - "$work/walk" <<'PY' || fail "results files are not as documented"
import json, sys
d = sys.argv[1]
busy, whole = (json.load(open(f"{d}/{n}.json")) for n in ("busy", "all"))
m = busy["_metrics"]["ActivationRate"]
assert m["unit"] == "fraction" and m["better"] == "lower", m
assert m["source"].endswith("libmymetrics.so") and m["options"] == {"threshold": 0.5}, m
assert whole["_metrics"]["ActivationRate"]["options"] == {"threshold": 0.0}
assert 0 <= busy["ActivationRate"] < whole["ActivationRate"] <= 1, (busy, whole)
assert busy["ClassificationAccuracy"] == whole["ClassificationAccuracy"]
PY
grep -Eq "ActivationRate .*fraction" log.txt || fail "compare shows no unit"
grep -Eq "regressions? above 5%: ActivationRate" log.txt || fail "compare flags no regression"

# NEUROBENCH_PLUGIN_PATH: a folder of libraries.
# (The listing goes to a file: `| grep -q` under pipefail fails when grep exits first and
# neurobench gets SIGPIPE, which the longer listing with processors and data sets made likely.)
NEUROBENCH_PLUGIN_PATH="$work/walk/mymetrics/build" neurobench list >plugin_path_list.txt
grep -q "ActivationRate" plugin_path_list.txt ||
  fail "NEUROBENCH_PLUGIN_PATH did not load the library"
# Bad plugins: exit 2, naming the library.
expect_usage() {  # expect_usage TEXT COMMAND...
  local text=$1 out rc
  shift
  set +e
  out=$("$@" 2>&1)
  rc=$?
  set -e
  [[ $rc == 2 && $out == *"$text"* ]] || fail "$* exited $rc with: $out (expected 2, '$text')"
}
expect_usage "no-such.so" neurobench list --plugin "$work/no-such.so"
echo "not a library" >"$work/fake.so"
expect_usage "cannot load plugin $work/fake.so" neurobench list --plugin "$work/fake.so"
expect_usage "registered no metric" neurobench list --plugin "$(ls "$work"/prefix/lib*/libneurobench.so | head -1)"
expect_usage "does not exist" env NEUROBENCH_PLUGIN_PATH="$work/nowhere" neurobench list
echo "plugin walkthrough: OK"
