// SPDX-License-Identifier: Apache-2.0
// The MSWC data set: which clips each list names, in which order, with which label; the
// padding to one second; both folder layouts; the kind; and every file it refuses, by name.
#include <neurobench/datasets/mswc.hpp>

#include <torch/script.h>
#include <catch2/catch.hpp>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/opus.hpp>

#include "datasets/mswc_release.hpp"
#include "support.hpp"

using neurobench::InputError;
using neurobench::UsageError;
using neurobench::datasets::Mswc;
using neurobench::datasets::MswcOptions;
using neurobench::datasets::MswcProcedure;
using neurobench::datasets::MswcSubset;
using neurobench::test::mswc_clip;
using neurobench::test::TempDir;
using neurobench::test::write_bytes;

namespace fs = std::filesystem;

namespace {

MswcOptions base(MswcProcedure procedure) {
  MswcOptions o;
  o.procedure = procedure;
  o.quiet = true;
  return o;
}

MswcOptions evaluation(const std::string& language) {
  MswcOptions o;
  o.subset = MswcSubset::Evaluation;
  o.language = language;
  o.quiet = true;
  return o;
}

// A release in root/MSWC: base lists over two languages' clips, and fa's evaluation list.
fs::path make_mswc_release(const fs::path& root) {
  const fs::path m = root / "MSWC";
  // Windows line ends, a header line, whitespace Python strips (a tab, U+00A0 at the end).
  std::string train = "LINK,WORD,LANG\r\n";
  train += mswc_clip(m, "en", "surrounding/en_0.opus", "surrounding", 48000, 300) + "\r\n";
  train += "\t" + mswc_clip(m, "fr", "nationale/fr_0.opus", "nationale", 1000, 500) + "\r\n";
  train += mswc_clip(m, "en", "appearance/en_1.opus", "appearance", 24007, 700) + "\xc2\xa0\r\n";
  write_bytes(m / "base_train.csv", train);
  write_bytes(m / "base_val.csv",
              mswc_clip(m, "en", "collection/v.opus", "collection", 960, 350) + "\n");
  write_bytes(m / "base_test.csv",
              "LINK,WORD,LANG\n" +
                  mswc_clip(m, "fr", "aujourd’hui/t.opus", "aujourd’hui", 5000, 450) + "\n");
  fs::create_directories(m / "fa");
  write_bytes(m / "fa" / "evaluation.csv",
              "LINK,WORD,LANG\n" + mswc_clip(m, "fa", "امیدوارم/a.opus", "امیدوارم", 3000, 600) +
                  "\n" + mswc_clip(m, "fa", "بنابراین/b.opus", "بنابراین", 48000, 650) + "\n");
  return m;
}

std::vector<int64_t> labels(const Mswc& d) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < d.size(); ++i) out.push_back(d.label(i));
  return out;
}

}  // namespace

TEST_CASE("mswc_keywords are NeuroBench's 200 FSCIL keywords in its order", "[datasets][mswc]") {
  const auto& words = neurobench::datasets::mswc_keywords();
  REQUIRE(words.size() == 200);
  CHECK(words[0] == "surrounding");
  CHECK(words[20] == "nombreuses");
  CHECK(words[99] == "bitandukanye");
  CHECK(words[100] == "میخواستم");
  CHECK(words[199] == "produzione");
  CHECK(neurobench::datasets::mswc_label("aujourd’hui") == 31);
  CHECK_FALSE(neurobench::datasets::mswc_label("aujourd'hui"));  // an ASCII apostrophe
  CHECK_FALSE(neurobench::datasets::mswc_label("WORD"));
}

TEST_CASE("Mswc lists the clips of each list in order with the keyword's label",
          "[datasets][mswc]") {
  TempDir tmp;
  const fs::path m = make_mswc_release(tmp.path());
  const Mswc train(m, base(MswcProcedure::Training));
  CHECK(train.size() == 3);
  CHECK(labels(train) == std::vector<int64_t>{0, 22, 1});
  CHECK(train.file(1) == m / "fr" / "clips" / "nationale" / "fr_0.opus");
  CHECK(train.listed_path(2) == "appearance/en_1.opus");
  CHECK(train.line(0) == 2);
  CHECK(train.folder() == m);
  CHECK(train.list_file() == m / "base_train.csv");
  CHECK_THAT(train.describe(), Catch::Contains("'base' subset, 'training' procedure") &&
                                   Catch::Contains("(3 clips)"));

  CHECK(labels(Mswc(m, base(MswcProcedure::Validation))) == std::vector<int64_t>{2});
  CHECK(labels(Mswc(m, base(MswcProcedure::Testing))) == std::vector<int64_t>{31});
  const Mswc fa(m, evaluation("fa"));
  CHECK(labels(fa) == std::vector<int64_t>{101, 105});
  CHECK_THAT(fa.describe(), Catch::Contains("language 'fa'"));

  // NeuroBench's root (holding MSWC/) finds the same release.
  const Mswc from_root(tmp.path(), base(MswcProcedure::Training));
  CHECK(from_root.folder() == m);
  CHECK(from_root.source_sha256() == train.source_sha256());
  CHECK(train.source_sha256() != Mswc(m, base(MswcProcedure::Testing)).source_sha256());
}

TEST_CASE("Mswc gives each clip decoded, zero-padded to (48000, 1), with its label",
          "[datasets][mswc]") {
  TempDir tmp;
  const fs::path m = make_mswc_release(tmp.path());
  const Mswc train(m, base(MswcProcedure::Training));
  const neurobench::Batch batch = train.get({2, 0, 1});
  REQUIRE(batch.data.sizes() == torch::IntArrayRef({3, 48000, 1}));
  CHECK(batch.data.scalar_type() == torch::kFloat32);
  CHECK(batch.targets.scalar_type() == torch::kInt64);
  CHECK(torch::equal(batch.targets, torch::tensor({1, 0, 22}, torch::kInt64)));
  const std::vector<std::pair<int64_t, const char*>> clips = {
      {24007, "en/clips/appearance/en_1.opus"},
      {48000, "en/clips/surrounding/en_0.opus"},
      {1000, "fr/clips/nationale/fr_0.opus"}};
  for (std::size_t i = 0; i < clips.size(); ++i) {
    const auto [n, path] = clips[i];
    INFO(path);
    const torch::Tensor decoded = neurobench::load_opus(m / path);
    REQUIRE(decoded.size(0) == n);
    const torch::Tensor sample = batch.data[static_cast<int64_t>(i)];
    CHECK(torch::equal(sample.slice(0, 0, n), decoded));
    CHECK(torch::equal(sample.slice(0, n), torch::zeros({48000 - n, 1})));
    CHECK(torch::equal(sample, neurobench::datasets::load_mswc_clip(m / path)));
  }
  CHECK(train.slice(1, 3).data.size(0) == 2);
  REQUIRE_THROWS_AS(train.get({3}), UsageError);
  REQUIRE_THROWS_WITH(train.get({-1}), Catch::Contains("sample index -1 is out of range (size 3)"));
}

TEST_CASE("the mswc kind opens each subset by its options and refuses wrong ones",
          "[datasets][mswc][kinds]") {
  TempDir tmp;
  make_mswc_release(tmp.path());
  neurobench::DatasetSpec spec = neurobench::parse_dataset_spec("mswc:" + tmp.path().string());
  spec.options = {{"subset", "base"}, {"procedure", "testing"}};
  neurobench::DatasetOpenOptions quiet;
  quiet.quiet = true;
  CHECK(neurobench::dataset_kinds().open(spec, quiet)->size() == 1);
  spec.options = {{"subset", "evaluation"}, {"language", "fa"}};
  CHECK(neurobench::dataset_kinds().open(spec, quiet)->get({1}).targets.item<int64_t>() == 105);

  const auto refused = [&](neurobench::Json options, const std::string& text) {
    spec.options = std::move(options);
    INFO(spec.options.dump());
    REQUIRE_THROWS_AS(neurobench::dataset_kinds().check(spec), UsageError);
    REQUIRE_THROWS_WITH(neurobench::dataset_kinds().check(spec), Catch::Contains(text));
  };
  refused({{"subset", "base"}}, "needs a procedure");
  refused({{"subset", "base"}, {"procedure", "train"}}, "unknown MSWC procedure 'train'");
  refused({{"subset", "evaluation"}}, "needs a language");
  refused({{"subset", "evaluation"}, {"language", "fa"}, {"procedure", "testing"}},
          "a procedure ('testing') is for the 'base' subset");
  refused({{"subset", "base"}, {"procedure", "testing"}, {"language", "fa"}},
          "a language ('fa') is for the 'evaluation' subset");
  refused({{"subset", "evaluation"}, {"language", "../fa"}}, "is not the name of one folder");
  refused({{"subset", "incremental"}}, "unknown MSWC subset 'incremental'");
}

TEST_CASE("a missing folder or list is an InputError saying what was looked for",
          "[datasets][mswc]") {
  TempDir tmp;
  REQUIRE_THROWS_AS(Mswc(tmp / "none", base(MswcProcedure::Testing)), InputError);
  REQUIRE_THROWS_WITH(Mswc(tmp / "none", base(MswcProcedure::Testing)),
                      Catch::Contains("no such MSWC folder") &&
                          Catch::Contains("base_test.csv (the release folder)") &&
                          Catch::Contains("MSWC/base_test.csv (NeuroBench's root)"));
  make_mswc_release(tmp.path());
  REQUIRE_THROWS_WITH(Mswc(tmp.path(), evaluation("eo")),
                      Catch::Contains("no MSWC list eo/evaluation.csv"));
  write_bytes(tmp / "file", "x");
  REQUIRE_THROWS_WITH(Mswc(tmp / "file", base(MswcProcedure::Testing)),
                      Catch::Contains("not a folder"));
}

TEST_CASE("a list naming a clip that is not there is refused at once, naming list and line",
          "[datasets][mswc]") {
  TempDir tmp;
  const fs::path m = make_mswc_release(tmp.path());
  write_bytes(m / "base_val.csv",
              "LINK,WORD,LANG\ncollection/v.opus,collection,en\n"
              "collection/gone.opus,collection,en\n");
  REQUIRE_THROWS_AS(Mswc(m, base(MswcProcedure::Validation)), InputError);
  REQUIRE_THROWS_WITH(Mswc(m, base(MswcProcedure::Validation)),
                      Catch::Contains("base_val.csv line 3 names a clip that is not there") &&
                          Catch::Contains("en/clips/collection/gone.opus: no such MSWC clip"));
  // The clip is looked for in its own line's language.
  write_bytes(m / "base_val.csv", "collection/v.opus,collection,fr\n");
  REQUIRE_THROWS_WITH(Mswc(m, base(MswcProcedure::Validation)),
                      Catch::Contains("fr/clips/collection/v.opus: no such MSWC clip"));
}

TEST_CASE("a list that is not three fields per line, a keyword or UTF-8 is refused by line",
          "[datasets][mswc]") {
  TempDir tmp;
  const fs::path m = make_mswc_release(tmp.path());
  const auto refused = [&](const std::string& csv, const std::string& text) {
    write_bytes(m / "base_val.csv", csv);
    INFO(csv);
    REQUIRE_THROWS_AS(Mswc(m, base(MswcProcedure::Validation)), InputError);
    REQUIRE_THROWS_WITH(Mswc(m, base(MswcProcedure::Validation)),
                        Catch::Contains("base_val.csv line " + text));
  };
  refused("LINK,WORD,LANG\ncollection/v.opus,collection\n", "2: 2 fields");
  refused("collection/v.opus,collection,en,extra\n", "1: 4 fields");
  refused("collection/v.opus,collection,en\n\ncollection/v.opus,collection,en\n",
          "2: 1 field ('')");
  refused("collection/v.opus,colection,en\n",
          "1: 'colection' is not one of NeuroBench's 200 FSCIL keywords");
  refused("collection/v.opus,collection,en\rx/\xff.opus,collection,en\n",
          "2: not UTF-8 text (byte 34)");
  refused("collection/v.opus,Collection,en\n", "1: 'Collection' is not one of");
  const char nul[] = "collection/v\0.opus,collection,en\n";
  refused(std::string(nul, sizeof(nul) - 1), "1: a NUL byte at column 13");
  // A line of a NUL alone is named as such, not as one field shown as '?'.
  refused(std::string("collection/v.opus,collection,en\n\0\n", 34), "2: a NUL byte at column 1");
  // Whitespace inside a field is kept, as Python keeps it: the word is then no keyword.
  refused("collection/v.opus, collection,en\n", "1: ' collection' is not one of");
}

TEST_CASE("list messages quote paths bounded and escaped, and name a list that is a loop",
          "[datasets][mswc][messages]") {
  TempDir tmp;
  const fs::path m = make_mswc_release(tmp.path());
  // A 20 MB clip path: the message quotes an excerpt, not the path.
  write_bytes(m / "base_val.csv", std::string(20U << 20U, 'p') + ".opus,collection,en\n");
  try {
    (void)Mswc(m, base(MswcProcedure::Validation));
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string message = e.what();
    CHECK(message.size() < 2000);
    CHECK_THAT(message, Catch::Contains("base_val.csv line 1 names a clip that is not there") &&
                            Catch::Contains("ppp..."));
  }
  // An escape sequence in a path reaches no terminal raw.
  write_bytes(m / "base_val.csv", "collection/\x1b[2Jv.opus,collection,en\n");
  REQUIRE_THROWS_WITH(Mswc(m, base(MswcProcedure::Validation)),
                      Catch::Contains("collection/\\x1b[2Jv.opus") && !Catch::Contains("\x1b"));
  // A list that is a symbolic link loop is named as one, not as "no MSWC list".
  fs::remove(m / "base_test.csv");
  fs::create_symlink(m / "loop_b.csv", m / "base_test.csv");
  fs::create_symlink(m / "base_test.csv", m / "loop_b.csv");
  REQUIRE_THROWS_WITH(
      Mswc(m, base(MswcProcedure::Testing)),
      Catch::Contains((m / "base_test.csv").string()) && Catch::Contains("symbolic link loop"));
}

TEST_CASE("a clip that is not Opus, not mono or longer than one second fails get(), by name",
          "[datasets][mswc]") {
  TempDir tmp;
  const fs::path m = make_mswc_release(tmp.path());
  std::string csv = mswc_clip(m, "en", "collection/ok.opus", "collection", 960, 300) + "\n";
  csv += mswc_clip(m, "en", "collection/long.opus", "collection", 48001, 300) + "\n";
  neurobench::test::write_opus(m / "en" / "clips" / "collection" / "stereo.opus",
                               std::vector<float>(2000, 0.1F), 2);
  csv += "collection/stereo.opus,collection,en\n";
  write_bytes(m / "en" / "clips" / "collection" / "junk.opus", "OggS not really");
  csv += "collection/junk.opus,collection,en\n";
  write_bytes(m / "base_val.csv", csv);
  const Mswc val(m, base(MswcProcedure::Validation));
  CHECK(val.get({0}).data.size(1) == 48000);
  REQUIRE_THROWS_AS(val.get({1}), InputError);
  REQUIRE_THROWS_WITH(val.get({0, 1}), Catch::Contains("long.opus: more than 48000 samples") &&
                                           Catch::Contains("fails on a longer one too"));
  REQUIRE_THROWS_WITH(val.get({2}), Catch::Contains("stereo.opus: 2 channels; expected 1"));
  REQUIRE_THROWS_WITH(val.get({3}),
                      Catch::Contains("junk.opus: not an Ogg Opus file FFmpeg can read"));
}
