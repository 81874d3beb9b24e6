// SPDX-License-Identifier: Apache-2.0
// The `mswc` data set kind: NeuroBench's MSWC keyword FSCIL subset by folder.
#include <memory>
#include <string>

#include <neurobench/datasets/mswc.hpp>

#include "datasets/builtin_kinds.hpp"

namespace neurobench::detail {
namespace {

datasets::MswcOptions mswc_options(const Json& options) {
  datasets::MswcOptions o;
  o.subset = datasets::mswc_subset(options.at("subset").get<std::string>());
  const auto procedure = options.at("procedure").get<std::string>();
  if (!procedure.empty()) o.procedure = datasets::mswc_procedure(procedure);
  o.language = options.at("language").get<std::string>();
  o.validate();
  return o;
}

class MswcKind final : public DatasetOpener {
 public:
  explicit MswcKind(const Json& options) : options_(mswc_options(options)) {}

  static DatasetKind describe() {
    return DatasetKind("mswc",
                       "NeuroBench's MSWC keyword FSCIL subset: 1 s Ogg Opus clips (48000, 1) "
                       "float32, 200 keywords (docs/datasets.md)")
        .with_path(
            "the release folder MSWC (holding base_train.csv and a folder per "
            "language), or NeuroBench's root holding it")
        .with_option("subset", "string", Json(),
                     "base (the 100 base classes) or evaluation (one language's 10) (--subset)")
        .with_option("procedure", "string", "",
                     "the base subset's clips: training, validation or testing")
        .with_option("language", "string", "",
                     "the evaluation subset's language: fa, eo, pt, eu, pl, cy, nl, ru, es, it");
  }

  std::shared_ptr<Dataset> open(const std::filesystem::path& path,
                                const DatasetOpenOptions& open) const override {
    datasets::MswcOptions o = options_;
    o.quiet = open.quiet;
    return std::make_shared<datasets::Mswc>(path, o);
  }

 private:
  datasets::MswcOptions options_;
};

}  // namespace

void add_mswc_kind(DatasetKinds& kinds) { add_builtin_kind<MswcKind>(kinds); }

}  // namespace neurobench::detail
