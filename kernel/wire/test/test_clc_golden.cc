// SPDX-License-Identifier: GPL-2.0
// Golden byte images. Every expected byte is placed at a literal offset taken
// from the layout facts (RFC 7609 figures, Linux 6.1 smc_clc.h structs), not
// computed from this project's layout header, so an error in the layout
// header cannot hide here.
#include <initializer_list>

#include "clc_test_util.h"
#include "smc_decline.h"

using namespace smc_wire_test;

namespace {

const uint8_t SMCR[4] = {0xe2, 0xd4, 0xc3, 0xd9};
const uint8_t SMCD[4] = {0xe2, 0xd4, 0xc3, 0xc4};

struct Img {
	Bytes b;
	explicit Img(size_t n) : b(n, 0) {}
	Img &at(size_t off, std::initializer_list<uint8_t> v)
	{
		for (uint8_t x : v)
			b.at(off++) = x;
		return *this;
	}
	Img &at(size_t off, const uint8_t *p, size_t n)
	{
		for (size_t i = 0; i < n; i++)
			b.at(off + i) = p[i];
		return *this;
	}
	Img &text(size_t off, size_t n, const char *s)
	{
		for (size_t i = 0; i < n; i++)
			b.at(off + i) = *s ? uint8_t(*s++) : ' ';
		return *this;
	}
};

size_t Find(const char *name)
{
	for (size_t i = 0; i < smc_clc_sample_count(); i++)
		if (SampleName(i) == name)
			return i;
	ADD_FAILURE() << "no sample " << name;
	return 0;
}

void ExpectGolden(const smc_clc_msg &m, const Bytes &golden)
{
	Bytes wire = Encode(m);
	ASSERT_EQ(wire.size(), golden.size());
	for (size_t i = 0; i < wire.size(); i++)
		EXPECT_EQ(wire[i], golden[i]) << "byte offset " << i;
	smc_clc_msg back;
	ASSERT_EQ(Decode(golden, &back), SMC_CLC_OK);
	smc_clc_msg want = m;
	want.hdr.length = uint16_t(golden.size());
	EXPECT_TRUE(SameMsg(back, want));
}

} // namespace

TEST(ClcGolden, DeclineV1)
{
	// RFC 7609 decline: hdr 8, peer ID 8, diagnosis 4, reserved 4, trailer 4
	const Bytes golden = {
		0xe2, 0xd4, 0xc3, 0xd9, 0x04, 0x00, 0x1c, 0x10,
		0x31, 0x38, 0x3f, 0x46, 0x4d, 0x54, 0x5b, 0x62,
		0x03, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
		0xe2, 0xd4, 0xc3, 0xd9,
	};
	ExpectGolden(Sample(Find("decl_v1")), golden);
}

TEST(ClcGolden, DeclineV2OutOfSync)
{
	// Linux 6.1 smc_clc_msg_decline_v2: os_type in the high nibble of byte
	// 20, four more diagnosis words at 24, trailer at 40; length 44.
	Img g(44);
	g.at(0, SMCD, 4).at(4, {0x04, 0x00, 0x2c, 0x29})  // v2, out of sync, D
		.at(16, {0x04, 0x00, 0x00, 0x00})            // SYNCERR
		.at(20, {0x10})                              // z/OS
		.at(24, {0x03, 0x03, 0x00, 0x07})
		.at(28, {0x03, 0x03, 0x00, 0x08})
		.at(36, {0x09, 0x99, 0x00, 0x00})
		.at(40, SMCD, 4);
	ExpectGolden(Sample(Find("decl_v2_sync")), g.b);
}

TEST(ClcGolden, AcceptSmcrV1FirstContact)
{
	// RFC 7609 accept: QP number at 38 (Wireshark's ACCEPT_CONFIRM_QP_OFFSET),
	// RMB size in the high nibble of byte 50, QP MTU in the low nibble.
	const Bytes golden = {
		0xe2, 0xd4, 0xc3, 0xd9, 0x02, 0x00, 0x44, 0x18,
		0x21, 0x28, 0x2f, 0x36, 0x3d, 0x44, 0x4b, 0x52,	/* peer id */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
		0xc0, 0xa8, 0x0a, 0x02,				/* gid */
		0x62, 0x69, 0x70, 0x77, 0x7e, 0x85,		/* mac */
		0x00, 0xab, 0xcd,				/* qpn @38 */
		0x12, 0x34, 0xab, 0xcd,				/* rkey @41 */
		0x01,						/* rmbe idx @45 */
		0x00, 0x00, 0x00, 0x07,				/* token @46 */
		0x33, 0x00,					/* size|mtu @50 */
		0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xb0, 0x00,	/* dma @52 */
		0x00, 0x65, 0x43, 0x21,				/* psn @61 */
		0xe2, 0xd4, 0xc3, 0xd9,
	};
	ASSERT_EQ(golden.size(), 68u);
	ExpectGolden(Sample(Find("acc_smcr_v1")), golden);
	// af_smc's rings-grow bit: the low bit of the byte after size|mtu,
	// which RFC 7609 and Linux reserve (and send as 0).
	smc_clc_msg m = Sample(Find("acc_smcr_v1"));
	m.accept_confirm.r.grows = true;
	Bytes grows = golden;
	grows[51] = 0x01;
	ExpectGolden(m, grows);
	Bytes other = golden;
	other[51] = 0xfe;		/* the other bits: still reserved */
	smc_clc_msg back;
	ASSERT_EQ(Decode(other, &back), SMC_CLC_OK);
	EXPECT_FALSE(back.accept_confirm.r.grows);
}

TEST(ClcGolden, ConfirmSmcdV2FirstContact)
{
	// SMCD_CLC_ACCEPT_CONFIRM_LEN_V2 78 + first contact extension 36 = 114.
	Img g(114);
	g.at(0, SMCD, 4).at(4, {0x03, 0x00, 0x72, 0x29})   // v2, FC, SMC-D
		.at(8, {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01})  // gid
		.at(16, {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}) // token
		.at(24, {0x00, 0x20})                          // idx, size 2 << 4
		.at(28, {0x00, 0x01, 0x02, 0x03})              // link id
		.at(32, {0x03, 0x01})                          // chid
		.text(34, 32, "IBM-SYSZ-ISMSEID00000000")      // eid, 8 reserved
		.at(74, {0x00, 0x20})                          // fce: Linux, rel 0
		.text(78, 32, "smc-host-a")                    // hostname
		.at(110, SMCD, 4);
	ExpectGolden(Sample(Find("conf_smcd_v2_fc")), g.b);
}

// SMCv2.1's emulated devices (CHID 0xFF00..0xFFFF): the GID's second half
// in the 8 bytes after the EID, which v2.0 reserved (Linux 6.9: gid_ext).
TEST(ClcGolden, AcceptSmcdV2EmulatedGidExt)
{
	smc_clc_msg m = Sample(Find("acc_smcd_v2"));
	m.accept_confirm.d.chid = 0xffff;
	m.accept_confirm.d.gid_ext = 0x8899aabbccddeeffULL;
	Img g(78);
	g.at(0, SMCD, 4).at(4, {0x02, 0x00, 0x4e, 0x21})   // v2, SMC-D, 78
		.at(8, {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01})  // gid
		.at(16, {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}) // token
		.at(24, {0x00, 0x20})                          // idx, size 2 << 4
		.at(28, {0x00, 0x01, 0x02, 0x03})              // link id
		.at(32, {0xff, 0xff})                          // chid
		.text(34, 32, "IBM-SYSZ-ISMSEID00000000")      // eid
		.at(66, {0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}) // gid_ext
		.at(74, SMCD, 4);
	ExpectGolden(m, g.b);
	EXPECT_TRUE(smc_clc_chid_emulated(0xff00));
	EXPECT_TRUE(smc_clc_chid_emulated(0xffff));
	EXPECT_FALSE(smc_clc_chid_emulated(0xfeff));
	EXPECT_FALSE(smc_clc_chid_emulated(0x0301));
}

// The SMC-Dv2 GID list: an emulated device takes two entries with the same
// CHID, its GID's halves in order; a device that does not fit is left out.
TEST(ClcGolden, IsmGidListEmulatedTakesTwoEntries)
{
	smc_clc_proposal p;
	std::memset(&p, 0, sizeof(p));
	smc_clc_ism_gid lo = {0x1111111111111111ULL, 0x2222222222222222ULL, 0xffff};
	smc_clc_ism_gid hw = {0x3333333333333333ULL, 0, 0x0301};
	ASSERT_TRUE(smc_clc_ism_add(&p, &hw));
	ASSERT_TRUE(smc_clc_ism_add(&p, &lo));
	ASSERT_EQ(p.ism_gid_cnt, 3);
	EXPECT_EQ(p.ism_dev[1].gid, lo.gid);
	EXPECT_EQ(p.ism_dev[1].chid, 0xffff);
	EXPECT_EQ(p.ism_dev[2].gid, lo.gid_ext);
	EXPECT_EQ(p.ism_dev[2].chid, 0xffff);
	for (int i = 0; i < 4; i++)		// 7 entries
		ASSERT_TRUE(smc_clc_ism_add(&p, &hw));
	EXPECT_FALSE(smc_clc_ism_add(&p, &lo));	// one entry left: no room
	EXPECT_EQ(p.ism_gid_cnt, 7);
	EXPECT_TRUE(smc_clc_ism_add(&p, &hw));
	EXPECT_FALSE(smc_clc_ism_add(&p, &hw));
	EXPECT_EQ(p.ism_gid_cnt, 8);

	unsigned int pos = 0, n = 0;
	smc_clc_ism_gid d;
	while (smc_clc_ism_next(&p, &pos, &d)) {
		if (n == 1) {
			EXPECT_EQ(d.gid, lo.gid);
			EXPECT_EQ(d.gid_ext, lo.gid_ext);
			EXPECT_EQ(d.chid, 0xffff);
		} else {
			EXPECT_EQ(d.gid, hw.gid);
			EXPECT_EQ(d.gid_ext, 0u);
		}
		n++;
	}
	EXPECT_EQ(n, 7u);
	EXPECT_EQ(pos, 8u);

	// The encoding, entries of 10 bytes at the SMC-Dv2 extension's end.
	smc_clc_msg m;
	std::memset(&m, 0, sizeof(m));
	m.proposal.hdr.type = SMC_CLC_PROPOSAL;
	m.proposal.hdr.version = 2;
	m.proposal.hdr.typev1 = SMC_CLC_TYPE_N;
	m.proposal.hdr.typev2 = SMC_CLC_TYPE_D;
	ASSERT_TRUE(smc_clc_ism_add(&m.proposal, &lo));
	Bytes w = Encode(m);
	// head, SMC-D area, v2 extension (no UEID), SMC-Dv2 extension, list
	ASSERT_EQ(w.size(), 40u + 40 + 40 + 48 + 20 + 4);
	size_t list = 40 + 40 + 40 + 48;
	for (size_t i = 0; i < 8; i++) {
		EXPECT_EQ(w[list + i], 0x11) << i;
		EXPECT_EQ(w[list + 10 + i], 0x22) << i;
	}
	EXPECT_EQ(GetBe16(w, list + 8), 0xffff);
	EXPECT_EQ(GetBe16(w, list + 18), 0xffff);
}

// A peer's list as found: an emulated CHID whose next entry does not repeat
// it names no device and is skipped alone (Linux 6.9's reading); a
// non-emulated entry after it still counts.
TEST(ClcGolden, IsmGidListUnpairedEmulatedIsSkipped)
{
	smc_clc_proposal p;
	std::memset(&p, 0, sizeof(p));
	p.ism_gid_cnt = 4;
	p.ism_dev[0] = {0xaaaa, 0xff01};	// unpaired: next CHID differs
	p.ism_dev[1] = {0xbbbb, 0x0301};
	p.ism_dev[2] = {0xcccc, 0xffff};	// paired with 3
	p.ism_dev[3] = {0xdddd, 0xffff};
	unsigned int pos = 0;
	smc_clc_ism_gid d;
	ASSERT_TRUE(smc_clc_ism_next(&p, &pos, &d));
	EXPECT_EQ(d.gid, 0xbbbbu);
	EXPECT_EQ(d.chid, 0x0301);
	ASSERT_TRUE(smc_clc_ism_next(&p, &pos, &d));
	EXPECT_EQ(d.gid, 0xccccu);
	EXPECT_EQ(d.gid_ext, 0xddddu);
	EXPECT_FALSE(smc_clc_ism_next(&p, &pos, &d));

	p.ism_gid_cnt = 3;			// the last one's pair cut off
	pos = 0;
	ASSERT_TRUE(smc_clc_ism_next(&p, &pos, &d));
	EXPECT_FALSE(smc_clc_ism_next(&p, &pos, &d));
	p.ism_gid_cnt = 200;			// a count past the array: bounded
	pos = 0;
	while (smc_clc_ism_next(&p, &pos, &d))
		;
	EXPECT_EQ(pos, unsigned(SMC_CLC_MAX_ISM_GIDS));
}

TEST(ClcGolden, ConfirmSmcrV2FirstContactGidList)
{
	// SMCR_CLC_ACCEPT_CONFIRM_LEN_V2 108 + fce 36 + 16 + gid list 4 + 2 * 16
	Img g(196);
	g.at(0, SMCR, 4).at(4, {0x03, 0x00, 0xc4, 0x28})   // v2, FC, SMC-R
		.at(8, {0x21, 0x28, 0x2f, 0x36, 0x3d, 0x44, 0x4b, 0x52})
		.at(26, {0xff, 0xff, 0xc0, 0xa8, 0x0a, 0x02})
		.at(32, {0x62, 0x69, 0x70, 0x77, 0x7e, 0x85})
		.at(38, {0x00, 0xab, 0xcd, 0x12, 0x34, 0xab, 0xcd, 0x01,
			 0x00, 0x00, 0x00, 0x07, 0x33, 0x00,
			 0x00, 0x00, 0x00, 0x01, 0xde, 0xad, 0xb0, 0x00,
			 0x00, 0x65, 0x43, 0x21})
		.text(64, 32, "SMC-EID-ONE")                   // eid, 8 reserved
		.at(104, {0x80, 0x20})                         // v2_direct, Linux
		.text(108, 32, "smc-host-a")
		.at(156, {0x02})                               // gid count
		.at(170, {0xff, 0xff, 0xc0, 0xa8, 0x0a, 0x02})
		.at(186, {0xff, 0xff, 0xc0, 0xa8, 0x0b, 0x02})
		.at(192, SMCR, 4);
	ExpectGolden(Sample(Find("conf_smcr_v2_fc")), g.b);
}

TEST(ClcGolden, AcceptSmcrV2FirstContactLength)
{
	// Linux 6.1 sends the fce plus 16 reserved bytes in an SMC-Rv2
	// first-contact accept: 108 + 36 + 16 = 160.
	Bytes w = Encode(Sample(Find("acc_smcr_v2_fc")));
	ASSERT_EQ(w.size(), 160u);
	EXPECT_EQ(GetBe16(w, 5), 160);
	EXPECT_EQ(w[104], 0x80);
	EXPECT_EQ(Bytes(w.begin() + 140, w.begin() + 156), Bytes(16, 0));
	EXPECT_EQ(Bytes(w.begin() + 156, w.end()), Bytes(SMCR, SMCR + 4));
}

TEST(ClcGolden, ProposalV2)
{
	// v2 proposal with SMC-R v1 (IPv4), SMC-R v2 and SMC-D v2, one UEID
	// and one ISM device: 40 + 40 + 8 + (40 + 32) + (48 + 10) + 4 = 222.
	smc_clc_msg m;
	std::memset(&m, 0, sizeof(m));
	smc_clc_proposal &p = m.proposal;
	p.hdr.type = SMC_CLC_PROPOSAL;
	p.hdr.version = 2;
	p.hdr.typev1 = SMC_CLC_TYPE_R;
	p.hdr.typev2 = SMC_CLC_TYPE_B;
	for (int i = 0; i < 8; i++)
		p.peer_id[i] = uint8_t(0xa0 + i);
	p.gid[15] = 0x01;
	p.mac[0] = 0x02;
	p.mac[5] = 0x03;
	p.ism_gid = 0x1111222233334444ULL;
	p.ism_chid = 0xabcd;
	p.ipv4_subnet = 0x0a000000;
	p.ipv4_prefix_len = 8;
	p.seid = true;
	p.roce_gid[10] = 0xff;
	p.roce_gid[11] = 0xff;
	p.roce_gid[12] = 10;
	p.roce_gid[15] = 7;
	p.eid_cnt = 1;
	std::memset(p.user_eid[0], 'U', 32);
	std::memset(p.system_eid, 'S', 32);
	p.ism_gid_cnt = 1;
	p.ism_dev[0].gid = 0x0102030405060708ULL;
	p.ism_dev[0].chid = 0x0304;

	Img g(222);
	g.at(0, SMCR, 4).at(4, {0x01, 0x00, 0xde, 0x2c})   // v2, typev2 B, typev1 R
		.at(8, {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7})
		.at(31, {0x01})                                // gid
		.at(32, {0x02, 0, 0, 0, 0, 0x03})              // mac
		.at(38, {0x00, 0x28})                          // iparea_offset 40
		.at(40, {0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44})
		.at(48, {0xab, 0xcd})                          // chid
		.at(50, {0x00, 0x24})                          // v2_ext_offset 36
		.at(80, {0x0a, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00})
		.at(88, {0x01, 0x01, 0x00, 0x01})              // eids, gids, seid
		.at(94, {0x00, 0x40})                          // smcd_v2_ext_offset 64
		.at(106, {0xff, 0xff, 0x0a, 0x00, 0x00, 0x07}) // roce gid
		.text(128, 32, "UUUUUUUUUUUUUUUUUUUUUUUUUUUUUUUU")
		.text(160, 32, "SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS")
		.at(208, {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x03, 0x04})
		.at(218, SMCR, 4);
	ExpectGolden(m, g.b);

	// The offset arithmetic as Linux (and Wireshark) follow it:
	Bytes w = g.b;
	size_t v2ext = 52 + GetBe16(w, 50);    // end of v2_ext_offset + value
	EXPECT_EQ(v2ext, 88u);
	size_t smcdv2 = v2ext + 8 + GetBe16(w, v2ext + 6);
	EXPECT_EQ(smcdv2, 160u);
	EXPECT_EQ(40u + GetBe16(w, 38), 80u);  // IP area
}

TEST(ClcGolden, ProposalV1SmcrOnly)
{
	// RFC 7609 v1 proposal, SMC-R only, IPv4: no optional area,
	// iparea_offset 0, prefix area at 40, trailer at 48; length 52.
	Img g(52);
	g.at(0, SMCR, 4).at(4, {0x01, 0x00, 0x34, 0x10})
		.at(8, {0x11, 0x18, 0x1f, 0x26, 0x2d, 0x34, 0x3b, 0x42})
		.at(26, {0xff, 0xff, 0xc0, 0xa8, 0x0a, 0x01})
		.at(32, {0x52, 0x59, 0x60, 0x67, 0x6e, 0x75})
		.at(40, {0xc0, 0xa8, 0x0a, 0x00, 24, 0, 0, 0})
		.at(48, SMCR, 4);
	ExpectGolden(Sample(Find("prop_v1_smcr")), g.b);
}

TEST(ClcGolden, ProposalV2WithoutV1HasZeroIpareaOffset)
{
	// Linux 6.1 with typev1 N: iparea_offset 0, no IP area, v2 ext right
	// after the 40-byte SMC-D area (v2_ext_offset 28).
	Bytes w = Encode(Sample(Find("prop_v2_smcd_v2only")));
	EXPECT_EQ(GetBe16(w, 38), 0);
	EXPECT_EQ(GetBe16(w, 50), 28);
	EXPECT_EQ(w[7], 0x26);  // v2, typev2 D, typev1 N
	EXPECT_EQ(w.size(), 40u + 40 + 40 + 48 + 10 + 4);
}
