# SPDX-License-Identifier: Apache-2.0
# ctest: the Primate Reaching example without data (says where to get it, exit 2), then on a
# synthetic 96-channel session: NeuroBench's footprints and the SNN's dense operations, the
# test steps NeuroBench's benchmark options give, and `neurobench run --dataset
# primate-reaching:FILE --subset test` with the same model gives the example's numbers.
#   cmake -DEXAMPLE=primate_reaching -DCLI=neurobench -DPYTHON=/usr/bin/python3 -DSOURCE=repo
#         -DRUN=dir -P check_example.cmake
set(mat_script ${SOURCE}/tests/fixtures/primate_reaching/make_mat.py)

execute_process(COMMAND ${EXAMPLE} --quiet RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "zenodo.org/record/583331")
  message(FATAL_ERROR "primate_reaching without --data: exit ${status}, expected 2 with the "
                      "download address:\n${err}")
endif()
execute_process(COMMAND ${EXAMPLE} --data ${RUN}/nowhere.mat --quiet RESULT_VARIABLE status
                ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "nowhere.mat: no such file")
  message(FATAL_ERROR "primate_reaching --data nowhere.mat: exit ${status}:\n${err}")
endif()
message(STATUS "without the data set the example says where to get it and exits 2")

file(REMOVE_RECURSE ${RUN})
file(MAKE_DIRECTORY ${RUN})
set(session ${RUN}/indy_fixture.mat)
execute_process(COMMAND ${PYTHON} ${mat_script} ${session} --seed 3 --channels 96 --units 2
                        --steps 2500
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "make_mat.py exited with ${status}:\n${err}")
endif()
execute_process(COMMAND ${EXAMPLE} --data ${session} --batch-size 100 --quiet
                        --json ${RUN}/results.json
                RESULT_VARIABLE status OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "primate_reaching on the synthetic session exited with ${status}:\n${err}")
endif()
message(STATUS "${table}")

# NeuroBench's published footprints (indy: 96 channels) and the SNN's dense operations per
# sample depend on the networks alone.
file(READ ${RUN}/results.json example)
foreach(check "snn;Footprint;19648" "snn;SynapticOperations Dense;4900"
              "ann;Footprint;20824" "snn;ConnectionSparsity;0" "ann;ConnectionSparsity;0"
              "snn;SynapticOperations Effective_MACs;0" "ann;SynapticOperations Effective_ACs;0")
  list(GET check 0 model)
  list(GET check 1 key)
  list(GET check 2 expected)
  string(REPLACE " " ";" path "${key}")
  string(JSON value GET "${example}" models ${model} results ${path})
  if(NOT value EQUAL expected)
    message(FATAL_ERROR "${model} ${key}: ${value}, NeuroBench publishes ${expected}")
  endif()
endforeach()
string(JSON samples GET "${example}" data samples)
if(samples LESS 100)
  message(FATAL_ERROR "the example ran ${samples} test steps; the session has more")
endif()
message(STATUS "footprints and dense operations are NeuroBench's published figures")

# The command line, on the same session and model, gives the example's numbers.
foreach(model snn:snn2_96 ann:ann2d_96)
  string(REPLACE ":" ";" pair ${model})
  list(GET pair 0 key)
  list(GET pair 1 file)
  execute_process(COMMAND ${CLI} run --model ${SOURCE}/examples/primate_reaching/models/${file}.pt
                          --dataset primate-reaching:${session} --subset test
                          --dataset-options num_steps=1,train_ratio=0.5,bin_width=0.004
                          --batch-size 100
                          --static Footprint,ConnectionSparsity
                          --workload R2,ActivationSparsity,SynapticOperations
                          --json ${RUN}/${key}_cli.json --quiet
                  RESULT_VARIABLE status ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "neurobench run --dataset primate-reaching (${file}) exited with "
                        "${status}:\n${err}")
  endif()
  file(READ ${RUN}/${key}_cli.json cli)
  foreach(metric Footprint ConnectionSparsity R2 ActivationSparsity SynapticOperations)
    string(JSON from_cli GET "${cli}" ${metric})
    string(JSON from_example GET "${example}" models ${key} results ${metric})
    if(NOT from_cli STREQUAL from_example)
      message(FATAL_ERROR "${key} ${metric}: neurobench run gave ${from_cli}, the example "
                          "${from_example}")
    endif()
  endforeach()
endforeach()
message(STATUS "neurobench run --dataset primate-reaching:FILE --subset test gives the same")
