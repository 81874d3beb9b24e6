// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <neurobench/events/events.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::events {

/// tonic's `Denoise(filter_time)` (`tonic.functional.denoise_numpy`): keeps an event when one of
/// its four neighbouring pixels (left, right, above, below) had an event less than
/// `filter_time` earlier, and drops it otherwise. Event for event as tonic:
///
/// - a memory of `width x height` timestamps, `width` and `height` one more than the largest
///   `x` and `y` among the events, every entry starting at `filter_time`;
/// - for each event in order, its own pixel's entry becomes `t + filter_time` first, then the
///   event is kept when a neighbour inside that memory holds a value greater than `t`.
///
/// So a neighbour that never fired counts as firing at time 0: events earlier than
/// `filter_time` pass when they have a neighbour inside the memory, as in tonic. An empty input
/// gives an empty output (tonic fails on it). The order of the events kept is theirs.
///
/// Throws UsageError when `filter_time` is not positive and finite, InputError when an event
/// has a negative `x` or `y` or the columns differ in length.
[[nodiscard]] Events denoise(const Events& events, double filter_time);

}  // namespace neurobench::events
NEUROBENCH_API_END
