// SPDX-License-Identifier: Apache-2.0
#include "processors/audio_options.hpp"

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

#include "util/text.hpp"

namespace neurobench::processors::audio_json {

namespace {

using neurobench::detail::json_excerpt;

[[noreturn]] void bad_type(const std::string& context, const std::string& key, const char* expected,
                           const Json& value) {
  throw UsageError(
      fmt::format("{}: {} must be {}, got {}", context, key, expected, json_excerpt(value)));
}

int64_t to_integer(const Json& value, const std::string& key, const std::string& context) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<uint64_t>() > INT64_MAX) {
      bad_type(context, key, "an integer within int64", value);
    }
    return value.get<int64_t>();
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    // 2^63 is the first double outside int64.
    if (std::isfinite(d) && std::nearbyint(d) == d && d >= -9.2233720368547758e18 &&
        d < 9.2233720368547758e18) {
      return static_cast<int64_t>(d);
    }
  }
  bad_type(context, key, "an integer", value);
}

double to_number(const Json& value, const std::string& key, const std::string& context) {
  if (!value.is_number()) bad_type(context, key, "a number", value);
  return value.get<double>();
}

bool to_boolean(const Json& value, const std::string& key, const std::string& context) {
  if (!value.is_boolean()) bad_type(context, key, "true or false", value);
  return value.get<bool>();
}

std::string to_string(const Json& value, const std::string& key, const std::string& context,
                      const char* expected) {
  if (!value.is_string()) bad_type(context, key, expected, value);
  return value.get<std::string>();
}

}  // namespace

int64_t integer_option(const Json& options, const std::string& name, const std::string& context) {
  return to_integer(options.at(name), name, context);
}

double number_option(const Json& options, const std::string& name, const std::string& context) {
  return to_number(options.at(name), name, context);
}

audio::MelSpectrogramOptions mel_options_from_json(const Json& melkwargs, int64_t sample_rate,
                                                   const std::string& context) {
  audio::MelSpectrogramOptions o;
  o.mel.sample_rate = sample_rate;
  if (melkwargs.is_null()) return o;
  if (!melkwargs.is_object()) bad_type(context, "melkwargs", "an object", melkwargs);
  for (const auto& [key, value] : melkwargs.items()) {
    const std::string name = "melkwargs." + key;
    if (key == "n_fft") {
      o.spectrogram.n_fft = to_integer(value, name, context);
    } else if (key == "win_length") {
      o.spectrogram.win_length =
          value.is_null() ? std::nullopt : std::optional(to_integer(value, name, context));
    } else if (key == "hop_length") {
      o.spectrogram.hop_length =
          value.is_null() ? std::nullopt : std::optional(to_integer(value, name, context));
    } else if (key == "pad") {
      o.spectrogram.pad = to_integer(value, name, context);
    } else if (key == "power") {
      o.spectrogram.power = to_number(value, name, context);
    } else if (key == "normalized") {
      if (value.is_boolean()) {
        o.spectrogram.normalized =
            value.get<bool>() ? audio::SpectrogramNorm::Window : audio::SpectrogramNorm::None;
      } else if (value == "window") {
        o.spectrogram.normalized = audio::SpectrogramNorm::Window;
      } else if (value == "frame_length") {
        o.spectrogram.normalized = audio::SpectrogramNorm::FrameLength;
      } else {
        bad_type(context, name, "true, false, \"window\" or \"frame_length\"", value);
      }
    } else if (key == "center") {
      o.spectrogram.center = to_boolean(value, name, context);
    } else if (key == "pad_mode") {
      const char* expected = "\"reflect\", \"constant\", \"replicate\" or \"circular\"";
      const std::string mode = to_string(value, name, context, expected);
      if (mode == "reflect") {
        o.spectrogram.pad_mode = audio::PadMode::Reflect;
      } else if (mode == "constant") {
        o.spectrogram.pad_mode = audio::PadMode::Constant;
      } else if (mode == "replicate") {
        o.spectrogram.pad_mode = audio::PadMode::Replicate;
      } else if (mode == "circular") {
        o.spectrogram.pad_mode = audio::PadMode::Circular;
      } else {
        bad_type(context, name, expected, value);
      }
    } else if (key == "onesided") {
      o.spectrogram.onesided = to_boolean(value, name, context);
    } else if (key == "n_mels") {
      o.mel.n_mels = to_integer(value, name, context);
    } else if (key == "f_min") {
      o.mel.f_min = to_number(value, name, context);
    } else if (key == "f_max") {
      o.mel.f_max = value.is_null() ? std::nullopt : std::optional(to_number(value, name, context));
    } else if (key == "norm") {
      if (value.is_null()) {
        o.mel.norm = audio::MelNorm::None;
      } else if (value == "slaney") {
        o.mel.norm = audio::MelNorm::Slaney;
      } else {
        bad_type(context, name, "null or \"slaney\"", value);
      }
    } else if (key == "mel_scale") {
      if (value == "htk") {
        o.mel.mel_scale = audio::MelScale::Htk;
      } else if (value == "slaney") {
        o.mel.mel_scale = audio::MelScale::Slaney;
      } else {
        bad_type(context, name, "\"htk\" or \"slaney\"", value);
      }
    } else if (key == "sample_rate") {
      throw UsageError(
          fmt::format("{}: melkwargs.sample_rate is not accepted (torchaudio refuses it too): give "
                      "sample_rate as the pre-processor's own option",
                      context));
    } else if (key == "window_fn" || key == "wkwargs") {
      throw UsageError(fmt::format(
          "{}: melkwargs.{} is not supported: the window is always the periodic Hann window",
          context, key));
    } else {
      throw UsageError(fmt::format(
          "{}: melkwargs has no key '{}' (known: n_fft, win_length, hop_length, f_min, f_max, "
          "pad, n_mels, power, normalized, center, pad_mode, onesided, norm, mel_scale)",
          context, neurobench::detail::printable(key, 60)));
    }
  }
  return o;
}

}  // namespace neurobench::processors::audio_json
