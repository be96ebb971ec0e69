// SPDX-License-Identifier: GPL-2.0
// Encoder argument checking: it refuses what it could not encode faithfully.
#include "clc_test_util.h"

using namespace smc_wire_test;

namespace {

smc_clc_msg Named(const char *name)
{
	for (size_t i = 0; i < smc_clc_sample_count(); i++)
		if (SampleName(i) == name)
			return Sample(i);
	ADD_FAILURE() << "no sample " << name;
	return Sample(0);
}

smc_clc_err Enc(const smc_clc_msg &m)
{
	uint8_t buf[SMC_CLC_MAX_MSG_LEN];
	size_t len;
	return smc_clc_encode(&m, buf, sizeof(buf), &len);
}

} // namespace

TEST(ClcEncode, NullArguments)
{
	size_t len = 1234;
	EXPECT_EQ(smc_clc_encode(nullptr, nullptr, 0, &len), SMC_CLC_ERR_INVAL);
	EXPECT_EQ(smc_clc_encode_proposal(nullptr, nullptr, 0, &len),
		  SMC_CLC_ERR_INVAL);
	EXPECT_EQ(smc_clc_encode_accept_confirm(nullptr, nullptr, 0, &len),
		  SMC_CLC_ERR_INVAL);
	EXPECT_EQ(smc_clc_encode_decline(nullptr, nullptr, 0, &len),
		  SMC_CLC_ERR_INVAL);
	// a big enough capacity with a NULL buffer is still "no space"
	smc_clc_msg m = Named("decl_v1");
	EXPECT_EQ(smc_clc_encode(&m, nullptr, 1000, &len), SMC_CLC_ERR_NOSPACE);
	EXPECT_EQ(len, 28u);
	// out_len is optional
	uint8_t buf[64];
	EXPECT_EQ(smc_clc_encode(&m, buf, sizeof(buf), nullptr), SMC_CLC_OK);
}

TEST(ClcEncode, BadHeaderFields)
{
	smc_clc_msg m = Named("prop_v2_all");
	m.hdr.type = 9;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_MSG_TYPE);
	for (uint8_t v : {0, 3, 15}) {
		m = Named("acc_smcr_v2");
		m.hdr.version = v;
		EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_VERSION);
	}
	m = Named("decl_v1");
	m.hdr.typev2 = 4;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("decl_v1");
	m.hdr.eyecatcher = 2;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("decl_v1");
	m.hdr.trl_eyecatcher = 7;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	// the accept/confirm encoder only does accept and confirm
	m = Named("acc_smcr_v1");
	m.hdr.type = SMC_CLC_DECLINE;
	EXPECT_EQ(smc_clc_encode_accept_confirm(&m.accept_confirm, nullptr, 0,
						nullptr), SMC_CLC_ERR_BAD_MSG_TYPE);
}

TEST(ClcEncode, SmcTypes)
{
	smc_clc_msg m = Named("prop_v1_smcr");
	m.hdr.typev1 = SMC_CLC_TYPE_N;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_SMC_TYPE);
	for (uint8_t t : {SMC_CLC_TYPE_N, SMC_CLC_TYPE_B}) {
		m = Named("acc_smcd_v2");
		m.hdr.typev1 = t;
		EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_SMC_TYPE);
		m = Named("decl_v2");
		m.hdr.typev1 = t;
		EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_SMC_TYPE);
	}
}

TEST(ClcEncode, CountsOverLimits)
{
	smc_clc_msg m = Named("prop_v2_all");
	m.proposal.ipv6_prefix_cnt = SMC_CLC_MAX_V6_PREFIX + 1;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_COUNT);
	m = Named("prop_v2_all");
	m.proposal.eid_cnt = SMC_CLC_MAX_UEID + 1;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_COUNT);
	m = Named("prop_v2_all");
	m.proposal.ism_gid_cnt = SMC_CLC_MAX_ISM_GIDS + 1;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_COUNT);
	m = Named("conf_smcr_v2_fc");
	m.accept_confirm.gid_cnt = SMC_CLC_MAX_GIDS + 1;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_BAD_COUNT);
	// counts of parts that are absent are ignored, not written
	m = Named("prop_v2_smcr_v2only");
	m.proposal.ism_gid_cnt = 200;
	m.proposal.ipv6_prefix_cnt = 200;
	EXPECT_EQ(Enc(m), SMC_CLC_OK);
}

TEST(ClcEncode, FieldsTooWideForTheWire)
{
	smc_clc_msg m = Named("acc_smcr_v1");
	m.accept_confirm.r.qpn = 0x1000000;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("acc_smcr_v1");
	m.accept_confirm.r.psn = 0xffffffff;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("acc_smcr_v1");
	m.accept_confirm.r.rmbe_size = 16;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("acc_smcr_v1");
	m.accept_confirm.r.qp_mtu = 16;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("acc_smcd_v1");
	m.accept_confirm.d.dmbe_size = 16;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("acc_smcd_v2_fc");
	m.accept_confirm.fce.os_type = 16;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("acc_smcd_v2_fc");
	m.accept_confirm.fce.release = 16;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("prop_v2_all");
	m.proposal.release = 16;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	m = Named("decl_v2");
	m.decline.os_type = 16;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
}

TEST(ClcEncode, V1SmcdProposalNeedsSmcdArea)
{
	smc_clc_msg m = Named("prop_v1_smcd");
	m.proposal.v1_smcd_area = false;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
	// in v2 the area is always there; the flag is ignored
	m = Named("prop_v2_all");
	m.proposal.v1_smcd_area = true;
	EXPECT_EQ(Encode(m), Encode(Named("prop_v2_all")));
}

TEST(ClcEncode, SmcrFirstContactNeedsV2x)
{
	// SMC-Rv2 first contact always carries the 16 bytes after the fce
	smc_clc_msg m = Named("acc_smcr_v2_fc");
	m.accept_confirm.fce.has_v2x = false;
	EXPECT_EQ(Enc(m), SMC_CLC_ERR_INVAL);
}

TEST(ClcEncode, LinuxLengths)
{
	// The lengths Linux 6.1 puts on the wire for each variant.
	struct { const char *name; size_t len; } want[] = {
		{"acc_smcr_v1", 68}, {"conf_smcr_v1", 68},
		{"acc_smcd_v1", 48}, {"conf_smcd_v1", 48},
		{"acc_smcd_v2", 78}, {"acc_smcd_v2_fc", 78 + 36},
		{"conf_smcd_v21_fc", 78 + 52},
		{"acc_smcr_v2", 108}, {"conf_smcr_v2", 108},
		{"acc_smcr_v2_fc", 108 + 52}, {"conf_smcr_v2_fc", 108 + 56 + 32},
		{"conf_smcr_v2_fc_nogid", 108 + 56},
		{"decl_v1", 28}, {"decl_v2", 44},
		{"prop_v1_smcr", 52}, {"prop_v1_smcr_area", 92},
		{"prop_v1_smcd", 92}, {"acc_smcd_v21_fc", 78 + 52},
		{"prop_v1_both_ipv6", 92 + 34},
		{"prop_v2_none", 84}, {"prop_v2_max", SMC_CLC_MAX_MSG_LEN},
	};
	for (auto &w : want)
		EXPECT_EQ(Encode(Named(w.name)).size(), w.len) << w.name;
}
