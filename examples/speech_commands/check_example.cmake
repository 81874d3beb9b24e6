# SPDX-License-Identifier: Apache-2.0
# ctest: the Speech Commands example without data (says where to get it, exit 2), then on a
# small synthetic folder: NeuroBench's footprints and dense operation counts, and the configs it
# writes give the same numbers with `neurobench run`.
#   cmake -DEXAMPLE=speech_commands -DCLI=neurobench -DPYTHON=/usr/bin/python3 -DSOURCE=repo
#         -DRUN=dir -P check_example.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../common/compare_configs.cmake)
set(folder_script ${SOURCE}/tests/fixtures/speech_commands/make_folder.py)

# No data: a message saying where to get the release, exit status 2.
execute_process(COMMAND ${EXAMPLE} --quiet RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "speech_commands_v0.02.tar.gz")
  message(FATAL_ERROR "speech_commands without --data: exit ${status}, expected 2 with the "
                      "download address:\n${err}")
endif()
execute_process(COMMAND ${EXAMPLE} --data ${RUN}/nowhere --quiet RESULT_VARIABLE status
                ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "nowhere: no such folder")
  message(FATAL_ERROR "speech_commands --data nowhere: exit ${status}:\n${err}")
endif()
message(STATUS "without the data set the example says where to get it and exits 2")

file(REMOVE_RECURSE ${RUN})
file(MAKE_DIRECTORY ${RUN})
execute_process(COMMAND ${PYTHON} ${folder_script} ${RUN}/gsc --seed 7 --labels 6 --per-label 7
                RESULT_VARIABLE status OUTPUT_VARIABLE release ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "make_folder.py exited with ${status}:\n${err}")
endif()
string(STRIP "${release}" release)
execute_process(COMMAND ${EXAMPLE} --data ${RUN}/gsc --subset testing --batch-size 4 --quiet
                        --json ${RUN}/results.json --write-configs ${RUN}
                RESULT_VARIABLE status OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "speech_commands on the synthetic folder exited with ${status}:\n${err}")
endif()
message(STATUS "${table}")

# NeuroBench's published footprints and dense operations per sample (they depend on the
# networks alone; accuracy and the effective operations depend on the trained weights).
file(READ ${RUN}/results.json example)
foreach(check "snn;Footprint;583900" "snn;SynapticOperations Dense;29030400"
              "ann;Footprint;109228" "ann;SynapticOperations Dense;1880256"
              "snn;ConnectionSparsity;0" "ann;ConnectionSparsity;0")
  list(GET check 0 model)
  list(GET check 1 key)
  list(GET check 2 expected)
  string(REPLACE " " ";" path "${key}")
  string(JSON value GET "${example}" models ${model} results ${path})
  if(NOT value EQUAL expected)
    message(FATAL_ERROR "${model} ${key}: ${value}, NeuroBench publishes ${expected}")
  endif()
endforeach()
# Every clip of testing_list.txt, no more.
file(STRINGS ${release}/testing_list.txt listed)
list(LENGTH listed expected_samples)
string(JSON samples GET "${example}" data samples)
if(expected_samples LESS 1 OR NOT samples EQUAL expected_samples)
  message(FATAL_ERROR "the example ran ${samples} clips; testing_list.txt lists "
                      "${expected_samples}")
endif()
message(STATUS "footprints and dense operations are NeuroBench's published figures")

# The configs the example wrote, run by `neurobench run`, give the example's numbers; they are
# the committed configs but for the notes, the model's folder, the data set and the batch size.
foreach(model snn ann)
  execute_process(COMMAND ${CLI} run ${RUN}/${model}.json --json ${RUN}/${model}_cli.json --quiet
                  RESULT_VARIABLE status ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "neurobench run ${model}.json exited with ${status}:\n${err}")
  endif()
  file(READ ${RUN}/${model}_cli.json cli)
  foreach(key Footprint ConnectionSparsity ClassificationAccuracy ActivationSparsity
              SynapticOperations)
    string(JSON from_cli GET "${cli}" ${key})
    string(JSON from_example GET "${example}" models ${model} results ${key})
    if(NOT from_cli STREQUAL from_example)
      message(FATAL_ERROR "${model} ${key}: neurobench run gave ${from_cli}, the example "
                          "${from_example}")
    endif()
  endforeach()
  file(READ ${RUN}/${model}.json written)
  string(JSON batch GET "${written}" batch_size)
  if(NOT batch EQUAL 4)
    message(FATAL_ERROR "${RUN}/${model}.json has batch_size ${batch}; the run used 4")
  endif()
  neurobench_compare_configs(WRITTEN ${RUN}/${model}.json
                             COMMITTED ${SOURCE}/examples/speech_commands/${model}.json
                             IGNORE _comment model dataset batch_size)
endforeach()
message(STATUS "neurobench run on the configs the example writes gives its numbers")
