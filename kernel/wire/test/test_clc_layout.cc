// SPDX-License-Identifier: GPL-2.0
// The on-wire layouts, pinned to the numbers of RFC 7609, the IBM SMC v2
// architecture and Linux 6.1 net/smc/smc_clc.{h,c}. Everything here is checked
// at compile time; the single runtime test only makes the suite visible.
#include <cstddef>

#include <gtest/gtest.h>

#include "smc_clc.h"
#include "smc_clc_layout.h"

#define SZ(t) sizeof(struct t)
#define OFF(t, m) offsetof(struct t, m)

// header: eyecatcher 0..3, type 4, length 5..6, version/flags 7
static_assert(SZ(smc_clc_wire_hdr) == 8);
static_assert(OFF(smc_clc_wire_hdr, type) == 4);
static_assert(OFF(smc_clc_wire_hdr, length) == 5);
static_assert(OFF(smc_clc_wire_hdr, flags) == 7);
static_assert(SZ(smc_clc_wire_trl) == 4);

// proposal: peer id 8, GID 16, MAC 22... iparea offset at 38
static_assert(OFF(smc_clc_wire_proposal, lcl.peer_id) == 8);
static_assert(OFF(smc_clc_wire_proposal, lcl.gid) == 16);
static_assert(OFF(smc_clc_wire_proposal, lcl.mac) == 32);
static_assert(OFF(smc_clc_wire_proposal, iparea_offset) == 38);
static_assert(SZ(smc_clc_wire_proposal) == 40);
static_assert(SZ(smc_clc_wire_proposal_smcd) == 40);  // smc_clc_msg_smcd
static_assert(OFF(smc_clc_wire_proposal_smcd, ism_chid) == 8);
static_assert(OFF(smc_clc_wire_proposal_smcd, v2_ext_offset) == 10);
static_assert(SZ(smc_clc_wire_proposal_prefix) == 8);
static_assert(OFF(smc_clc_wire_proposal_prefix, ipv6_prefix_cnt) == 7);
static_assert(SZ(smc_clc_wire_ipv6_prefix) == 17);     // packed, RFC 7609
static_assert(SZ(smc_clc_wire_v2_ext) == 40);          // smc_clc_v2_extension
static_assert(OFF(smc_clc_wire_v2_ext, flag) == 3);
static_assert(OFF(smc_clc_wire_v2_ext, smcd_v2_ext_offset) == 6);
static_assert(OFF(smc_clc_wire_v2_ext, roce_gid) == 8);
static_assert(OFF(smc_clc_wire_v2_ext, max_conns) == 24);
static_assert(SZ(smc_clc_wire_smcd_v2_ext) == 48);
static_assert(SZ(smc_clc_wire_gid_chid) == 10);        // __packed in Linux

// accept / confirm
static_assert(SZ(smc_clc_wire_smcr) == 56);
static_assert(SZ(smc_clc_wire_accept_smcr_v1) == 68);  // SMCR_CLC_ACCEPT_CONFIRM_LEN
static_assert(OFF(smc_clc_wire_accept_smcr_v1, r.qpn) == 38);
static_assert(OFF(smc_clc_wire_accept_smcr_v1, r.rmb_rkey) == 41);
static_assert(OFF(smc_clc_wire_accept_smcr_v1, r.rmbe_idx) == 45);
static_assert(OFF(smc_clc_wire_accept_smcr_v1, r.rmbe_alert_token) == 46);
static_assert(OFF(smc_clc_wire_accept_smcr_v1, r.size_mtu) == 50);
static_assert(OFF(smc_clc_wire_accept_smcr_v1, r.rmb_dma_addr) == 52);
static_assert(OFF(smc_clc_wire_accept_smcr_v1, r.psn) == 61);
static_assert(OFF(smc_clc_wire_accept_smcr_v1, trl) == 64);
static_assert(SZ(smc_clc_wire_smcd) == 24);
static_assert(SZ(smc_clc_wire_accept_smcd_v1) == 48);  // SMCD_CLC_ACCEPT_CONFIRM_LEN
static_assert(OFF(smc_clc_wire_accept_smcd_v1, d.token) == 16);
static_assert(OFF(smc_clc_wire_accept_smcd_v1, d.linkid) == 28);
static_assert(SZ(smc_clc_wire_accept_smcr_v2) == 104); // 108 - trailer
static_assert(OFF(smc_clc_wire_accept_smcr_v2, eid) == 64);
static_assert(SZ(smc_clc_wire_accept_smcd_v2) == 74);  // 78 - trailer
static_assert(OFF(smc_clc_wire_accept_smcd_v2, chid) == 32);
static_assert(OFF(smc_clc_wire_accept_smcd_v2, eid) == 34);
static_assert(OFF(smc_clc_wire_accept_smcd_v2, gid_ext) == 66);  // Linux 6.9
static_assert(SZ(smc_clc_wire_fce) == 36);             // smc_clc_first_contact_ext
static_assert(OFF(smc_clc_wire_fce, hostname) == 4);
static_assert(SZ(smc_clc_wire_fce_v2x) == 16);
static_assert(SZ(smc_clc_wire_fce_gid_list) == 4);

// decline
static_assert(SZ(smc_clc_wire_decline) == 28);
static_assert(OFF(smc_clc_wire_decline, peer_id) == 8);
static_assert(OFF(smc_clc_wire_decline, diagnosis) == 16);
static_assert(OFF(smc_clc_wire_decline, os_type) == 20);
static_assert(SZ(smc_clc_wire_decline_v2) == 44);
static_assert(OFF(smc_clc_wire_decline_v2, diagnosis_v2) == 24);

// the public length constants agree with the layouts
static_assert(SMC_CLC_ACC_CONF_LEN_SMCR_V1 == SZ(smc_clc_wire_accept_smcr_v1));
static_assert(SMC_CLC_ACC_CONF_LEN_SMCD_V1 == SZ(smc_clc_wire_accept_smcd_v1));
static_assert(SMC_CLC_ACC_CONF_LEN_SMCR_V2 == SZ(smc_clc_wire_accept_smcr_v2) + 4);
static_assert(SMC_CLC_ACC_CONF_LEN_SMCD_V2 == SZ(smc_clc_wire_accept_smcd_v2) + 4);
static_assert(SMC_CLC_FCE_LEN == SZ(smc_clc_wire_fce));
static_assert(SMC_CLC_FCE_V2X_LEN == SZ(smc_clc_wire_fce_v2x));
static_assert(SMC_CLC_DECLINE_LEN_V1 == SZ(smc_clc_wire_decline));
static_assert(SMC_CLC_DECLINE_LEN_V2 == SZ(smc_clc_wire_decline_v2));
static_assert(SMC_CLC_MAX_MSG_LEN == 652);

// the wire structs are pure byte arrays: alignment 1 everywhere
static_assert(alignof(struct smc_clc_wire_decline_v2) == 1);
static_assert(alignof(struct smc_clc_wire_accept_smcr_v2) == 1);
static_assert(alignof(struct smc_clc_wire_v2_ext) == 1);

TEST(ClcLayout, EyecatchersAreEbcdic)
{
	// "SMCR" / "SMCD" in EBCDIC: S=E2 M=D4 C=C3 R=D9 D=C4
	const uint8_t r[4] = {0xe2, 0xd4, 0xc3, 0xd9};
	const uint8_t d[4] = {0xe2, 0xd4, 0xc3, 0xc4};
	EXPECT_EQ(0, memcmp(smc_clc_eyecatcher_smcr, r, 4));
	EXPECT_EQ(0, memcmp(smc_clc_eyecatcher_smcd, d, 4));
}
