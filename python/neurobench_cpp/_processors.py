# SPDX-License-Identifier: Apache-2.0
"""NeuroBench's pre- and post-processors translated for the C++ harness.

`translate_processors(items, stage) -> list[CppProcessor | PythonProcessor]`, stage "pre" or
"post": NeuroBench's processor classes the C++ side implements become `CppProcessor` with their
constructor arguments (read from the object's attributes) mapped onto the C++ options exactly;
whatever cannot be represented exactly, and any other callable, becomes a `PythonProcessor`
that runs in Python at its place in the chain.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Dict

from . import _registry


@dataclass(frozen=True)
class CppProcessor:
    """A processor of the C++ registry (`neurobench list`): its name and options (JSON)."""

    name: str
    options: Dict[str, Any] = field(default_factory=dict)
    describe: str = ""


@dataclass(frozen=True)
class PythonProcessor:
    """A Python callable run in the chain: pre-processors are called with the batch tuple
    `(data, targets)` or `(data, targets, kwargs)` and return one; post-processors with the
    model's output tensor and return a tensor (NeuroBench's ProcessorManager)."""

    fn: Callable
    describe: str = ""


# The stages of a chain; the harness's processors of each come from its registry
# (_registry.processors(stage)).
_STAGES = ("pre", "post")


def _is_class(obj, modules, name):
    """Whether obj's own class (not a subclass: its __call__ could differ) is NeuroBench's
    class `name` from one of `modules`. NeuroBench is never imported here."""
    cls = type(obj)
    return cls.__name__ == name and cls.__module__ in modules


def _is_function(obj, modules, name):
    return (getattr(obj, "__name__", None) == name and getattr(obj, "__module__", None) in modules
            and type(obj).__name__ == "function")


def _plain(value):
    """A Python number/bool/str/None as JSON takes it, or raise ValueError."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    raise ValueError(f"{type(value).__name__} {value!r}")


def _hann_window_of(window, length):
    """Whether `window` (a transform's buffer) is torch's periodic Hann window of `length`."""
    import torch
    if not isinstance(window, torch.Tensor) or window.dim() != 1 or window.numel() != length:
        return False
    expected = torch.hann_window(length, dtype=window.dtype)
    return bool(torch.equal(window.detach().cpu(), expected))


class _NotExact(Exception):
    """A processor's settings the C++ one cannot reproduce exactly: it runs in Python."""


def _need(condition, why):
    if not condition:
        raise _NotExact(why)


def _mel_spectrogram_options(mel):
    """The settings of a torchaudio (0.13) MelSpectrogram module as the C++ melkwargs name
    them, read from the module itself (what actually runs)."""
    spec = getattr(mel, "spectrogram", None)
    scale = getattr(mel, "mel_scale", None)
    _need(spec is not None and scale is not None, "its MelSpectrogram has no spectrogram/mel_scale")
    _need(getattr(spec, "power", None) is not None, "power=None (complex spectrogram)")
    _need(_hann_window_of(getattr(spec, "window", None), spec.win_length),
          "its window is not the periodic Hann window")
    try:
        return {
            "sample_rate": _plain(mel.sample_rate),
            "n_fft": _plain(spec.n_fft),
            "win_length": _plain(spec.win_length),
            "hop_length": _plain(spec.hop_length),
            "pad": _plain(spec.pad),
            "power": float(_plain(spec.power)),
            "normalized": _plain(spec.normalized),
            "center": _plain(spec.center),
            "pad_mode": _plain(spec.pad_mode),
            "onesided": _plain(spec.onesided),
            "n_mels": _plain(scale.n_mels),
            "f_min": float(_plain(scale.f_min)),
            # MelScale holds f_max resolved (sample_rate // 2 when None was given)
            "f_max": float(_plain(scale.f_max)),
            "norm": _plain(scale.norm),
            "mel_scale": _plain(scale.mel_scale),
        }
    except (AttributeError, ValueError, TypeError) as e:
        raise _NotExact(f"its MelSpectrogram's settings cannot be read: {e}") from e


def _s2s_options(obj):
    """NeuroBench's S2SPreProcessor (2.x and 1.x): the C++ S2SPreProcessor's options."""
    _need(getattr(obj, "transpose", None) is True,
          "transpose=False (the C++ one takes (batch, samples, 1) as transpose=True does)")
    _need(getattr(obj, "log_offset", None) == 1e-6, "log_offset is not 1e-6")
    mel = _mel_spectrogram_options(getattr(obj, "transform", None))
    spec_kwargs = getattr(obj, "spec_kwargs", {})
    _need(isinstance(spec_kwargs, dict) and spec_kwargs.get("hop_length") == mel["hop_length"],
          "spec_kwargs['hop_length'] differs from its transform's")
    defaults = {"win_length": mel["n_fft"], "pad": 0, "power": 2.0, "normalized": False,
                "center": True, "pad_mode": "reflect", "onesided": True, "norm": None,
                "mel_scale": "htk"}
    for key, value in defaults.items():
        _need(mel[key] == value and type(mel[key]) is type(value),
              f"its MelSpectrogram has {key}={mel[key]!r} (the C++ one: {value!r})")
    threshold = getattr(obj, "threshold", None)
    _need(isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
          and threshold > 0 and threshold != float("inf"), f"threshold {threshold!r}")
    return {"threshold": float(threshold), "sample_rate": mel["sample_rate"],
            "n_fft": mel["n_fft"], "hop_length": mel["hop_length"], "n_mels": mel["n_mels"],
            "f_min": mel["f_min"], "f_max": mel["f_max"]}


def _mfcc_options(obj):
    """NeuroBench's MFCCPreProcessor (2.x and 1.x): the C++ MFCCPreProcessor's options, read
    from the torchaudio MFCC it runs."""
    mfcc = getattr(obj, "mfcc", None)
    _need(mfcc is not None, "it has no torchaudio MFCC transform ('mfcc')")
    _need(getattr(mfcc, "dct_type", None) == 2, "dct_type is not 2")
    _need(getattr(mfcc, "top_db", None) == 80.0, "top_db is not 80")
    _need(getattr(mfcc, "norm", None) in ("ortho", None), "norm is neither 'ortho' nor None")
    mel = _mel_spectrogram_options(getattr(mfcc, "MelSpectrogram", None))
    _need(mel["sample_rate"] == mfcc.sample_rate, "its MelSpectrogram's sample rate differs")
    del mel["sample_rate"]
    return {"sample_rate": _plain(mfcc.sample_rate), "n_mfcc": _plain(mfcc.n_mfcc),
            "dct_type": 2, "norm": mfcc.norm, "log_mels": bool(mfcc.log_mels), "melkwargs": mel}


_S2S_MODULES = ("neurobench.processors.preprocessors.speech2spikes",
                "neurobench.preprocessing.speech2spikes")
_MFCC_MODULES = ("neurobench.processors.preprocessors.mfcc", "neurobench.preprocessing.mfcc")
_POST_MODULES_2X = {"ChooseMaxCount": ("neurobench.processors.postprocessors.choose_max_count",),
                    "Aggregate": ("neurobench.processors.postprocessors.aggregate",)}
_POST_FUNCTIONS_1X = {"choose_max_count": "ChooseMaxCount", "aggregate": "Aggregate"}
_POST_MODULE_1X = ("neurobench.postprocessing.postprocessor",)


def _label(item):
    name = getattr(item, "__qualname__", None) or type(item).__qualname__
    module = getattr(item, "__module__", None) or type(item).__module__
    return f"{module}.{name}" if module and module != "builtins" else name


def _translate_one(item, stage, position):
    where = f"{stage}-processor #{position}"
    if isinstance(item, CppProcessor):
        if item.name not in _registry.processors(stage):
            raise ValueError(f"{where}: {item!r} names no {stage}-processor of neurobench-cpp; "
                             f"known: {', '.join(_registry.processors(stage))}")
        return CppProcessor(item.name, dict(item.options), item.describe or item.name)
    if isinstance(item, str):
        # neurobench-cpp's own processors by name (NeuroBench itself takes no names)
        for name in _registry.processors(stage):
            if name.lower() == item.lower():
                return CppProcessor(name, {}, f"'{item}'")
        raise ValueError(f"{where}: unknown {stage}-processor name '{item}'; known: "
                         f"{', '.join(_registry.processors(stage))}")
    if stage == "pre":
        for modules, name, read in ((_S2S_MODULES, "S2SPreProcessor", _s2s_options),
                                    (_MFCC_MODULES, "MFCCPreProcessor", _mfcc_options)):
            if _is_class(item, modules, name):
                try:
                    return CppProcessor(name, read(item), f"NeuroBench's {name}")
                except _NotExact as e:
                    return PythonProcessor(item, f"NeuroBench's {name} (runs in Python: {e})")
    else:
        for name, modules in _POST_MODULES_2X.items():
            if _is_class(item, modules, name):
                return CppProcessor(name, {}, f"NeuroBench's {name}")
        for function, name in _POST_FUNCTIONS_1X.items():
            if _is_function(item, _POST_MODULE_1X, function):
                return CppProcessor(name, {}, f"NeuroBench 1.x's {function}")
    if callable(item):
        return PythonProcessor(item, _label(item))
    raise TypeError(f"{where}: {type(item).__name__} {item!r:.100} is neither callable nor a "
                    f"processor of neurobench-cpp: all {stage}processors must be instances of "
                    f"NeuroBench{'Pre' if stage == 'pre' else 'Post'}Processor or callable "
                    f"functions (or neurobench-cpp's processors by name: "
                    f"{', '.join(_registry.processors(stage))})")


def translate_processors(items, stage):
    """NeuroBench's list of pre- (stage "pre") or post-processors (stage "post") -> a list of
    CppProcessor and PythonProcessor in the same order; None -> []."""
    if stage not in _STAGES:
        raise ValueError(f"stage must be 'pre' or 'post', got {stage!r}")
    if items is None:
        return []
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{stage}processors must be a list, got {type(items).__name__} "
                        f"{items!r:.100}")
    return [_translate_one(item, stage, i) for i, item in enumerate(items)]
