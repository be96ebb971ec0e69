// SPDX-License-Identifier: GPL-2.0
// Round trips of every sample message: struct -> bytes -> struct -> bytes.
#include <set>
#include <tuple>

#include "clc_test_util.h"

using namespace smc_wire_test;

class ClcRoundTrip : public testing::TestWithParam<size_t> {};

TEST_P(ClcRoundTrip, DecodeGivesTheEncodedStruct)
{
	smc_clc_msg in = Sample(GetParam());
	Bytes wire = Encode(in);
	ASSERT_GE(wire.size(), 28u);
	in.hdr.length = uint16_t(wire.size());	// the encoder's part

	smc_clc_msg out;
	ASSERT_EQ(Decode(wire, &out), SMC_CLC_OK);
	EXPECT_TRUE(SameMsg(in, out));
	EXPECT_EQ(out.hdr.length, wire.size());
	EXPECT_EQ(GetBe16(wire, 5), wire.size());
}

TEST_P(ClcRoundTrip, ReencodeIsByteIdentical)
{
	Bytes wire = Encode(Sample(GetParam()));
	smc_clc_msg out;
	ASSERT_EQ(Decode(wire, &out), SMC_CLC_OK);
	EXPECT_EQ(Encode(out), wire);
}

TEST_P(ClcRoundTrip, TypedDecoderAgreesWithGeneric)
{
	smc_clc_msg in = Sample(GetParam());
	Bytes wire = Encode(in);
	smc_clc_msg generic, typed;
	ASSERT_EQ(Decode(wire, &generic), SMC_CLC_OK);
	std::memset(&typed, 0, sizeof(typed));
	switch (in.hdr.type) {
	case SMC_CLC_PROPOSAL:
		ASSERT_EQ(smc_clc_decode_proposal(wire.data(), wire.size(),
						  &typed.proposal), SMC_CLC_OK);
		break;
	case SMC_CLC_ACCEPT:
	case SMC_CLC_CONFIRM:
		ASSERT_EQ(smc_clc_decode_accept_confirm(wire.data(), wire.size(),
							&typed.accept_confirm),
			  SMC_CLC_OK);
		break;
	case SMC_CLC_DECLINE:
		ASSERT_EQ(smc_clc_decode_decline(wire.data(), wire.size(),
						 &typed.decline), SMC_CLC_OK);
		break;
	default:
		FAIL() << "unknown sample type";
	}
	EXPECT_TRUE(SameMsg(generic, typed));
}

TEST_P(ClcRoundTrip, HeaderPeekGivesTypeAndLength)
{
	smc_clc_msg in = Sample(GetParam());
	Bytes wire = Encode(in);
	smc_clc_hdr hdr;
	// the 8 header bytes alone are enough for a stream reader
	ASSERT_EQ(smc_clc_decode_hdr(wire.data(), 8, &hdr), SMC_CLC_OK);
	EXPECT_EQ(hdr.type, in.hdr.type);
	EXPECT_EQ(hdr.version, in.hdr.version);
	EXPECT_EQ(hdr.typev1, in.hdr.typev1);
	EXPECT_EQ(hdr.typev2, in.hdr.typev2);
	EXPECT_EQ(hdr.length, wire.size());
	EXPECT_EQ(hdr.eyecatcher, in.hdr.eyecatcher);
}

TEST_P(ClcRoundTrip, EncoderWritesNothingPastTheMessage)
{
	smc_clc_msg in = Sample(GetParam());
	Bytes buf(SMC_CLC_MAX_MSG_LEN + 64, 0xa5);
	size_t len = 0;
	ASSERT_EQ(smc_clc_encode(&in, buf.data(), buf.size(), &len), SMC_CLC_OK);
	for (size_t i = len; i < buf.size(); i++)
		ASSERT_EQ(buf[i], 0xa5) << "byte " << i;
	// and an exact-size buffer is enough, one byte less is not
	Bytes exact(len);
	EXPECT_EQ(smc_clc_encode(&in, exact.data(), len, &len), SMC_CLC_OK);
	Bytes small(len - 1, 0x5a);
	size_t need = 0;
	EXPECT_EQ(smc_clc_encode(&in, small.data(), small.size(), &need),
		  SMC_CLC_ERR_NOSPACE);
	EXPECT_EQ(need, len);
	EXPECT_EQ(small, Bytes(len - 1, 0x5a)) << "NOSPACE must not write";
}

INSTANTIATE_TEST_SUITE_P(AllSamples, ClcRoundTrip,
			 testing::ValuesIn(AllSamples()), SampleNamer());

// The sample set really has every variant the wire format has.
TEST(ClcSamples, CoverEveryVariant)
{
	std::set<std::tuple<int, int, int, int>> seen;  // type, version, typev1, fc
	std::set<std::pair<int, int>> prop;              // v2 proposal typev1, typev2
	for (size_t i = 0; i < smc_clc_sample_count(); i++) {
		smc_clc_msg m = Sample(i);
		Bytes w = Encode(m);
		ASSERT_EQ(Decode(w, &m), SMC_CLC_OK) << SampleName(i);
		int fc = (m.hdr.typev2 & SMC_CLC_FIRST_CONTACT) ? 1 : 0;
		if (m.hdr.type == SMC_CLC_PROPOSAL) {
			fc = 0;
			if (m.hdr.version == 2)
				prop.insert({m.hdr.typev1, m.hdr.typev2});
		}
		seen.insert({m.hdr.type, m.hdr.version, m.hdr.typev1, fc});
	}
	// proposals: v1 R, D, B; v2 with each part present/absent
	for (int t : {0, 1, 3})
		EXPECT_TRUE(seen.count({1, 1, t, 0})) << "v1 proposal type " << t;
	for (auto tt : {std::pair{3, 3}, {2, 1}, {2, 0}, {0, 2}, {0, 0}, {2, 2}})
		EXPECT_TRUE(prop.count(tt)) << tt.first << "/" << tt.second;
	// accept and confirm: v1 and v2, SMC-R and SMC-D, v2 with first contact
	for (int type : {2, 3})
		for (int v : {1, 2})
			for (int t : {0, 1})
				EXPECT_TRUE(seen.count({type, v, t, v == 1 && type == 2}) ||
					    seen.count({type, v, t, 0}))
					<< type << " v" << v << " t" << t;
	for (int type : {2, 3})
		for (int t : {0, 1})
			EXPECT_TRUE(seen.count({type, 2, t, 1}))
				<< "first contact " << type << " t" << t;
	EXPECT_TRUE(seen.count({4, 1, 0, 0}));
	EXPECT_TRUE(seen.count({4, 2, 0, 0}));
	EXPECT_TRUE(seen.count({4, 2, 1, 1}));  // out of sync
}
