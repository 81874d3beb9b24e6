// SPDX-License-Identifier: Apache-2.0
// Ogg Opus files through FFmpeg: libavformat's Ogg demuxer and libavcodec's own Opus decoder,
// the pair torchaudio's FFmpeg path uses, so that the float samples are the same bits.
#include <neurobench/io/opus.hpp>

#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
}

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "io/input_file.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

namespace fs = std::filesystem;

struct FormatCloser {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecCloser {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct PacketFreer {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct FrameFreer {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};

std::string av_message(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  if (av_strerror(code, text, sizeof(text)) != 0) return fmt::format("FFmpeg error {}", code);
  return detail::printable(text, 200);
}

int channel_count(const AVCodecParameters* p) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 24, 100)
  return p->ch_layout.nb_channels;
#else
  return p->channels;
#endif
}

// FFmpeg logs to stderr at its default level (a stray "bytes of comment header remain" for a
// valid file); its errors reach the caller in our messages instead. A host that set a level of
// its own keeps it.
void quiet_ffmpeg_log() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (av_log_get_level() == AV_LOG_INFO) av_log_set_level(AV_LOG_QUIET);
  });
}

struct OpusStream {
  std::unique_ptr<AVFormatContext, FormatCloser> format;
  std::unique_ptr<AVCodecContext, CodecCloser> codec;
  int index = -1;
  int channels = 0;
};

OpusStream open_opus(const fs::path& path, const OpusReadOptions& options) {
  detail::check_regular_input(path, "Ogg Opus file");
  detail::check_openable(path, "Ogg Opus file");  // FFmpeg would say only "Permission denied"
  quiet_ffmpeg_log();
  OpusStream s;
  AVFormatContext* raw = nullptr;
  int rc = avformat_open_input(&raw, path.c_str(), nullptr, nullptr);
  if (rc < 0) {
    throw InputError(
        fmt::format("{}: not an Ogg Opus file FFmpeg can read: {}", path.string(), av_message(rc)));
  }
  s.format.reset(raw);
  rc = avformat_find_stream_info(raw, nullptr);
  if (rc < 0) {
    throw InputError(
        fmt::format("{}: FFmpeg cannot read its streams: {}", path.string(), av_message(rc)));
  }
  s.index = av_find_best_stream(raw, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
  if (s.index < 0) {
    throw InputError(fmt::format("{}: no audio stream (FFmpeg reads it as {}); expected Ogg Opus",
                                 path.string(), raw->iformat->name));
  }
  const AVCodecParameters* par = raw->streams[s.index]->codecpar;
  if (std::strcmp(raw->iformat->name, "ogg") != 0 || par->codec_id != AV_CODEC_ID_OPUS) {
    throw InputError(fmt::format("{}: not Ogg Opus: FFmpeg reads it as {} ({})", path.string(),
                                 raw->iformat->name, avcodec_get_name(par->codec_id)));
  }
  s.channels = channel_count(par);
  if (options.channels != 0 && s.channels != options.channels) {
    throw InputError(fmt::format("{}: {} channels; expected {}{}", path.string(), s.channels,
                                 options.channels, options.channels == 1 ? " (mono)" : ""));
  }
  // avcodec_find_decoder picks FFmpeg's own Opus decoder before libopus, as torchaudio does.
  const AVCodec* decoder = avcodec_find_decoder(par->codec_id);
  if (decoder == nullptr) {
    throw InputError(fmt::format("{}: this FFmpeg has no Opus decoder", path.string()));
  }
  s.codec.reset(avcodec_alloc_context3(decoder));
  if (!s.codec) throw std::bad_alloc();
  rc = avcodec_parameters_to_context(s.codec.get(), par);
  if (rc >= 0) {
    s.codec->pkt_timebase = raw->streams[s.index]->time_base;
    rc = avcodec_open2(s.codec.get(), decoder, nullptr);
  }
  if (rc < 0) {
    throw InputError(
        fmt::format("{}: FFmpeg cannot open its Opus decoder: {}", path.string(), av_message(rc)));
  }
  return s;
}

// Appends a decoded frame's samples to `out`, interleaved (frame by frame, channels last).
void append_frame(const fs::path& path, const AVFrame* frame, int channels,
                  std::vector<float>& out) {
  const auto n = static_cast<std::size_t>(frame->nb_samples);
  const auto c = static_cast<std::size_t>(channels);
  const std::size_t start = out.size();
  out.resize(start + n * c);
  if (frame->format == AV_SAMPLE_FMT_FLTP) {
    for (std::size_t ch = 0; ch < c; ++ch) {
      const auto* plane = reinterpret_cast<const float*>(frame->extended_data[ch]);
      for (std::size_t i = 0; i < n; ++i) out[start + i * c + ch] = plane[i];
    }
  } else if (frame->format == AV_SAMPLE_FMT_FLT) {
    std::memcpy(out.data() + start, frame->extended_data[0], n * c * sizeof(float));
  } else {
    throw InputError(fmt::format(
        "{}: FFmpeg's Opus decoder gave samples as {}; expected 32-bit float", path.string(),
        av_get_sample_fmt_name(static_cast<AVSampleFormat>(frame->format))));
  }
}

}  // namespace

torch::Tensor load_opus(const fs::path& path, const OpusReadOptions& options) {
  options.validate();
  OpusStream s = open_opus(path, options);
  std::unique_ptr<AVPacket, PacketFreer> packet(av_packet_alloc());
  std::unique_ptr<AVFrame, FrameFreer> frame(av_frame_alloc());
  if (!packet || !frame) throw std::bad_alloc();
  std::vector<float> samples;
  const auto channels = static_cast<std::size_t>(s.channels);
  bool flushed = false;
  while (!flushed) {
    int rc = av_read_frame(s.format.get(), packet.get());
    if (rc == AVERROR_EOF) {
      rc = avcodec_send_packet(s.codec.get(), nullptr);  // flush the decoder
      flushed = true;
    } else if (rc < 0) {
      throw InputError(
          fmt::format("{}: cannot read an Ogg page: {}", path.string(), av_message(rc)));
    } else if (packet->stream_index != s.index) {
      av_packet_unref(packet.get());
      continue;
    } else {
      rc = avcodec_send_packet(s.codec.get(), packet.get());
      av_packet_unref(packet.get());
    }
    if (rc < 0 && rc != AVERROR_EOF) {
      throw InputError(
          fmt::format("{}: cannot decode an Opus packet: {}", path.string(), av_message(rc)));
    }
    while ((rc = avcodec_receive_frame(s.codec.get(), frame.get())) >= 0) {
      append_frame(path, frame.get(), s.channels, samples);
      av_frame_unref(frame.get());
      const auto frames = static_cast<int64_t>(samples.size() / channels);
      if (options.max_frames && frames > *options.max_frames) {
        throw InputError(fmt::format("{}: more than {} samples per channel ({:g} s at 48 kHz)",
                                     path.string(), *options.max_frames,
                                     static_cast<double>(*options.max_frames) / kOpusSampleRate));
      }
    }
    if (rc != AVERROR(EAGAIN) && rc != AVERROR_EOF) {
      throw InputError(
          fmt::format("{}: cannot decode an Opus packet: {}", path.string(), av_message(rc)));
    }
  }
  if (samples.empty()) {
    throw InputError(
        fmt::format("{}: no audio: the Opus stream decodes to no sample", path.string()));
  }
  const auto frames = static_cast<int64_t>(samples.size() / channels);
  torch::Tensor out = torch::empty({frames, static_cast<int64_t>(channels)}, torch::kFloat32);
  std::memcpy(out.data_ptr<float>(), samples.data(), samples.size() * sizeof(float));
  return out;
}

}  // namespace neurobench
