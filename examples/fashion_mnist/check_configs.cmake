# SPDX-License-Identifier: Apache-2.0
# ctest: `neurobench run cnn.json` / `snn.json` on the data the example wrote give the example's
# own numbers.
#   cmake -DCLI=neurobench -DCONFIGS=examples/fashion_mnist -DRUN=smoke_dir -P check_configs.cmake
# RUN holds cnn_test.npz, snn_test.npz and results.json from `fashion_mnist --write-npz RUN
# --json RUN/results.json`.
file(READ ${RUN}/results.json example)
foreach(model cnn snn)
  file(REMOVE ${RUN}/${model}_cli.json)
  execute_process(COMMAND ${CLI} run ${CONFIGS}/${model}.json --data ${RUN}/${model}_test.npz
                          --json ${RUN}/${model}_cli.json --quiet
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "neurobench run ${model}.json exited with ${status}")
  endif()
  file(READ ${RUN}/${model}_cli.json cli)
  string(JSON count LENGTH "${cli}")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON key MEMBER "${cli}" ${i})
    string(JSON from_cli GET "${cli}" ${key})
    string(JSON from_example GET "${example}" models ${model} results ${key})
    if(NOT from_cli STREQUAL from_example)
      message(FATAL_ERROR "${model} ${key}: neurobench run gave ${from_cli}, the example "
                          "${from_example}")
    endif()
  endforeach()
  string(JSON accuracy GET "${cli}" ClassificationAccuracy)
  message(STATUS "neurobench run ${model}.json matches the example: accuracy ${accuracy}")
endforeach()
