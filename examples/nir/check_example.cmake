# SPDX-License-Identifier: Apache-2.0
# ctest: the NIR example on a few synthetic samples: it runs, the network's own figures are the
# graph's (its parameters counted from the file), the build is recorded in `_run.nir` with every
# node's rule, and the time convention chosen on the command line is the one recorded.
#   cmake -DEXAMPLE=nir_cnn -DRUN=dir -P check_example.cmake
file(REMOVE_RECURSE ${RUN})
file(MAKE_DIRECTORY ${RUN})
execute_process(COMMAND ${EXAMPLE} --samples 8 --steps 10 --batch-size 4 --quiet
                        --json ${RUN}/snntorch.json
                RESULT_VARIABLE status OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "nir_cnn exited with ${status}:\n${err}")
endif()
message(STATUS "${table}")
file(READ ${RUN}/snntorch.json example)
# Conv2d 16x2x5x5 + 16, 16x16x3x3 + 16, 8x16x3x3 + 8; Affine 256x128 + 256, 10x256 + 10.
foreach(check "ParameterCount;39890" "ConnectionSparsity;0" "SynapticOperations Dense;8386880")
  list(GET check 0 key)
  list(GET check 1 expected)
  string(REPLACE " " ";" path "${key}")
  string(JSON value GET "${example}" results ${path})
  if(NOT value EQUAL expected)
    message(FATAL_ERROR "${key}: ${value}, the graph gives ${expected}")
  endif()
endforeach()
string(JSON sparsity GET "${example}" results ActivationSparsity)
if(NOT sparsity GREATER 0.5 OR NOT sparsity LESS 1)
  message(FATAL_ERROR "ActivationSparsity ${sparsity}: the IF neurons should fire, sparsely")
endif()
string(JSON stepwise GET "${example}" _run stepwise)
string(JSON time GET "${example}" _run nir time)
string(JSON nodes LENGTH "${example}" _run nir nodes)
if(NOT stepwise OR NOT time STREQUAL "snntorch" OR NOT nodes EQUAL 15)
  message(FATAL_ERROR "_run: stepwise ${stepwise}, nir.time ${time}, ${nodes} nodes; expected "
                      "true, snntorch and the graph's 15 nodes")
endif()
execute_process(COMMAND ${EXAMPLE} --samples 4 --steps 5 --batch-size 4 --quiet
                        --nir-time exact --nir-dt 0.001 --json ${RUN}/exact.json
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "nir_cnn --nir-time exact exited with ${status}:\n${err}")
endif()
file(READ ${RUN}/exact.json exact_results)
string(JSON time GET "${exact_results}" _run nir time)
string(JSON dt GET "${exact_results}" _run nir dt)
if(NOT time STREQUAL "exact" OR NOT dt MATCHES "^0\\.001")
  message(FATAL_ERROR "--nir-time exact --nir-dt 0.001 recorded as ${time}, ${dt}")
endif()
message(STATUS "the example benchmarks the NIR paper's CNN and records how it was built")
