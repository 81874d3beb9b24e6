// SPDX-License-Identifier: Apache-2.0
#pragma once

// The NumPy file formats live in <neurobench/io/npy.hpp> (load_npy, save_npy) and
// <neurobench/io/npz.hpp> (NamedArray, load_npz, save_npz). This header, their former home, is
// kept so that code including it still compiles; new code includes those two.

#include <neurobench/io/npy.hpp>
#include <neurobench/io/npz.hpp>
