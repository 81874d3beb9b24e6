# SPDX-License-Identifier: Apache-2.0
# ctest: `neurobench run cnn.json` / `snn.json` on the data the example wrote give the example's
# own numbers, and the configs the example wrote are the committed ones but for their paths.
#   cmake -DCLI=neurobench -DCONFIGS=examples/fashion_mnist -DRUN=smoke_dir -P check_configs.cmake
# RUN holds cnn_test.npz, snn_test.npz, cnn.json, snn.json and results.json from
# `fashion_mnist --write-npz RUN --json RUN/results.json`.
include(${CMAKE_CURRENT_LIST_DIR}/../common/compare_configs.cmake)
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
  set(compared 0)
  foreach(i RANGE ${last})
    string(JSON key MEMBER "${cli}" ${i})
    # The configs also ask for deployment metrics (timings vary) and write metadata (`_run`,
    # `_environment`): only the metrics the example computes are compared.
    string(JSON from_example ERROR_VARIABLE missing GET "${example}" models ${model} results ${key})
    if(missing)
      continue()
    endif()
    math(EXPR compared "${compared} + 1")
    string(JSON from_cli GET "${cli}" ${key})
    if(NOT from_cli STREQUAL from_example)
      message(FATAL_ERROR "${model} ${key}: neurobench run gave ${from_cli}, the example "
                          "${from_example}")
    endif()
  endforeach()
  if(compared LESS 6)
    message(FATAL_ERROR "${model}: only ${compared} metrics in common with the example")
  endif()
  foreach(key ModelFileSize DenseMACs Latency InferenceTime Throughput StartupTime PeakMemory)
    string(JSON value ERROR_VARIABLE missing GET "${cli}" ${key})
    if(missing OR value STREQUAL "null")
      message(FATAL_ERROR "${model}: ${key} missing from neurobench run's results")
    endif()
  endforeach()
  string(JSON accuracy GET "${cli}" ClassificationAccuracy)
  string(JSON latency GET "${cli}" Latency sample_median_ms)
  message(STATUS "neurobench run ${model}.json matches the example: accuracy ${accuracy}, "
                 "latency ${latency} ms per image")
endforeach()

# The configs the example wrote beside the data (BenchmarkConfig::write) are the committed ones
# but for the notes and the paths.
foreach(model cnn snn)
  file(READ ${RUN}/${model}.json written)
  string(JSON data GET "${written}" data)
  if(NOT data STREQUAL "${model}_test.npz")
    message(FATAL_ERROR "${RUN}/${model}.json: data is ${data}, expected ${model}_test.npz")
  endif()
  neurobench_compare_configs(WRITTEN ${RUN}/${model}.json COMMITTED ${CONFIGS}/${model}.json
                             IGNORE _comment _metrics model data)
endforeach()
message(STATUS "the configs the example writes match the committed cnn.json and snn.json")

# The report and compare commands on the two runs.
execute_process(COMMAND ${CLI} report ${RUN}/cnn_cli.json ${RUN}/snn_cli.json
                        -o ${RUN}/report.html RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT EXISTS ${RUN}/report.html)
  message(FATAL_ERROR "neurobench report exited with ${status}")
endif()
execute_process(COMMAND ${CLI} report ${RUN}/cnn_cli.json ${RUN}/snn_cli.json --format markdown
                OUTPUT_VARIABLE markdown RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR NOT markdown MATCHES "\\| cnn_cli \\| 0\\.[0-9]+ \\|")
  message(FATAL_ERROR "neurobench report --format markdown exited with ${status}:\n${markdown}")
endif()
# The same run against itself: no regression; the CNN against the SNN: latency regresses.
execute_process(COMMAND ${CLI} compare ${RUN}/cnn_cli.json ${RUN}/cnn_cli.json --fail-above 5%
                OUTPUT_VARIABLE same RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "neurobench compare of a run with itself exited with ${status}:\n${same}")
endif()
execute_process(COMMAND ${CLI} compare ${RUN}/cnn_cli.json ${RUN}/snn_cli.json --fail-above 5%
                OUTPUT_VARIABLE differ RESULT_VARIABLE status)
if(NOT status EQUAL 1 OR NOT differ MATCHES "REGRESSION")
  message(FATAL_ERROR "neurobench compare cnn snn should exit 1 with regressions, got ${status}:\n"
                      "${differ}")
endif()
message(STATUS "neurobench report and compare work on the example's results")
