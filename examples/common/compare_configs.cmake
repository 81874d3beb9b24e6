# SPDX-License-Identifier: Apache-2.0
# For the examples' ctest scripts (cmake -P): a config an example wrote equals the committed
# one, once the keys that differ by design (notes, paths, batch size) are left out of both.
#
#   include(${CMAKE_CURRENT_LIST_DIR}/../common/compare_configs.cmake)
#   neurobench_compare_configs(WRITTEN run/snn.json COMMITTED examples/x/snn.json
#                              IGNORE _comment model dataset)
function(neurobench_compare_configs)
  cmake_parse_arguments(arg "" "WRITTEN;COMMITTED" "IGNORE" ${ARGN})
  file(READ "${arg_WRITTEN}" written)
  file(READ "${arg_COMMITTED}" committed)
  foreach(key IN LISTS arg_IGNORE)
    foreach(which committed written)
      string(JSON without ERROR_VARIABLE missing REMOVE "${${which}}" ${key})
      if(NOT missing)
        set(${which} "${without}")
      endif()
    endforeach()
  endforeach()
  string(JSON same EQUAL "${committed}" "${written}")
  if(NOT same)
    message(FATAL_ERROR "${arg_WRITTEN}, written by the example, differs from "
                        "${arg_COMMITTED}:\n${written}\n${committed}")
  endif()
endfunction()
