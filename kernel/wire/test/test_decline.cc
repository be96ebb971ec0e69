// SPDX-License-Identifier: GPL-2.0
// Decline / fallback reason codes and their texts.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "smc_clc.h"
#include "smc_decline.h"

TEST(Decline, LinuxValues)
{
	// spot checks of the numbers Linux 6.1 puts on the wire
	EXPECT_EQ(SMC_CLC_DECL_MEM, 0x01010000u);
	EXPECT_EQ(SMC_CLC_DECL_HSLIMIT, 0x01020000u);  // af_smc's own
	EXPECT_EQ(SMC_CLC_DECL_PEERNOSMC, 0x03010000u);
	EXPECT_EQ(SMC_CLC_DECL_IPSEC, 0x03020000u);
	EXPECT_EQ(SMC_CLC_DECL_NOSMCDEV, 0x03030000u);
	EXPECT_EQ(SMC_CLC_DECL_NOUEID, 0x03030008u);
	EXPECT_EQ(SMC_CLC_DECL_NOINDIRECT, 0x030f0000u);
	EXPECT_EQ(SMC_CLC_DECL_POLICY, 0x03800000u);  // af_smc's own
	EXPECT_EQ(SMC_CLC_DECL_SYNCERR, 0x04000000u);
	EXPECT_EQ(SMC_CLC_DECL_PEERDECL, 0x05000000u);
	EXPECT_EQ(SMC_CLC_DECL_INTERR, 0x09990000u);
	EXPECT_EQ(SMC_CLC_DECL_ERR_REGBUF, 0x09990003u);
}

TEST(Decline, TableIsSortedUniqueAndComplete)
{
	size_t n = 0;
	const smc_clc_decline_info *t = smc_clc_decline_table(&n);
	ASSERT_NE(t, nullptr);
	size_t linux61 = 0;
	std::set<std::string> names;
	for (size_t i = 0; i < n; i++) {
		if (i) {
			EXPECT_LT(t[i - 1].code, t[i].code) << t[i].name;
		}
		EXPECT_TRUE(names.insert(t[i].name).second) << t[i].name;
		EXPECT_GT(std::string(t[i].text).size(), 5u);
		EXPECT_EQ(smc_clc_decline_lookup(t[i].code), &t[i]);
		EXPECT_STREQ(smc_clc_decline_text(t[i].code), t[i].text);
		linux61 += t[i].linux61;
	}
	EXPECT_EQ(linux61, 33u);  // every SMC_CLC_DECL_* of Linux 6.1
	EXPECT_EQ(n, 38u);        // plus the three SMC v2.1 codes, af_smc's HSLIMIT and POLICY
}

TEST(Decline, UnknownCodesNameTheirClass)
{
	EXPECT_EQ(smc_clc_decline_lookup(0x03030099), nullptr);
	EXPECT_STREQ(smc_clc_decline_text(0x03030099),
		     "unrecognized configuration error");
	EXPECT_STREQ(smc_clc_decline_text(0x09990042),
		     "unrecognized internal error");
	EXPECT_STREQ(smc_clc_decline_text(0x01000001),
		     "unrecognized resource shortage");
	EXPECT_STREQ(smc_clc_decline_text(0x02000000), "unrecognized timeout");
	EXPECT_STREQ(smc_clc_decline_text(0x04000001),
		     "unrecognized synchronization error");
	EXPECT_STREQ(smc_clc_decline_text(0x05010000),
		     "unrecognized peer decline");
	EXPECT_STREQ(smc_clc_decline_text(0), "unknown decline code");
	EXPECT_STREQ(smc_clc_decline_text(0xffffffff), "unknown decline code");
	EXPECT_EQ(SMC_CLC_DECL_CLASS(SMC_CLC_DECL_NOSMCRDEV), 3u);
}

TEST(Decline, ErrTextForEveryError)
{
	std::set<std::string> seen;
	for (int e = SMC_CLC_OK; e < SMC_CLC_ERR__MAX; e++) {
		std::string s = smc_clc_err_text(smc_clc_err(e));
		EXPECT_NE(s, "unknown error") << e;
		EXPECT_TRUE(seen.insert(s).second) << s;
	}
	EXPECT_STREQ(smc_clc_err_text(smc_clc_err(999)), "unknown error");
}
