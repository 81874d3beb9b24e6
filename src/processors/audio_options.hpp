// SPDX-License-Identifier: Apache-2.0
#pragma once

// JSON options of the audio pre-processors read into the audio option structs. Private to the
// library. Every function throws UsageError starting with `context` and naming the option.

#include <cstdint>
#include <string>

#include <neurobench/audio/mel.hpp>
#include <neurobench/json.hpp>

namespace neurobench::processors::audio_json {

/// `options[name]` as an integer (the registry has checked it is one); UsageError if it is out
/// of the int64 range.
[[nodiscard]] int64_t integer_option(const Json& options, const std::string& name,
                                     const std::string& context);
/// `options[name]` as a number.
[[nodiscard]] double number_option(const Json& options, const std::string& name,
                                   const std::string& context);

/// torchaudio `MelSpectrogram` keyword arguments (`melkwargs` of MFCC) over the defaults of
/// MelSpectrogramOptions, with the sample rate given: n_fft, win_length, hop_length, f_min,
/// f_max, pad, n_mels, power, normalized, center, pad_mode, onesided, norm, mel_scale. Unknown
/// keys, keys torchaudio takes but neurobench does not (window_fn, wkwargs), sample_rate (given
/// beside melkwargs) and values of the wrong type are UsageErrors naming the key. The result
/// is not validated.
[[nodiscard]] audio::MelSpectrogramOptions mel_options_from_json(const Json& melkwargs,
                                                                 int64_t sample_rate,
                                                                 const std::string& context);

}  // namespace neurobench::processors::audio_json
