// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace neurobench::detail {

/// While alive, registrations record `where` as their source (the plugin library being
/// loaded); the previous source comes back when it goes.
class ScopedRegistrationSource {
 public:
  explicit ScopedRegistrationSource(std::string where);
  ~ScopedRegistrationSource();
  ScopedRegistrationSource(const ScopedRegistrationSource&) = delete;
  ScopedRegistrationSource& operator=(const ScopedRegistrationSource&) = delete;

 private:
  std::string previous_;
};

}  // namespace neurobench::detail
