#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/): small valid inputs of
every layout each reader accepts, so that mutation starts from the interesting paths.

    /usr/bin/python3 tests/fuzz/make_corpus.py

Needs Debian's python3-numpy. Deterministic: re-running it gives the same files.
"""
import io
import json
import pathlib
import shutil
import struct
import zipfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"


def fresh(name):
    folder = CORPUS / name
    # Keep crash reproducers added by hand (named crash-*), rewrite the seeds.
    folder.mkdir(parents=True, exist_ok=True)
    for f in folder.iterdir():
        if not f.name.startswith("crash-"):
            f.unlink()
    return folder


def npy_bytes(array, version=None):
    out = io.BytesIO()
    if version is None:
        np.save(out, array, allow_pickle=False)
    else:
        np.lib.format.write_array(out, array, version=version, allow_pickle=False)
    return out.getvalue()


def npy_seeds():
    rng = np.random.default_rng(7)
    seeds = {
        "f4_2x3": rng.standard_normal((2, 3)).astype("<f4"),
        "f8_4": rng.standard_normal(4),
        "f2_3": np.array([1.5, -2.0, np.inf], dtype="<f2"),
        "f4_big_endian": rng.standard_normal((3, 2)).astype(">f4"),
        "f4_fortran": np.asfortranarray(rng.standard_normal((3, 4)).astype("<f4")),
        "i1": np.array([-128, 0, 127], dtype="i1"),
        "i2": np.array([[1, -2], [3, -4]], dtype="<i2"),
        "i4": np.arange(6, dtype="<i4").reshape(2, 3),
        "i8_big_endian": np.arange(3, dtype=">i8"),
        "u1_image": (np.arange(16, dtype="u1") * 16).reshape(1, 4, 4),
        "bool": np.array([True, False, True]),
        "scalar": np.array(3.25, dtype="<f4"),
        "empty": np.zeros((0, 3), dtype="<f4"),
        "nan": np.array([np.nan, 1.0], dtype="<f4"),
    }
    folder = fresh("npy")
    for name, array in seeds.items():
        (folder / f"{name}.npy").write_bytes(npy_bytes(array))
    (folder / "version2.npy").write_bytes(npy_bytes(seeds["f4_2x3"], version=(2, 0)))
    (folder / "version3.npy").write_bytes(npy_bytes(seeds["i4"], version=(3, 0)))
    return seeds


def npz_seeds(arrays):
    folder = fresh("npz")

    def archive(name, entries, compression):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=compression) as z:
            for entry, array in entries.items():
                info = zipfile.ZipInfo(entry + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = compression
                z.writestr(info, npy_bytes(array))
        (folder / name).write_bytes(out.getvalue())

    data = {"data": arrays["f4_2x3"], "targets": np.array([0, 1], dtype="<i8")}
    archive("stored.npz", data, zipfile.ZIP_STORED)
    archive("deflated.npz", data, zipfile.ZIP_DEFLATED)
    archive("mixed_dtypes.npz", {k: arrays[k] for k in ("i1", "bool", "f8_4", "u1_image")},
            zipfile.ZIP_DEFLATED)
    archive("one_array.npz", {"x": arrays["scalar"]}, zipfile.ZIP_STORED)
    archive("empty_array.npz", {"data": arrays["empty"]}, zipfile.ZIP_STORED)
    archive("no_arrays.npz", {}, zipfile.ZIP_STORED)


def idx_bytes(code, array):
    header = struct.pack(">BBBB", 0, 0, code, array.ndim)
    header += b"".join(struct.pack(">I", d) for d in array.shape)
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def idx_seeds():
    folder = fresh("idx")
    (folder / "images_u8.idx").write_bytes(idx_bytes(0x08, (np.arange(18) % 256).astype("u1").reshape(2, 3, 3)))
    (folder / "labels_u8.idx").write_bytes(idx_bytes(0x08, np.array([3, 1, 4], dtype="u1")))
    (folder / "i8.idx").write_bytes(idx_bytes(0x09, np.array([-1, 2], dtype="i1")))
    (folder / "i16.idx").write_bytes(idx_bytes(0x0B, np.array([[-300, 2]], dtype="i2")))
    (folder / "i32.idx").write_bytes(idx_bytes(0x0C, np.arange(4, dtype="i4").reshape(2, 2)))
    (folder / "f32.idx").write_bytes(idx_bytes(0x0D, np.array([0.5, -1.25], dtype="f4")))
    (folder / "f64.idx").write_bytes(idx_bytes(0x0E, np.array([[1e-3]], dtype="f8")))
    (folder / "empty.idx").write_bytes(idx_bytes(0x08, np.zeros((0, 2), dtype="u1")))


def wav_bytes(samples=b"", channels=1, rate=16000, bits=16, tag=1, extensible=False,
              declared=None, extra_chunks=b""):
    """A RIFF WAVE file: a fmt chunk (WAVE_FORMAT_EXTENSIBLE when asked), chunks, then data."""
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", 0xFFFE if extensible else tag, channels, rate, rate * block,
                      block, bits)
    if extensible:
        guid = struct.pack("<H", tag) + bytes.fromhex("000000001000800000aa00389b71")
        fmt += struct.pack("<HHI", 22, bits, 0) + guid
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + extra_chunks
    body += b"data" + struct.pack("<I", len(samples) if declared is None else declared) + samples
    if len(samples) % 2:
        body += b"\0"
    return b"RIFF" + struct.pack("<I", len(body)) + body


def wav_seeds():
    folder = fresh("wav")
    pcm16 = np.array([0, 1, -1, 32767, -32768, 1000, -1000, 7], dtype="<i2").tobytes()
    (folder / "pcm16_mono.wav").write_bytes(wav_bytes(pcm16))
    (folder / "pcm16_stereo_8k.wav").write_bytes(wav_bytes(pcm16, channels=2, rate=8000))
    (folder / "pcm16_second.wav").write_bytes(
        wav_bytes((np.arange(16001) * 37 % 65536 - 32768).astype("<i2").tobytes()))
    (folder / "pcm16_empty.wav").write_bytes(wav_bytes(b""))
    (folder / "pcm16_list_chunk.wav").write_bytes(
        wav_bytes(pcm16, extra_chunks=b"LIST" + struct.pack("<I", 4) + b"INFO"))
    (folder / "pcm16_extensible.wav").write_bytes(wav_bytes(pcm16, extensible=True))
    (folder / "pcm8.wav").write_bytes(wav_bytes(bytes([0, 128, 255, 1]), bits=8))
    (folder / "float32.wav").write_bytes(
        wav_bytes(np.array([0.5, -0.25], dtype="<f4").tobytes(), bits=32, tag=3,
                  extra_chunks=b"fact" + struct.pack("<II", 4, 2)))
    (folder / "pcm24.wav").write_bytes(wav_bytes(bytes(range(12)), bits=24))
    (folder / "truncated_data.wav").write_bytes(wav_bytes(pcm16[:6], declared=200))
    (folder / "odd_data.wav").write_bytes(wav_bytes(pcm16[:5]))
    (folder / "header_only.wav").write_bytes(wav_bytes(pcm16)[:30])


def config_seeds():
    folder = fresh("config")
    for example in sorted((ROOT / "examples").glob("*/*.json")):
        shutil.copy(example, folder / f"example_{example.parent.name}_{example.name}")
    configs = {
        "minimal": {"model": "m.pt", "data": "d.npz", "metrics": ["Accuracy"]},
        "families": {"model": "m.pt", "data": "d.npz", "batch_size": 4,
                     "static": ["Footprint", "ConnectionSparsity"],
                     "workload": ["ActivationSparsity", "SynapticOperations"]},
        "options": {"model": "m.pt", "data": "d.npz",
                    "metrics": [{"name": "Latency", "options": {"percentiles": [50, 99]}}],
                    "warmup": 2, "runs": 3, "min_time": 0.5, "threads": 1},
        "everything": {"_comment": "every key", "model": "m.pt", "data": "d.npz",
                       "batch_size": 8, "metrics": ["Accuracy"], "pre": [], "post": [],
                       "stepwise": True, "activation_modules": ["ReLU"],
                       "connection_modules": ["Linear"], "shuffle_seed": 5,
                       "latency_batch_size": 1, "startup_runs": 2, "quiet": True,
                       "verbose": False, "json": "r.json", "csv": "r.csv", "text": "r.txt"},
    }
    configs["dataset"] = {"model": "m.pt", "batch_size": 4, "metrics": ["Accuracy"],
                          "dataset": {"kind": "speech-commands", "path": "gsc",
                                      "subset": "testing", "long_clips": "truncate"},
                          "pre": ["Flatten", {"name": "S2SPreProcessor",
                                              "options": {"threshold": 1}}],
                          "post": [{"name": "Argmax", "options": {}}]}
    configs["dataset_string"] = {"model": "m.pt", "dataset": "speech-commands:data/gsc",
                                 "metrics": ["Accuracy"]}
    for name, config in configs.items():
        (folder / f"{name}.json").write_text(json.dumps(config, indent=2) + "\n")
    (folder / "comments.json").write_text(
        '// a comment\n{"model": "m.pt", /* inline */ "data": "d.npz", "metrics": ["MSE"]}\n')


def results_seeds():
    folder = fresh("results")
    shutil.copy(ROOT / "tests/golden/results.json", folder / "golden.json")
    for fixture in sorted((ROOT / "tests/fixtures/report").glob("*.json")):
        shutil.copy(fixture, folder / fixture.name)
    (folder / "wrapped.json").write_text(json.dumps(
        {"results": {"Accuracy": 0.5, "Footprint": 1024, "ActivationSparsity": None}}) + "\n")
    (folder / "object_values.json").write_text(json.dumps(
        {"SynapticOperations": {"Effective_MACs": 10.0, "Effective_ACs": 0.0, "Dense": 20.0},
         "Latency": {"mean": 0.1, "p50": 0.09, "p99": 0.2}}) + "\n")


def aedat_seeds():
    """AEDAT 3.1: a header and packets of polarity events (valid and not, overflow 0 and 1), a
    packet of another type, no packets at all."""
    folder = fresh("aedat")
    header = b"#!AER-DAT3.1\r\n#Format: RAW\r\n#!END-HEADER\r\n"

    def packet(kind, size, overflow, events):
        body = b"".join(events)
        n = len(body) // size
        return struct.pack("<hhiiiiii", kind, 1, size, 4, overflow, n, n, n) + body

    def polarity(x, y, p, t, valid=1):
        return struct.pack("<Ii", (x << 17) | (y << 2) | (p << 1) | valid, t)

    (folder / "header_only.aedat").write_bytes(header)
    (folder / "two_packets.aedat").write_bytes(
        header + packet(1, 8, 0, [polarity(1, 2, 1, 10), polarity(127, 0, 0, 11, valid=0)]) +
        packet(1, 8, 1, [polarity(5, 6, 0, 3)]))
    (folder / "special_packet.aedat").write_bytes(
        header + packet(0, 8, 0, [struct.pack("<Ii", 3, 7)]) +
        packet(1, 8, 0, [polarity(0, 0, 1, 9)]))
    (folder / "no_end_header.aedat").write_bytes(
        b"#!AER-DAT3.1\r\n" + packet(1, 8, 0, [polarity(3, 3, 1, 1)]))


def npy_fields_seeds():
    """Structured arrays: tonic's events, padding, big-endian, 2-d, unsigned fields."""
    folder = fresh("npy_fields")
    events = np.zeros(3, dtype=[("x", "<i2"), ("y", "<i2"), ("p", "?"), ("t", "<i8")])
    events["x"], events["t"] = [1, 2, 3], [10, 20, 30]
    seeds = {
        "events": events,
        "aligned": np.zeros(2, dtype=np.dtype([("a", "u1"), ("b", "<i4")], align=True)),
        "big_endian": np.zeros((2, 2), dtype=[("s", ">i2"), ("d", ">f8")]),
        "unsigned": np.zeros(2, dtype=[("u16", "<u2"), ("u32", "<u4")]),
        "empty": np.zeros(0, dtype=[("x", "<f4")]),
    }
    for name, array in seeds.items():
        (folder / f"{name}.npy").write_bytes(npy_bytes(array))


if __name__ == "__main__":
    arrays = npy_seeds()
    npz_seeds(arrays)
    idx_seeds()
    wav_seeds()
    config_seeds()
    results_seeds()
    aedat_seeds()
    npy_fields_seeds()
    for target in sorted(CORPUS.iterdir()):
        print(f"{target.name}: {len(list(target.iterdir()))} seeds")
