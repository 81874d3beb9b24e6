# SPDX-License-Identifier: Apache-2.0
# The Python module neurobench_cpp._core (docs/python.md): pybind11 (the headers pip's torch
# ships, else Debian's pybind11-dev) against the LibTorch the build uses, which must be the one the Python `torch` it is imported
# with was built on (Debian's python3-torch and libtorch-dev are the same 1.13). Its one source,
# python/src/core.cpp, links the library's objects, so the module needs no libneurobench.so
# beside it; it is written to ${PROJECT_BINARY_DIR}/python/neurobench_cpp/, from where
# python/setup.py copies it into the package.
#
#   NEUROBENCH_PYTHON  AUTO (default): built when Python's headers, pybind11 and a `torch` of the
#                      same version as LibTorch are found; ON: required; OFF: not built (the asan
#                      and minimal presets: no Python extension under the sanitizers).
set(NEUROBENCH_PYTHON AUTO CACHE STRING "Build the Python module neurobench_cpp._core: AUTO, ON, OFF")
set_property(CACHE NEUROBENCH_PYTHON PROPERTY STRINGS AUTO ON OFF)
set(NEUROBENCH_HAS_PYTHON_MODULE OFF)

function(neurobench_python_missing why)
  if(NEUROBENCH_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "NEUROBENCH_PYTHON=ON: ${why}")
  endif()
  message(STATUS "neurobench: the Python module is not built: ${why}")
endfunction()

if(NOT NEUROBENCH_PYTHON STREQUAL "OFF")
  # Debian's python3 (the one python3-torch is for), not another on the PATH.
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module QUIET)
  if(Python3_FOUND)
    # pybind11's headers: those pip's torch ships (the pybind11 torch itself is built with),
    # else the system's (Debian's pybind11-dev; Debian's python3-torch ships none).
    find_path(NEUROBENCH_PYBIND11_INCLUDE pybind11/pybind11.h
              HINTS "${TORCH_INSTALL_PREFIX}/include" NO_DEFAULT_PATH)
    find_path(NEUROBENCH_PYBIND11_INCLUDE pybind11/pybind11.h)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import torch; print(torch.__version__)"
                    OUTPUT_VARIABLE neurobench_py_torch OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_QUIET RESULT_VARIABLE neurobench_py_torch_rc)
    find_library(NEUROBENCH_TORCH_PYTHON_LIBRARY torch_python
                 HINTS "${TORCH_INSTALL_PREFIX}/lib" /usr/lib/x86_64-linux-gnu)
  endif()
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" neurobench_py_torch_mm "${neurobench_py_torch}")
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" neurobench_torch_mm "${Torch_VERSION}")
  if(NOT Python3_FOUND)
    neurobench_python_missing("no Python 3 headers (python3-dev)")
  elseif(NOT NEUROBENCH_PYBIND11_INCLUDE)
    neurobench_python_missing("no pybind11 headers (pybind11-dev, or pip's torch)")
  elseif(NOT neurobench_py_torch_rc EQUAL 0)
    neurobench_python_missing("${Python3_EXECUTABLE} cannot import torch (python3-torch)")
  elseif(NOT neurobench_py_torch_mm STREQUAL neurobench_torch_mm)
    neurobench_python_missing(
      "${Python3_EXECUTABLE}'s torch is ${neurobench_py_torch}, but the LibTorch found "
      "(${Torch_DIR}) is ${Torch_VERSION}: the module must link the LibTorch of the torch it is "
      "imported with. `pip install --no-build-isolation ./python` with that Python builds "
      "against its torch; or configure with -DTorch_DIR=$(${Python3_EXECUTABLE} -c \"import "
      "torch.utils; print(torch.utils.cmake_prefix_path)\")/Torch")
  elseif(NOT NEUROBENCH_TORCH_PYTHON_LIBRARY)
    neurobench_python_missing("no libtorch_python beside LibTorch")
  else()
    set(NEUROBENCH_HAS_PYTHON_MODULE ON)
  endif()
endif()

if(NEUROBENCH_HAS_PYTHON_MODULE)
  message(STATUS "neurobench: the Python module neurobench_cpp._core for ${Python3_EXECUTABLE}")
  message(STATUS "neurobench: pybind11 from ${NEUROBENCH_PYBIND11_INCLUDE}")
  # A Python extension module named for this Python (its SOABI suffix); no link-time
  # optimisation, which would compile the library's objects again.
  Python3_add_library(neurobench_cpp_core MODULE WITH_SOABI python/src/core.cpp
                      python/src/values.cpp python/src/batch_stream.cpp
                      python/src/python_parts.cpp)
  set_target_properties(neurobench_cpp_core PROPERTIES OUTPUT_NAME _core CXX_EXTENSIONS OFF
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/python/neurobench_cpp
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(neurobench_cpp_core PRIVATE cxx_std_${NEUROBENCH_CXX_STANDARD})
  target_include_directories(neurobench_cpp_core PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_include_directories(neurobench_cpp_core SYSTEM PRIVATE ${NEUROBENCH_PYBIND11_INCLUDE})
  target_link_libraries(neurobench_cpp_core PRIVATE neurobench_objects neurobench_fmt torch
                        ${NEUROBENCH_TORCH_PYTHON_LIBRARY})
  target_compile_definitions(neurobench_cpp_core PRIVATE TORCH_EXTENSION_NAME=_core
                             TORCH_API_INCLUDE_EXTENSION_H)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # The pybind11 ABI torch's own extensions are built with (torch.utils.cpp_extension).
    target_compile_definitions(neurobench_cpp_core PRIVATE PYBIND11_COMPILER_TYPE="_gcc"
      PYBIND11_STDLIB="_libstdcpp" PYBIND11_BUILD_ABI="_cxxabi1011")
  endif()
endif()
