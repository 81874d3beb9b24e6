#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ctest: builds tests/consumer against the installed package, or via add_subdirectory.
#   run_consumer_test.sh install|subdirectory SOURCE_DIR BUILD_DIR WORK_DIR [CMAKE_ARG...]
# CMAKE_ARGs go to the consumer's configure: the project's build passes its unity-build setting
# (fewer, larger translation units). Through add_subdirectory the library is compiled again, and
# ccache cannot share those objects with the project's build (the unity files' paths differ and
# are part of what ccache hashes), so that mode compiles unoptimised (-O0: about 30% less
# compile time; what it checks is that the targets link and give the same numbers).
set -euo pipefail
mode=$1 src=$2 build=$3 work=$4
shift 4
rm -rf "$work" && mkdir -p "$work"
if [[ $mode == install ]]; then
  gen=(-G Ninja -DCMAKE_BUILD_TYPE=Release "$@")
else
  # Without the optional components and with the precompiled header, as the minimal preset
  # (about half the compile time): the package with every component is the install mode's.
  gen=(-G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 -DNEUROBENCH_PCH=ON
       -DNEUROBENCH_WITH_HDF5=OFF -DNEUROBENCH_WITH_SNDFILE=OFF -DNEUROBENCH_WITH_FFMPEG=OFF
       -DNEUROBENCH_WITH_DISTRIBUTED=OFF -DNEUROBENCH_WITH_CUDA=OFF "$@")
fi
command -v ccache >/dev/null && gen+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [[ $mode == install ]]; then
  cmake --install "$build" --prefix "$work/prefix" >/dev/null
  cmake -S "$src/tests/consumer" -B "$work/build" "${gen[@]}" -DCMAKE_PREFIX_PATH="$work/prefix"
else
  cmake -S "$src/tests/consumer" -B "$work/build" "${gen[@]}" -DNEUROBENCH_SOURCE_DIR="$src"
fi
cmake --build "$work/build" -j 2
out=$("$work/build/consumer" "$src/tests/fixtures/core/classifier.pt" "$src/tests/fixtures/core/classifier.npz")
echo "$out"
expected='{"ParameterCount":67,"ClassificationAccuracy":0.699999988079071,"NonZeroPredictions":4}'
[[ "$out" == "$expected" ]] || { echo "consumer printed $out, expected $expected" >&2; exit 1; }
