# SPDX-License-Identifier: Apache-2.0
# neurobench_set_warnings(target): the project's warning flags, on one target.
function(neurobench_set_warnings target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
    if(NEUROBENCH_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
endfunction()
