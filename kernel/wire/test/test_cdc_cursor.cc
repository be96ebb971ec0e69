// SPDX-License-Identifier: GPL-2.0
// Cursor arithmetic on the ring buffers (RMBE/DMBE, send buffer) and the
// sequence number order of SMC-R CDC messages.
#include <random>

#include <gtest/gtest.h>

#include "smc_cdc.h"

namespace {

smc_cdc_cursor C(uint16_t wrap, uint32_t count)
{
	return smc_cdc_cursor{wrap, count};
}

uint32_t Diff(uint32_t size, smc_cdc_cursor o, smc_cdc_cursor n)
{
	return smc_cdc_cursor_diff(size, &o, &n);
}

smc_cdc_cursor Add(uint32_t size, smc_cdc_cursor c, uint32_t bytes)
{
	smc_cdc_cursor_add(size, &c, bytes);
	return c;
}

} // namespace

TEST(CdcCursor, DiffSameWrap)
{
	EXPECT_EQ(Diff(65536, C(3, 100), C(3, 100)), 0u);
	EXPECT_EQ(Diff(65536, C(3, 100), C(3, 1100)), 1000u);
	EXPECT_EQ(Diff(65536, C(3, 0), C(3, 65535)), 65535u);
	// new behind old within the same wrap: nothing new
	EXPECT_EQ(Diff(65536, C(3, 1100), C(3, 100)), 0u);
}

TEST(CdcCursor, DiffAcrossOneWrap)
{
	EXPECT_EQ(Diff(65536, C(3, 65000), C(4, 500)), 1036u);
	EXPECT_EQ(Diff(65536, C(3, 65535), C(4, 0)), 1u);
	EXPECT_EQ(Diff(65536, C(3, 0), C(4, 0)), 65536u);	// a full ring
	// the 16-bit wrap counter itself wraps
	EXPECT_EQ(Diff(16384, C(0xffff, 16000), C(0, 100)), 484u);
}

TEST(CdcCursor, DiffNeverExceedsSize)
{
	// a peer's cursor cannot claim more than one ring of new data
	EXPECT_EQ(Diff(65536, C(3, 100), C(4, 200)), 65536u);
	EXPECT_EQ(Diff(65536, C(3, 100), C(4, 0xffffffff)), 65536u);
	EXPECT_EQ(Diff(65536, C(3, 0xffffffff), C(3, 0xfffffffe)), 0u);
	EXPECT_EQ(Diff(65536, C(3, 100), C(3, 0xffffffff)), 65436u);
	EXPECT_EQ(Diff(0xffffffff, C(0, 0xfffffffe), C(1, 0xfffffffe)),
		  0xffffffffu);
	// two wraps ahead or any wrap behind: not a forward move
	EXPECT_EQ(Diff(65536, C(3, 100), C(5, 50)), 0u);
	EXPECT_EQ(Diff(65536, C(3, 100), C(2, 500)), 0u);
	EXPECT_EQ(Diff(0, C(3, 100), C(4, 50)), 0u);

	std::mt19937 rng(1);
	for (int i = 0; i < 100000; i++) {
		uint32_t size = rng() % 2 ? 1u << (rng() % 32) : uint32_t(rng());
		smc_cdc_cursor o = C(uint16_t(rng() % 3), uint32_t(rng()));
		smc_cdc_cursor n = C(uint16_t(rng() % 3), uint32_t(rng()));
		ASSERT_LE(Diff(size, o, n), size);
	}
}

TEST(CdcCursor, AddWithinAndAcrossWrap)
{
	smc_cdc_cursor c = Add(65536, C(7, 100), 1000);
	EXPECT_EQ(c.wrap, 7);
	EXPECT_EQ(c.count, 1100u);
	c = Add(65536, C(7, 65000), 536);
	EXPECT_EQ(c.wrap, 8);
	EXPECT_EQ(c.count, 0u);
	c = Add(65536, C(7, 65000), 1000);
	EXPECT_EQ(c.wrap, 8);
	EXPECT_EQ(c.count, 464u);
	c = Add(65536, C(0xffff, 65535), 1);
	EXPECT_EQ(c.wrap, 0);
	EXPECT_EQ(c.count, 0u);
	// several rings at once
	c = Add(1000, C(1, 999), 2501);
	EXPECT_EQ(c.wrap, 4);
	EXPECT_EQ(c.count, 500u);
	// huge ring: no 32-bit overflow of count + bytes
	c = Add(0xfffffff0, C(0, 0xffffff00), 0x200);
	EXPECT_EQ(c.wrap, 1);
	EXPECT_EQ(c.count, 0x110u);
	// a count out of range is reduced first; size 0 changes nothing
	c = Add(1000, C(2, 2500), 0);
	EXPECT_EQ(c.wrap, 2);
	EXPECT_EQ(c.count, 500u);
	c = Add(0, C(2, 2500), 10);
	EXPECT_EQ(c.wrap, 2);
	EXPECT_EQ(c.count, 2500u);
}

TEST(CdcCursor, AddThenDiffGivesBytes)
{
	std::mt19937 rng(2);
	for (int i = 0; i < 100000; i++) {
		uint32_t size = 1 + rng() % (1u << (1 + rng() % 31));
		smc_cdc_cursor o = C(uint16_t(rng()), uint32_t(rng() % size));
		uint32_t bytes = uint32_t(uint64_t(rng()) % (uint64_t(size) + 1));
		smc_cdc_cursor n = Add(size, o, bytes);
		ASSERT_LT(n.count, size);
		ASSERT_EQ(Diff(size, o, n), bytes)
			<< "size " << size << " count " << o.count << " +" << bytes;
	}
}

TEST(CdcSeqno, BeforeWrapsAround)
{
	EXPECT_TRUE(smc_cdc_seqno_before(1, 2));
	EXPECT_FALSE(smc_cdc_seqno_before(2, 1));
	EXPECT_FALSE(smc_cdc_seqno_before(5, 5));
	EXPECT_TRUE(smc_cdc_seqno_before(0xffff, 0));
	EXPECT_FALSE(smc_cdc_seqno_before(0, 0xffff));
	EXPECT_TRUE(smc_cdc_seqno_before(0xfff0, 0x0010));
	// half the space apart: "before" as Linux's (s16)(a - b) < 0 says
	EXPECT_TRUE(smc_cdc_seqno_before(0, 0x7fff));
	EXPECT_FALSE(smc_cdc_seqno_before(0x7fff, 0));
	EXPECT_TRUE(smc_cdc_seqno_before(0, 0x8000));
	EXPECT_FALSE(smc_cdc_seqno_before(0, 0x8001));
}
