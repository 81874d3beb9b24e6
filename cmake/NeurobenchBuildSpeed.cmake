# SPDX-License-Identifier: Apache-2.0
# How the project's own targets are compiled quickly (docs/design.md, "Build and test time").
# LibTorch's headers are most of each source's compile (<torch/script.h>: about 10 s of the 12 s
# of a typical library source), so the two options below both cut how often they are parsed:
#   NEUROBENCH_UNITY_BUILD  sources compiled in batches (one translation unit includes several
#                           .cpp files): the headers are parsed once per batch. Faster from cold
#                           (CI, a first build), slower after a one-file change (the batch is
#                           compiled again), so the dev preset leaves it off.
#   NEUROBENCH_PCH          <torch/script.h> precompiled once per target.
option(NEUROBENCH_UNITY_BUILD "Compile the project's targets in unity batches" OFF)
set(NEUROBENCH_UNITY_BATCH_SIZE 16 CACHE STRING "Sources per unity batch")
option(NEUROBENCH_PCH "Precompile <torch/script.h> for the project's targets" OFF)

# neurobench_build_speed(target): the options above on one target. The tests precompile
# <torch/script.h> and Catch's header always and are built in unity batches of 8 with
# NEUROBENCH_UNITY_BUILD (tests/CMakeLists.txt); the examples share one precompiled header
# (examples/CMakeLists.txt).
function(neurobench_build_speed target)
  if(NEUROBENCH_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                          UNITY_BUILD_BATCH_SIZE ${NEUROBENCH_UNITY_BATCH_SIZE})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # A class of one source using a type of its anonymous namespace is fine in that source;
      # in a batch, the source is an included file and GCC warns.
      target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
    endif()
  endif()
  if(NEUROBENCH_PCH)
    target_precompile_headers(${target} PRIVATE <torch/script.h>)
  endif()
endfunction()

