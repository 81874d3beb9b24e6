# SPDX-License-Identifier: Apache-2.0
"""What a run reads from Python and runs in Python, as NeuroBench's Benchmark.run does it.

- `Stream`: an iterable of batches as the C++ side reads it, one batch at a time when the loop
  gets to it, with NeuroBench's tqdm progress bar; after the run, `finish()` asks the iterator
  for one more batch, as Python's `for` loop does, so that a sampler's generator advances as
  under NeuroBench (a seeded, shuffling DataLoader run twice draws the same orders).
- `ManagedMetric`: one of the user's workload metrics as NeuroBench's WorkloadMetricManager
  runs it: a plain metric's values weighted by batch_size / len(dataset) and summed, an
  accumulated one's last value; an exception prints NeuroBench's message and sets 0.0.
"""
import itertools


def batch_size_of(item, where):
    """The first dimension of a batch's data, checked as the C++ side checks it. The data may be
    tensors in lists and tuples (a recurrent network's [x, state]): their first tensor's."""
    if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
        what = type(item).__name__ if not isinstance(item, (tuple, list)) else \
            f"{type(item).__name__} of {len(item)} elements"
        raise ValueError(f"{where} is a {what}; expected (data, targets) or "
                         f"(data, targets, kwargs)")
    data = item[0]
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    if not hasattr(data, "dim") or not hasattr(data, "size"):
        raise ValueError(f"{where}'s data (element 0) is a {type(item[0]).__name__}; expected "
                         f"a torch.Tensor")
    if data.dim() == 0:
        raise ValueError(f"{where}'s data is a 0-d tensor; expected (batch, ...)")
    return int(data.size(0))


def _progress_bar(total, quiet):
    """NeuroBench's tqdm bar over the batches (stderr), or None when tqdm is not installed."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, disable=quiet)


class Stream:
    """An iterable of batches as the C++ side reads it: `iterator`, how many batches it gives
    and the data set length each batch's weight is taken of (NeuroBench's
    len(dataloader.dataset)), and its first batch (an eager network is exported on it)."""

    def __init__(self, data, quiet=False):
        name = type(data).__name__
        self.name = f"Python {name}"
        self.batch_size = getattr(data, "batch_size", None)
        dataset = getattr(data, "dataset", None)
        counted = None
        if dataset is not None:
            try:
                counted = (len(data), len(dataset))
            except TypeError:  # an IterableDataset without a length
                counted = None
        if counted is None:
            # A list or tuple of batches, or any other iterable: read once here (a generator is
            # kept in memory) to count its batches and samples.
            items = data if isinstance(data, (list, tuple)) else list(data)
            sizes = [batch_size_of(b, f"{self.name}: batch {i}") for i, b in enumerate(items)]
            counted = (len(items), sum(sizes))
            rest = iter(items)
        else:
            rest = iter(data)
        self.num_batches, self.dataset_len = counted
        if self.num_batches == 0 or self.dataset_len == 0:
            raise ValueError(f"{self.name}: the data hold no batches")
        self._rest = rest
        self.first = next(rest)
        batch_size_of(self.first, f"{self.name}: batch 0")
        if not isinstance(self.batch_size, int) or self.batch_size < 1:
            self.batch_size = batch_size_of(self.first, self.name)
        self._bar = _progress_bar(self.num_batches, quiet)
        self.iterator = self._batches()

    def _batches(self):
        for item in itertools.chain([self.first], self._rest):
            yield item
            if self._bar is not None:  # the batch is done when the next one is asked for
                self._bar.update(1)

    def finish(self):
        """After the run: one more batch asked for, as a `for` loop ends (StopIteration)."""
        try:
            next(self.iterator)
        except StopIteration:
            return
        finally:
            self.close()
        raise ValueError(f"{self.name}: gave more batches than its len(), {self.num_batches}; "
                         f"the batches after the first {self.num_batches} were not run")

    def close(self):
        if self._bar is not None:
            self._bar.close()


class ManagedMetric:
    """One of the user's workload metric objects as NeuroBench's WorkloadMetricManager runs it
    (the C++ side calls reset, update per batch and compute, as for an accumulated metric)."""

    def __init__(self, obj, accumulated, key, model, dataset_len):
        self.obj, self.accumulated, self.key = obj, accumulated, key
        self.model, self.dataset_len = model, dataset_len
        self.value = 0.0

    def reset(self):
        if self.accumulated:
            self.obj.reset()
        self.value = 0.0

    def update(self, preds, data):
        data = tuple(data) if not isinstance(data, tuple) else data
        batch_size = batch_size_of(data, "the batch")
        try:
            result = self.obj(self.model, preds, data)
            if self.accumulated:
                self.value = result
            else:
                self.value += (result * batch_size) / self.dataset_len
        except Exception as e:  # noqa: BLE001 (NeuroBench's graceful fallback)
            print(f"Error running workload metric '{self.key}': {e}")
            self.value = 0.0

    def compute(self):
        return self.value
