# SPDX-License-Identifier: Apache-2.0
# The optional components of neurobench-cpp and how fmt is used (docs/cmake.md, "Components").
#
# The core (models, metrics, .npy/.npz/IDX/AEDAT files, reports, the command line) needs
# LibTorch, fmt, nlohmann_json, zlib, libzip and OpenSSL. These parts need more, and each can be
# left out:
#   hdf5         MATLAB v7.3 files (the primate-reaching data set): HDF5's C library
#   sndfile      WAV files (the speech-commands data set, <neurobench/io/wav.hpp>): libsndfile
#   ffmpeg       Ogg Opus files (the mswc data set, <neurobench/io/opus.hpp>): FFmpeg's libavformat
#                and libavcodec
#   distributed  sharded runs (torchrun, srun, mpirun): LibTorch's c10d and Gloo's headers
#   cuda         device memory and the GPU's description with --device cuda: a LibTorch built
#                with CUDA (running on the GPU needs only that LibTorch; this adds statistics)
# NEUROBENCH_WITH_<NAME> is AUTO (the default: built where what it needs is found), ON (required:
# configuring fails without it) or OFF. Afterwards NEUROBENCH_HAS_<NAME> is ON or OFF and
# NEUROBENCH_COMPONENTS lists the components built.

set(neurobench_component_names hdf5 sndfile distributed cuda ffmpeg)
foreach(name IN LISTS neurobench_component_names)
  string(TOUPPER ${name} upper)
  set(NEUROBENCH_WITH_${upper} AUTO CACHE STRING
      "Build the ${name} component: AUTO (where found), ON (required) or OFF")
  set_property(CACHE NEUROBENCH_WITH_${upper} PROPERTY STRINGS AUTO ON OFF)
  if(NOT NEUROBENCH_WITH_${upper} MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "NEUROBENCH_WITH_${upper} is '${NEUROBENCH_WITH_${upper}}'; expected "
                        "AUTO, ON or OFF")
  endif()
endforeach()

# neurobench_resolve_component(name found why): sets NEUROBENCH_HAS_<NAME> from the option and
# whether what the component needs was found; `why` says what is missing when it was not.
function(neurobench_resolve_component name found why)
  string(TOUPPER ${name} upper)
  set(mode ${NEUROBENCH_WITH_${upper}})
  if(mode STREQUAL "OFF")
    set(has OFF)
    set(note "off (NEUROBENCH_WITH_${upper}=OFF)")
  elseif(found)
    set(has ON)
    set(note "on")
  elseif(mode STREQUAL "ON")
    message(FATAL_ERROR "neurobench: component '${name}' is required "
                        "(NEUROBENCH_WITH_${upper}=ON) but ${why}")
  else()
    set(has OFF)
    set(note "off: ${why}")
  endif()
  message(STATUS "neurobench: component ${name}: ${note}")
  set(NEUROBENCH_HAS_${upper} ${has} PARENT_SCOPE)
endfunction()

# --- hdf5 ------------------------------------------------------------------------------------
set(neurobench_found OFF)
if(NOT NEUROBENCH_WITH_HDF5 STREQUAL "OFF")
  # FindHDF5 test-compiles a C file, so C is enabled for it (no target has C sources).
  enable_language(C)
  find_package(HDF5 COMPONENTS C QUIET)
  if(HDF5_FOUND AND TARGET hdf5::hdf5)
    set(neurobench_found ON)
  endif()
endif()
neurobench_resolve_component(hdf5 ${neurobench_found}
  "HDF5's C library was not found (Debian: libhdf5-dev)")

# --- sndfile ---------------------------------------------------------------------------------
set(neurobench_found OFF)
if(NOT NEUROBENCH_WITH_SNDFILE STREQUAL "OFF")
  pkg_check_modules(SNDFILE QUIET IMPORTED_TARGET sndfile)
  if(SNDFILE_FOUND)
    set(neurobench_found ON)
  endif()
endif()
neurobench_resolve_component(sndfile ${neurobench_found}
  "libsndfile was not found through pkg-config (Debian: libsndfile1-dev)")

# --- ffmpeg ----------------------------------------------------------------------------------
# torchaudio decodes Opus through FFmpeg where its libsox cannot (Debian's), and torchaudio 2 by
# default: the same libraries give the same samples (docs/file-formats.md, "Ogg Opus").
set(neurobench_found OFF)
if(NOT NEUROBENCH_WITH_FFMPEG STREQUAL "OFF")
  pkg_check_modules(FFMPEG QUIET IMPORTED_TARGET libavformat libavcodec libavutil)
  if(FFMPEG_FOUND)
    set(neurobench_found ON)
  endif()
endif()
neurobench_resolve_component(ffmpeg ${neurobench_found}
  "FFmpeg's libavformat and libavcodec were not found through pkg-config (Debian: libavformat-dev, libavcodec-dev)")

# --- distributed -----------------------------------------------------------------------------
# c10d's ProcessGroupGloo.hpp includes Gloo's headers (Debian's libgloo-dev); LibTorch itself
# must have been built with c10d and Gloo (Debian's and PyTorch's Linux builds are).
set(neurobench_found OFF)
set(neurobench_why "Gloo's headers (gloo/config.h) were not found (Debian: libgloo-dev)")
if(NOT NEUROBENCH_WITH_DISTRIBUTED STREQUAL "OFF")
  find_path(GLOO_INCLUDE_DIR gloo/config.h HINTS ${TORCH_INCLUDE_DIRS})
  find_path(NEUROBENCH_C10D_INCLUDE_DIR torch/csrc/distributed/c10d/ProcessGroupGloo.hpp
            HINTS ${TORCH_INCLUDE_DIRS})
  if(GLOO_INCLUDE_DIR AND NEUROBENCH_C10D_INCLUDE_DIR)
    set(neurobench_found ON)
  elseif(GLOO_INCLUDE_DIR)
    set(neurobench_why "this LibTorch has no c10d headers (built without distributed support)")
  endif()
endif()
neurobench_resolve_component(distributed ${neurobench_found} "${neurobench_why}")

# --- cuda ------------------------------------------------------------------------------------
# A CUDA build of LibTorch defines torch_cuda (and TORCH_CUDA_LIBRARIES); its config has found
# the CUDA toolkit already.
set(neurobench_found OFF)
if(NOT NEUROBENCH_WITH_CUDA STREQUAL "OFF" AND (TARGET torch_cuda OR TORCH_CUDA_LIBRARIES))
  if(NOT TARGET CUDA::cudart)
    find_package(CUDAToolkit QUIET)
  endif()
  if(TARGET CUDA::cudart)
    set(neurobench_found ON)
  endif()
endif()
neurobench_resolve_component(cuda ${neurobench_found}
  "this LibTorch is built without CUDA (or the CUDA toolkit's runtime was not found)")

set(NEUROBENCH_COMPONENTS)
foreach(name IN LISTS neurobench_component_names)
  string(TOUPPER ${name} upper)
  if(NEUROBENCH_HAS_${upper})
    list(APPEND NEUROBENCH_COMPONENTS ${name})
  endif()
endforeach()

# --- fmt ------------------------------------------------------------------------------------
# PyTorch 2.x's LibTorch ships fmt's headers (fmt 11 and 12) in its include folder, which the
# compiler searches before the system's. Code compiled against those headers must not link an
# older libfmt (`undefined reference to fmt::v12::vformat`). Where LibTorch has fmt headers of
# its own, neurobench uses them header-only (FMT_HEADER_ONLY), which needs no fmt library at
# all; elsewhere it links the system's fmt. Either way the headers compiled against and the code
# linked are the same fmt, whichever include folder comes first. The code itself compiles with
# fmt 9 to 12 (`fmt::join` comes from <fmt/ranges.h>).
set(neurobench_torch_fmt "")
foreach(dir IN LISTS TORCH_INCLUDE_DIRS)
  if(EXISTS "${dir}/fmt/format.h" AND NOT dir IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
    set(neurobench_torch_fmt "${dir}")
    break()
  endif()
endforeach()
add_library(neurobench_fmt INTERFACE)
if(neurobench_torch_fmt)
  target_compile_definitions(neurobench_fmt INTERFACE FMT_HEADER_ONLY=1)
  message(STATUS "neurobench: fmt: LibTorch's own headers (${neurobench_torch_fmt}), "
                 "header-only")
else()
  find_package(fmt REQUIRED)
  target_link_libraries(neurobench_fmt INTERFACE fmt::fmt)
  message(STATUS "neurobench: fmt: the library found by find_package(fmt) ${fmt_VERSION}")
endif()
