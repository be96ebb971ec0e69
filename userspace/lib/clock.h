// SPDX-License-Identifier: GPL-2.0
//
// Milliseconds of the monotonic clock: deadlines and durations that wall
// clock changes cannot disturb.
#pragma once

#include <ctime>

namespace smc {

inline long monotonic_ms()
{
	timespec ts{};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

} // namespace smc
