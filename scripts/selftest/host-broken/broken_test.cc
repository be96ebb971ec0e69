// SPDX-License-Identifier: GPL-2.0
//
// One GoogleTest case for each way a host test can go wrong, and one that
// passes (so the self-test sees that passes are still reported as such).
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

TEST(HostBroken, Passes)
{
	EXPECT_EQ(1 + 1, 2);
}

TEST(HostBroken, Fails)
{
	EXPECT_EQ(1 + 1, 3) << "a deliberate failure";
}

TEST(HostBroken, Aborts)
{
	std::abort();
}

TEST(HostBroken, Segfaults)
{
	std::raise(SIGSEGV);
}

TEST(HostBroken, HangsPastItsTimeout)
{
	std::this_thread::sleep_for(std::chrono::seconds(60));
}

TEST(HostBroken, SkipsItself)
{
	GTEST_SKIP() << "no frobnicator on this host";
}

// A parameterised name: ctest lists it with a "  # GetParam() = 7" tail,
// which must not end up in a TAP result name (it would be a directive).
class HostBrokenParam : public testing::TestWithParam<int> {};

TEST_P(HostBrokenParam, PassesWithAParameter)
{
	EXPECT_EQ(GetParam(), 7);
}

INSTANTIATE_TEST_SUITE_P(Seven, HostBrokenParam, testing::Values(7));
