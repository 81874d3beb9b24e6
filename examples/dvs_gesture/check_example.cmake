# SPDX-License-Identifier: Apache-2.0
# ctest: the DVS Gesture example without data (says where to get it, exit 2), then on the
# fixture release (tests/fixtures/dvs_gesture/release): NeuroBench's footprint, connection
# sparsity and dense operation count, and the config it writes gives the same numbers with
# `neurobench run`.
#   cmake -DEXAMPLE=dvs_gesture -DCLI=neurobench -DSOURCE=repo -DRUN=dir -P check_example.cmake
set(release ${SOURCE}/tests/fixtures/dvs_gesture/release)

execute_process(COMMAND ${EXAMPLE} --quiet RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "DvsGesture.tar.gz" OR NOT err MATCHES "figshare")
  message(FATAL_ERROR "dvs_gesture without --data: exit ${status}, expected 2 with the "
                      "download addresses:\n${err}")
endif()
execute_process(COMMAND ${EXAMPLE} --data ${RUN}/nowhere --quiet RESULT_VARIABLE status
                ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "nowhere: no such folder")
  message(FATAL_ERROR "dvs_gesture --data nowhere: exit ${status}:\n${err}")
endif()
message(STATUS "without the data set the example says where to get it and exits 2")

file(REMOVE_RECURSE ${RUN})
file(MAKE_DIRECTORY ${RUN})
execute_process(COMMAND ${EXAMPLE} --data ${release} --subset test --batch-size 2 --quiet
                        --json ${RUN}/results.json --write-config ${RUN}/snn.json
                RESULT_VARIABLE status OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "dvs_gesture on the fixture release exited with ${status}:\n${err}")
endif()
message(STATUS "${table}")

# NeuroBench's published figures that depend on the network alone (accuracy, activation
# sparsity and the effective operations depend on the trained weights and the data).
file(READ ${RUN}/results.json example)
foreach(check "Footprint;304828" "ConnectionSparsity;0" "SynapticOperations Dense;891206400")
  list(GET check 0 key)
  list(GET check 1 expected)
  string(REPLACE " " ";" path "${key}")
  string(JSON value GET "${example}" results ${path})
  if(NOT value EQUAL expected)
    message(FATAL_ERROR "${key}: ${value}, NeuroBench publishes ${expected}")
  endif()
endforeach()
string(JSON samples GET "${example}" data samples)
if(NOT samples EQUAL 5)
  message(FATAL_ERROR "the example ran ${samples} samples; the fixture's test subset has 5")
endif()
message(STATUS "footprint, connection sparsity and dense operations are NeuroBench's")

execute_process(COMMAND ${CLI} run ${RUN}/snn.json --json ${RUN}/cli.json --quiet
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "neurobench run snn.json exited with ${status}:\n${err}")
endif()
file(READ ${RUN}/cli.json cli)
foreach(key Footprint ConnectionSparsity ClassificationAccuracy ActivationSparsity
            SynapticOperations)
  string(JSON from_cli GET "${cli}" ${key})
  string(JSON from_example GET "${example}" results ${key})
  if(NOT from_cli STREQUAL from_example)
    message(FATAL_ERROR "${key}: neurobench run gave ${from_cli}, the example ${from_example}")
  endif()
endforeach()
message(STATUS "neurobench run on the config the example writes gives its numbers")
