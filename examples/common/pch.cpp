// SPDX-License-Identifier: Apache-2.0
// The translation unit that builds the examples' shared precompiled header
// (examples/CMakeLists.txt): it has no code of its own.
