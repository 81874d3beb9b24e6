# SPDX-License-Identifier: Apache-2.0
# ctest: the EEG motor imagery example without data (says where to get them, exit 2), then on a
# small synthetic folder: NeuroBench's figures that depend only on the network, every trial of
# the val subset, and the config it writes gives the same numbers with `neurobench run`.
#   cmake -DEXAMPLE=eeg_mi -DCLI=neurobench -DPYTHON=/usr/bin/python3 -DSOURCE=repo -DRUN=dir
#         -P check_example.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../common/compare_configs.cmake)
set(folder_script ${SOURCE}/tests/fixtures/thor_eeg_mi/make_folder.py)
set(url "huggingface.co/datasets/NeuroBench/thor_eeg_mi")

# No data: a message saying where to get them, exit status 2.
execute_process(COMMAND ${EXAMPLE} --quiet RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "${url}")
  message(FATAL_ERROR "eeg_mi without --data: exit ${status}, expected 2 with the download "
                      "address:\n${err}")
endif()
execute_process(COMMAND ${EXAMPLE} --data ${RUN}/nowhere --quiet RESULT_VARIABLE status
                ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "nowhere/val_X.npy: no such file"
   OR NOT err MATCHES "${url}")
  message(FATAL_ERROR "eeg_mi --data nowhere: exit ${status}:\n${err}")
endif()
message(STATUS "without the data the example says where to get them and exits 2")

file(REMOVE_RECURSE ${RUN})
file(MAKE_DIRECTORY ${RUN})
execute_process(COMMAND ${PYTHON} ${folder_script} ${RUN}/thor --seed 5 --trials 20,23
                        --timesteps 120
                RESULT_VARIABLE status OUTPUT_VARIABLE folder ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "make_folder.py exited with ${status}:\n${err}")
endif()
string(STRIP "${folder}" folder)

# A val_y.npy that does not match val_X.npy: exit 2, the files named, no results written.
file(MAKE_DIRECTORY ${RUN}/bad)
file(COPY ${folder}/val_X.npy ${folder}/train_y.npy DESTINATION ${RUN}/bad)
file(RENAME ${RUN}/bad/train_y.npy ${RUN}/bad/val_y.npy)
execute_process(COMMAND ${EXAMPLE} --data ${RUN}/bad --quiet --json ${RUN}/bad.json
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "val_X.npy holds 23 trials .* but .*val_y.npy holds 20"
   OR EXISTS ${RUN}/bad.json)
  message(FATAL_ERROR "eeg_mi on mismatched files: exit ${status}:\n${err}")
endif()
message(STATUS "mismatched files: exit 2 naming them, nothing written")

execute_process(COMMAND ${EXAMPLE} --data ${folder} --batch-size 8 --quiet
                        --json ${RUN}/results.json --write-configs ${RUN}
                RESULT_VARIABLE status OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "eeg_mi on the synthetic folder exited with ${status}:\n${err}")
endif()
message(STATUS "${table}")

# The figures of NeuroBench's network that do not depend on its weights' values or the data
# (Python NeuroBench on examples/eeg_mi/model.py; README.md): 48,896 dense operations a
# timestep, 120 timesteps.
file(READ ${RUN}/results.json example)
foreach(check "ParameterCount;49282" "Footprint;197188" "ConnectionSparsity;0"
              "SynapticOperations Dense;5867520")
  list(GET check 0 key)
  list(GET check 1 expected)
  string(REPLACE " " ";" path "${key}")
  string(JSON value GET "${example}" models eeg_snn results ${path})
  if(NOT value EQUAL expected)
    message(FATAL_ERROR "${key}: ${value}, NeuroBench's network has ${expected}")
  endif()
endforeach()
# Every trial of the val subset, no more.
string(JSON samples GET "${example}" data samples)
if(NOT samples EQUAL 23)
  message(FATAL_ERROR "the example ran ${samples} trials; the val subset has 23")
endif()
message(STATUS "parameters, footprint and dense operations are those of NeuroBench's network")

# The config the example wrote, run by `neurobench run`, gives the example's numbers; it is the
# committed config but for the note, the model's folder, the data set and the batch size.
execute_process(COMMAND ${CLI} run ${RUN}/eeg_snn.json --json ${RUN}/eeg_snn_cli.json --quiet
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "neurobench run eeg_snn.json exited with ${status}:\n${err}")
endif()
file(READ ${RUN}/eeg_snn_cli.json cli)
foreach(key Footprint ParameterCount ConnectionSparsity ClassificationAccuracy
            ActivationSparsity SynapticOperations)
  string(JSON from_cli GET "${cli}" ${key})
  string(JSON from_example GET "${example}" models eeg_snn results ${key})
  if(NOT from_cli STREQUAL from_example)
    message(FATAL_ERROR "${key}: neurobench run gave ${from_cli}, the example ${from_example}")
  endif()
endforeach()
string(JSON dataset GET "${cli}" _run dataset)
string(JSON kind GET "${dataset}" kind)
string(JSON subset GET "${dataset}" options subset)
if(NOT kind STREQUAL "thor-eeg-mi" OR NOT subset STREQUAL "val")
  message(FATAL_ERROR "neurobench run recorded the data set ${dataset}")
endif()
file(READ ${RUN}/eeg_snn.json written)
string(JSON batch GET "${written}" batch_size)
if(NOT batch EQUAL 8)
  message(FATAL_ERROR "${RUN}/eeg_snn.json has batch_size ${batch}; the run used 8")
endif()
neurobench_compare_configs(WRITTEN ${RUN}/eeg_snn.json
                           COMMITTED ${SOURCE}/examples/eeg_mi/eeg_snn.json
                           IGNORE _comment model dataset batch_size)
message(STATUS "neurobench run on the config the example writes gives its numbers")
