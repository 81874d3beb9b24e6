// SPDX-License-Identifier: Apache-2.0
#pragma once

// Loading a TorchScript model file whole-checked: its bytes are read once, hashed, checked (every
// zip entry's CRC-32, which LibTorch 1.13 does not check) and handed to LibTorch from memory, so
// that the module loaded is made of the very bytes that were checked and hashed. Private to the
// library (src/).

#include <filesystem>
#include <string>

#include <torch/script.h>

#include <neurobench/model/nir_options.hpp>

namespace neurobench::detail {

/// A module loaded from a file, and the SHA-256 of the bytes it was loaded from.
struct CheckedModule {
  torch::jit::Module module;
  std::string sha256;  ///< 64 lowercase hex digits.
  bool from_nir = false;  ///< Built from a NIR graph (runs one timestep per call).
};

/// Reads the model file at `path` into memory and computes its SHA-256. When it is a zip
/// archive (TorchScript's format): reads every entry to its end so that libzip checks its CRC-32,
/// and refuses a compressed tensor record (`.../data/N`, `.../constants/N`; LibTorch writes them
/// stored). Then loads the module from those bytes with torch::jit::load, and checks every tensor
/// the module holds against its storage and every storage against the record it was read from
/// (module_tensors.hpp). Throws InputError naming the file, and the entry or tensor at fault.
/// With a `device` other than the CPU, the module checked on the CPU is then loaded again from
/// the same bytes onto the device (torch.jit.load's map_location), so that every tensor it holds,
/// graph constants included, is there.
/// A file holding HDF5's signature is a NIR graph: it is built into a module
/// (model/nir_build.hpp) with `nir`, on the CPU, then moved to `device`.
[[nodiscard]] CheckedModule load_checked_module(const std::filesystem::path& path,
                                                const c10::Device& device = c10::kCPU,
                                                const NirOptions& nir = {});

}  // namespace neurobench::detail
