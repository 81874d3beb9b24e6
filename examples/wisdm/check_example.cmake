# SPDX-License-Identifier: Apache-2.0
# ctest: the WISDM example without data (says where to get it, exit 2), then on a small
# synthetic file: NeuroBench's figures that depend only on the network, every window of the
# subset, and the config it writes gives the same numbers with `neurobench run`.
#   cmake -DEXAMPLE=wisdm -DCLI=neurobench -DPYTHON=/usr/bin/python3 -DSOURCE=repo -DRUN=dir
#         -P check_example.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../common/compare_configs.cmake)
set(file_script ${SOURCE}/tests/fixtures/wisdm/make_file.py)
set(url "drive.google.com/drive/folders/1WCN-XwLM_D2nOTZLY00iGwEJLwDQaUCv")

# No data: a message saying where to get the file, exit status 2.
execute_process(COMMAND ${EXAMPLE} --quiet RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "${url}")
  message(FATAL_ERROR "wisdm without --data: exit ${status}, expected 2 with the download "
                      "address:\n${err}")
endif()
execute_process(COMMAND ${EXAMPLE} --data ${RUN}/nowhere --quiet RESULT_VARIABLE status
                ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "nowhere/watch_subset2_40.npz: no such file"
   OR NOT err MATCHES "${url}")
  message(FATAL_ERROR "wisdm --data nowhere: exit ${status}:\n${err}")
endif()
message(STATUS "without the data the example says where to get them and exits 2")

file(REMOVE_RECURSE ${RUN})
file(MAKE_DIRECTORY ${RUN})
execute_process(COMMAND ${PYTHON} ${file_script} ${RUN}/nehar --seed 5 --windows 30,10,21
                RESULT_VARIABLE status OUTPUT_VARIABLE npz ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "make_file.py exited with ${status}:\n${err}")
endif()
string(STRIP "${npz}" npz)
execute_process(COMMAND ${EXAMPLE} --data ${npz} --batch-size 8 --quiet
                        --json ${RUN}/results.json --write-configs ${RUN}
                RESULT_VARIABLE status OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "wisdm on the synthetic file exited with ${status}:\n${err}")
endif()
message(STATUS "${table}")

# The figures of NeuroBench's network that do not depend on its weights' values or the data
# (Python NeuroBench 2.3.0 on examples/nehar/SCNN.py; README.md).
file(READ ${RUN}/results.json example)
foreach(check "ParameterCount;57647" "Footprint;230648" "ConnectionSparsity;0"
              "SynapticOperations Dense;8431360" "SynapticOperations Effective_MACs;96000")
  list(GET check 0 key)
  list(GET check 1 expected)
  string(REPLACE " " ";" path "${key}")
  string(JSON value GET "${example}" models scnn results ${path})
  if(NOT value EQUAL expected)
    message(FATAL_ERROR "${key}: ${value}, NeuroBench's network has ${expected}")
  endif()
endforeach()
# Every window of the test subset, no more.
string(JSON samples GET "${example}" data samples)
if(NOT samples EQUAL 21)
  message(FATAL_ERROR "the example ran ${samples} windows; the test subset has 21")
endif()
message(STATUS "parameters, footprint and dense operations are those of NeuroBench's network")

# The config the example wrote, run by `neurobench run`, gives the example's numbers; it is the
# committed config but for the note, the model's folder, the data set and the batch size.
execute_process(COMMAND ${CLI} run ${RUN}/scnn.json --json ${RUN}/scnn_cli.json --quiet
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "neurobench run scnn.json exited with ${status}:\n${err}")
endif()
file(READ ${RUN}/scnn_cli.json cli)
foreach(key ParameterCount Footprint ConnectionSparsity ClassificationAccuracy
            ActivationSparsity MembraneUpdates SynapticOperations)
  string(JSON from_cli GET "${cli}" ${key})
  string(JSON from_example GET "${example}" models scnn results ${key})
  if(NOT from_cli STREQUAL from_example)
    message(FATAL_ERROR "${key}: neurobench run gave ${from_cli}, the example ${from_example}")
  endif()
endforeach()
string(JSON dataset GET "${cli}" _run dataset)
string(JSON kind GET "${dataset}" kind)
string(JSON subset GET "${dataset}" options subset)
if(NOT kind STREQUAL "wisdm" OR NOT subset STREQUAL "test")
  message(FATAL_ERROR "neurobench run recorded the data set ${dataset}")
endif()
file(READ ${RUN}/scnn.json written)
string(JSON batch GET "${written}" batch_size)
if(NOT batch EQUAL 8)
  message(FATAL_ERROR "${RUN}/scnn.json has batch_size ${batch}; the run used 8")
endif()
neurobench_compare_configs(WRITTEN ${RUN}/scnn.json COMMITTED ${SOURCE}/examples/wisdm/scnn.json
                           IGNORE _comment model dataset batch_size)
message(STATUS "neurobench run on the config the example writes gives its numbers")
