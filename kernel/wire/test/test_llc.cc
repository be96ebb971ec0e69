// SPDX-License-Identifier: GPL-2.0
// SMC-R LLC v1 messages, the v2 header and the ADD LINK v2 extension:
// layout, golden bytes of every type, round trips of every sample, malformed
// input. Golden bytes are placed at literal offsets from RFC 7609 / Linux 6.1
// net/smc/smc_llc.c (and Wireshark for the extension), not computed from
// smc_llc_layout.h.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "roce_samples.h"
#include "smc_llc.h"
#include "smc_llc_layout.h"

#define SZ(t) sizeof(struct t)
#define OFF(t, m) offsetof(struct t, m)

static_assert(SZ(smc_llc_wire_hdr) == 4);
static_assert(OFF(smc_llc_wire_hdr, flags) == 3);
static_assert(SZ(smc_llc_wire_confirm_link) == 44);
static_assert(OFF(smc_llc_wire_confirm_link, sender_mac) == 4);
static_assert(OFF(smc_llc_wire_confirm_link, sender_gid) == 10);
static_assert(OFF(smc_llc_wire_confirm_link, sender_qp_num) == 26);
static_assert(OFF(smc_llc_wire_confirm_link, link_num) == 29);
static_assert(OFF(smc_llc_wire_confirm_link, max_links) == 34);
static_assert(OFF(smc_llc_wire_confirm_link, max_conns) == 35);
static_assert(SZ(smc_llc_wire_add_link) == 44);
static_assert(OFF(smc_llc_wire_add_link, sender_qp_num) == 28);
static_assert(OFF(smc_llc_wire_add_link, qp_mtu) == 32);
static_assert(SZ(smc_llc_wire_add_link_cont) == 44);
static_assert(OFF(smc_llc_wire_add_link_cont, num_rkeys) == 5);
static_assert(OFF(smc_llc_wire_add_link_cont, rt[1].rmb_vaddr_new) == 32);
static_assert(SZ(smc_llc_wire_delete_link) == 44);
static_assert(SZ(smc_llc_wire_confirm_rkey) == 44);
static_assert(OFF(smc_llc_wire_confirm_rkey, rtoken[1]) == 17);
static_assert(OFF(smc_llc_wire_confirm_rkey, rtoken[2].rmb_vaddr) == 35);
static_assert(SZ(smc_llc_wire_confirm_rkey_cont) == 44);
static_assert(OFF(smc_llc_wire_confirm_rkey_cont, rtoken[0]) == 5);
static_assert(SZ(smc_llc_wire_test_link) == 44);
static_assert(OFF(smc_llc_wire_test_link, user_data) == 4);
static_assert(SZ(smc_llc_wire_delete_rkey) == 44);
static_assert(OFF(smc_llc_wire_delete_rkey, err_mask) == 5);
static_assert(OFF(smc_llc_wire_delete_rkey, rkey[7]) == 36);
static_assert(alignof(struct smc_llc_wire_confirm_rkey) == 1);
static_assert(SZ(smc_llc_wire_add_link_ext) == 28);
static_assert(OFF(smc_llc_wire_add_link_ext, target_gid) == 2);
static_assert(OFF(smc_llc_wire_add_link_ext, reserved2) == 18);
static_assert(OFF(smc_llc_wire_add_link_ext, num_rkeys) == 26);
static_assert(SMC_LLC_ADD_EXT_LEN == 28 && SMC_LLC_ADD_EXT_RT_LEN == 16);

namespace {

using Bytes = std::vector<uint8_t>;

struct Img {
	Bytes b;
	Img(uint8_t type, uint8_t flags) : b(44, 0)
	{
		b[0] = type;
		b[1] = 44;
		b[3] = flags;
	}
	Img &at(size_t off, std::initializer_list<uint8_t> v)
	{
		for (uint8_t x : v)
			b.at(off++) = x;
		return *this;
	}
};

smc_llc_msg Sample(const char *name)
{
	smc_llc_msg m;
	for (size_t i = 0; i < smc_llc_sample_count(); i++)
		if (std::string(smc_llc_sample(i, &m)) == name)
			return m;
	ADD_FAILURE() << "no sample " << name;
	return smc_llc_msg{};
}

Bytes Enc(const smc_llc_msg &m)
{
	Bytes b(44, 0xcc);
	EXPECT_EQ(smc_llc_encode(&m, b.data(), b.size()), SMC_LLC_OK);
	return b;
}

smc_llc_err Dec(const Bytes &b, smc_llc_msg *m)
{
	// exactly sized heap copy, so ASan builds see any over-read
	std::unique_ptr<uint8_t[]> p(new uint8_t[b.size() ? b.size() : 1]);
	if (!b.empty())
		std::memcpy(p.get(), b.data(), b.size());
	return smc_llc_decode(p.get(), b.size(), m);
}

bool Same(const smc_llc_msg &a, const smc_llc_msg &b)
{
	// decoded structs are zeroed first, so bytewise compare is exact for
	// messages built from zeroed structs too
	return std::memcmp(&a, &b, sizeof(a)) == 0;
}

void ExpectGolden(const char *name, const Bytes &golden)
{
	smc_llc_msg m = Sample(name);
	Bytes wire = Enc(m);
	ASSERT_EQ(wire.size(), golden.size());
	for (size_t i = 0; i < wire.size(); i++)
		EXPECT_EQ(wire[i], golden[i]) << name << " byte offset " << i;
	smc_llc_msg back;
	ASSERT_EQ(Dec(golden, &back), SMC_LLC_OK) << name;
	EXPECT_TRUE(Same(back, m)) << name;
}

const std::initializer_list<uint8_t> kMac = {2, 0, 0, 0x0a, 0x0b, 0x0c};
const std::initializer_list<uint8_t> kGid = {0, 0, 0, 0, 0, 0, 0, 0,
					     0, 0, 0xff, 0xff, 192, 168, 10, 1};

} // namespace

TEST(LlcGolden, ConfirmLink)
{
	// flags: no-RMBE-eyecatcher bits 0x03; response adds 0x80
	Img g(0x01, 0x03);
	g.at(4, kMac).at(10, kGid).at(26, {0x00, 0x01, 0x23}).at(29, {1})
	 .at(30, {0xde, 0xad, 0xbe, 0xef}).at(34, {2});
	ExpectGolden("llc_confirm_link", g.b);
	g.at(3, {0x83}).at(9, {0x0d}).at(25, {2}).at(26, {0x00, 0x04, 0x56});
	ExpectGolden("llc_confirm_link_resp", g.b);
}

TEST(LlcGolden, AddLink)
{
	Img g(0x02, 0x00);
	g.at(4, kMac).at(12, kGid).at(26, {11}).at(28, {0x00, 0x07, 0x89})
	 .at(31, {2}).at(32, {0x03}).at(33, {0x65, 0x43, 0x21});
	ExpectGolden("llc_add_link", g.b);
	// rejected response: flags 0x80 | 0x40, reason in byte 2's low nibble
	Img r(0x02, 0xc0);
	r.at(2, {0x01});
	ExpectGolden("llc_add_link_rej", r.b);
}

TEST(LlcGolden, AddLinkCont)
{
	Img g(0x03, 0x00);
	g.at(4, {2, 3})
	 .at(8, {0, 0, 0x11, 0x11, 0, 0, 0x21, 0x11, 0, 0, 0, 1, 0xc0, 0xde, 0, 0})
	 .at(24, {0, 0, 0x12, 0x22, 0, 0, 0x22, 0x22, 0, 0, 0, 1, 0xc0, 0xdf, 0, 0});
	ExpectGolden("llc_add_link_cont", g.b);
	Img l(0x03, 0x80);
	l.at(4, {2, 1})
	 .at(8, {0, 0, 0x13, 0x33, 0, 0, 0x23, 0x33, 0, 0, 0, 1, 0xc0, 0xe0, 0, 0});
	ExpectGolden("llc_add_link_cont_last", l.b);
}

TEST(LlcGolden, DeleteLink)
{
	// all 0x40 | orderly 0x20; reason at 5 (unaligned, packed)
	Img a(0x04, 0x60);
	a.at(5, {0x00, 0x03, 0x00, 0x00});
	ExpectGolden("llc_delete_link_all", a.b);
	Img o(0x04, 0xa0);		// response | orderly, one link
	o.at(4, {2}).at(5, {0x00, 0x01, 0x00, 0x00});
	ExpectGolden("llc_delete_link_one", o.b);
}

TEST(LlcGolden, ConfirmRkey)
{
	// rtoken[0] at 4: its first byte is the count of further rtokens
	Img g(0x06, 0x00);
	g.at(4, {1, 0, 0, 0x3a, 0xaa, 0, 0, 0, 2, 0xbe, 0xef, 0, 0})
	 .at(17, {2, 0, 0, 0x3b, 0xbb, 0, 0, 0, 2, 0xbe, 0xef, 0x80, 0});
	ExpectGolden("llc_confirm_rkey", g.b);
	g.at(4, {2}).at(30, {3, 0, 0, 0x3c, 0xcc, 0xff, 0xff, 0xff, 0xff, 0xff,
			     0xff, 0xf0, 0x00});
	ExpectGolden("llc_confirm_rkey_max", g.b);
	// negative response with retry: 0x80 | 0x20 | 0x10
	ExpectGolden("llc_confirm_rkey_neg", Img(0x06, 0xb0).b);
}

TEST(LlcGolden, ConfirmRkeyCont)
{
	Img g(0x08, 0x00);
	g.at(4, {2})
	 .at(5, {1, 0, 0, 0x4a, 0xaa, 0, 0, 0, 3, 0, 0, 0, 0})
	 .at(18, {2, 0, 0, 0x4b, 0xbb, 0, 0, 0, 3, 0, 1, 0, 0});
	ExpectGolden("llc_confirm_rkey_cont", g.b);
	ExpectGolden("llc_confirm_rkey_cont_resp", Img(0x08, 0x90).b);
}

TEST(LlcGolden, DeleteRkey)
{
	Img g(0x09, 0x00);
	g.at(4, {3}).at(8, {0, 0, 0x50, 0x01, 0, 0, 0x50, 0x02, 0, 0, 0x50, 0x03});
	ExpectGolden("llc_delete_rkey", g.b);
	Img r(0x09, 0xa0);
	r.at(4, {8, 0x41});
	for (uint8_t i = 0; i < 8; i++)
		r.at(8 + 4 * i, {0, 0, 0x60, i});
	ExpectGolden("llc_delete_rkey_resp", r.b);
}

TEST(LlcGolden, TestLink)
{
	Img g(0x07, 0x00);
	const char *s = "SMC-R keepalive";
	for (size_t i = 0; i < 15; i++)
		g.b[4 + i] = uint8_t(s[i]);
	ExpectGolden("llc_test_link", g.b);
	g.b[3] = 0x80;
	ExpectGolden("llc_test_link_resp", g.b);
}

// Each flag bit alone, in an otherwise empty message of its type, sets
// exactly its own bool (and the encoder puts it back on the same bit).
TEST(LlcGolden, FlagBitsOneAtATime)
{
	struct Case {
		uint8_t type, byte, bits;
		bool smc_llc_msg::*top;			// the flag is m.*top, or
		bool (*get)(const smc_llc_msg &);	// the flag is get(m)
	};
	const Case cases[] = {
		{0x01, 3, 0x80, &smc_llc_msg::response, nullptr},
		{0x01, 3, 0x03, nullptr, [](const smc_llc_msg &m) { return m.confirm_link.no_rmbe_eyec; }},
		{0x02, 3, 0x40, nullptr, [](const smc_llc_msg &m) { return m.add_link.rejected; }},
		{0x04, 3, 0x40, nullptr, [](const smc_llc_msg &m) { return m.delete_link.all; }},
		{0x04, 3, 0x20, nullptr, [](const smc_llc_msg &m) { return m.delete_link.orderly; }},
		{0x06, 3, 0x20, nullptr, [](const smc_llc_msg &m) { return m.confirm_rkey.negative; }},
		{0x06, 3, 0x10, nullptr, [](const smc_llc_msg &m) { return m.confirm_rkey.retry; }},
		{0x08, 3, 0x20, nullptr, [](const smc_llc_msg &m) { return m.confirm_rkey_cont.negative; }},
		{0x08, 3, 0x10, nullptr, [](const smc_llc_msg &m) { return m.confirm_rkey_cont.retry; }},
		{0x09, 3, 0x20, nullptr, [](const smc_llc_msg &m) { return m.delete_rkey.negative; }},
		{0x07, 3, 0x80, &smc_llc_msg::response, nullptr},
	};
	for (const Case &c : cases) {
		Img img(c.type, 0);
		img.b[c.byte] = c.bits;
		smc_llc_msg m;
		ASSERT_EQ(Dec(img.b, &m), SMC_LLC_OK);
		// the flag under test is set, and the response bit only if tested
		if (c.top)
			EXPECT_TRUE(m.*c.top) << int(c.type) << "/" << int(c.bits);
		else
			EXPECT_TRUE(c.get(m)) << int(c.type) << "/" << int(c.bits);
		EXPECT_FALSE(c.top != &smc_llc_msg::response && m.response);
		EXPECT_EQ(Enc(m), img.b) << int(c.type) << "/" << int(c.bits);
	}
	// one of the two no-RMBE-eyecatcher bits alone is not the flag
	Img half(0x01, 0x01);
	smc_llc_msg m;
	ASSERT_EQ(Dec(half.b, &m), SMC_LLC_OK);
	EXPECT_FALSE(m.confirm_link.no_rmbe_eyec);
}

class LlcSample : public testing::TestWithParam<size_t> {};

TEST_P(LlcSample, RoundTripAndCanonical)
{
	smc_llc_msg m, back;
	ASSERT_NE(smc_llc_sample(GetParam(), &m), nullptr);
	Bytes w = Enc(m);
	ASSERT_EQ(Dec(w, &back), SMC_LLC_OK);
	EXPECT_TRUE(Same(back, m));
	EXPECT_EQ(Enc(back), w);
	if (m.v2) {		// v2 header: 0x2T, length 44 big endian
		EXPECT_EQ(w[0], 0x20 | m.type);
		EXPECT_EQ(w[1], 0);
		EXPECT_EQ(w[2], 44);
	} else {
		EXPECT_EQ(w[0], m.type);
		EXPECT_EQ(w[1], 44);
	}
	EXPECT_EQ(bool(w[3] & 0x80), m.response);
}

TEST_P(LlcSample, TruncatedTrailingAndCapacity)
{
	smc_llc_msg m, back;
	ASSERT_NE(smc_llc_sample(GetParam(), &m), nullptr);
	Bytes w = Enc(m);
	for (size_t n = 0; n < w.size(); n++)
		EXPECT_EQ(Dec(Bytes(w.begin(), w.begin() + n), &back),
			  SMC_LLC_ERR_TRUNCATED) << n;
	for (size_t extra : {1u, 4u, 100u}) {
		Bytes more = w;
		more.resize(w.size() + extra);
		EXPECT_EQ(Dec(more, &back), SMC_LLC_ERR_TRAILING) << extra;
	}
	for (size_t cap = 0; cap < 44; cap++) {
		Bytes b(64, 0x5a);
		EXPECT_EQ(smc_llc_encode(&m, b.data(), cap), SMC_LLC_ERR_NOSPACE);
		EXPECT_EQ(b, Bytes(64, 0x5a)) << "wrote with cap " << cap;
	}
	Bytes b(64, 0x5a);
	ASSERT_EQ(smc_llc_encode(&m, b.data(), b.size()), SMC_LLC_OK);
	EXPECT_EQ(Bytes(b.begin(), b.begin() + 44), w);
	EXPECT_EQ(Bytes(b.begin() + 44, b.end()), Bytes(20, 0x5a));
}

// The bits an encoder can ever set for a type: OR over the encodings of
// many decoded random messages of that type.
Bytes UsedBits(uint8_t type, bool v2 = false)
{
	std::mt19937 rng(type);
	Bytes used(44, 0);
	for (int i = 0; i < 20000; i++) {
		Bytes b(44);
		for (auto &x : b)
			x = uint8_t(rng());
		b[0] = v2 ? uint8_t(0x20 | type) : type;
		b[1] = v2 ? 0 : 44;
		if (v2)
			b[2] = 44;
		if (type == SMC_LLC_CONFIRM_RKEY)
			b[4] = uint8_t(rng() % 3);
		if (type == SMC_LLC_DELETE_RKEY)
			b[4] = uint8_t(rng() % 9);
		smc_llc_msg m;
		if (Dec(b, &m) != SMC_LLC_OK)
			continue;
		Bytes w = Enc(m);
		for (size_t j = 0; j < 44; j++)
			used[j] |= w[j];
	}
	return used;
}

TEST_P(LlcSample, ReservedBitsAndBytesIgnored)
{
	// Linux 6.1 looks only at the named fields and flag bits of each type;
	// set every other bit and the decoded struct must not change.
	smc_llc_msg m, back;
	ASSERT_NE(smc_llc_sample(GetParam(), &m), nullptr);
	Bytes w = Enc(m), used = UsedBits(m.type, m.v2), noisy = w;
	// type and length are not reserved (v2: a 16-bit length)
	for (size_t i = m.v2 ? 3 : 2; i < 44; i++) {
		// nor are the high bits of a count with a limit (LlcMalformed.Counts)
		if (i == 4 && (m.type == SMC_LLC_CONFIRM_RKEY ||
			       m.type == SMC_LLC_DELETE_RKEY))
			continue;
		noisy[i] |= uint8_t(~used[i]);
	}
	ASSERT_NE(noisy, w) << "every v1 LLC message has reserved bits";
	ASSERT_EQ(Dec(noisy, &back), SMC_LLC_OK);
	EXPECT_TRUE(Same(back, m));
	EXPECT_EQ(Enc(back), w);
}

TEST(LlcReserved, WhatIsReserved)
{
	// spot checks of the masks above against the Linux 6.1 structs
	Bytes cl = UsedBits(SMC_LLC_CONFIRM_LINK);
	EXPECT_EQ(cl[2], 0x00);			// byte 2 unused outside ADD LINK
	EXPECT_EQ(cl[3], 0x83);			// RESP | NO_RMBE_EYEC
	EXPECT_EQ(cl[34], 0xff);		// max_links
	EXPECT_EQ(cl[35], 0xff);		// max_conns (SMC v2.1)
	EXPECT_EQ(cl[36], 0x00);		// reserved[8]
	Bytes al = UsedBits(SMC_LLC_ADD_LINK);
	EXPECT_EQ(al[2], 0x0f);			// reject reason nibble
	EXPECT_EQ(al[3], 0xc0);			// RESP | REJ
	EXPECT_EQ(al[10], 0x00);		// reserved2
	EXPECT_EQ(al[32], 0x0f);		// qp_mtu nibble
	Bytes dl = UsedBits(SMC_LLC_DELETE_LINK);
	EXPECT_EQ(dl[3], 0xe0);			// RESP | ALL | ORDERLY
	EXPECT_EQ(dl[9], 0x00);
	Bytes cr = UsedBits(SMC_LLC_CONFIRM_RKEY);
	EXPECT_EQ(cr[3], 0xb0);			// RESP | NEG | RETRY
	EXPECT_EQ(cr[4], 0x03);			// count 0..2
	EXPECT_EQ(cr[43], 0x00);
	Bytes dr = UsedBits(SMC_LLC_DELETE_RKEY);
	EXPECT_EQ(dr[3], 0xa0);			// RESP | NEG
	EXPECT_EQ(dr[6], 0x00);
	EXPECT_EQ(dr[39], 0xff);		// rkey[7]
	EXPECT_EQ(dr[40], 0x00);
	Bytes tl = UsedBits(SMC_LLC_TEST_LINK);
	EXPECT_EQ(tl[3], 0x80);
	EXPECT_EQ(tl[19], 0xff);
	EXPECT_EQ(tl[20], 0x00);
	// v2: byte 2 is the length's low byte (44), no reject reason
	Bytes al2 = UsedBits(SMC_LLC_ADD_LINK, true);
	EXPECT_EQ(al2[1], 0x00);
	EXPECT_EQ(al2[2], 44);
	EXPECT_EQ(al2[3], 0xc0);		// RESP | REJ, requests too
	EXPECT_EQ(al2[32], 0x0f);
	Bytes dr2 = UsedBits(SMC_LLC_DELETE_RKEY, true);
	EXPECT_EQ(dr2[3], 0xa0);
	EXPECT_EQ(dr2[5], 0xff);		// v2 response: a count
	EXPECT_EQ(dr2[6], 0x00);
	EXPECT_EQ(dr2[40], 0x00);
}

INSTANTIATE_TEST_SUITE_P(All, LlcSample,
			 testing::Range<size_t>(0, smc_llc_sample_count()),
			 [](const testing::TestParamInfo<size_t> &info) {
				 smc_llc_msg m;
				 return std::string(smc_llc_sample(info.param, &m));
			 });

TEST(LlcMalformed, TypesAndVersions)
{
	// bytes 4.. all zero: a valid body for every type
	Bytes w = Enc(Sample("llc_delete_link_all"));
	smc_llc_msg m;
	for (unsigned t = 0; t < 256; t++) {
		Bytes b = w;
		b[0] = uint8_t(t);
		// a v2 header: bytes 1..2 are 44, 0, the length 44 in the
		// little-endian order Linux on x86 writes
		unsigned lo = t & 15;
		bool v2ok = lo == 1 || lo == 2 || lo == 4 || lo == 6 || lo == 7 ||
			    lo == 9;
		smc_llc_err want = (t >> 4) == 2 ?
				   (v2ok ? SMC_LLC_OK : SMC_LLC_ERR_BAD_VERSION) :
				   (t >= 1 && t <= 9 && t != 5) ? SMC_LLC_OK :
				   SMC_LLC_ERR_BAD_TYPE;
		EXPECT_EQ(Dec(b, &m), want) << "type " << t;
		if ((t >> 4) != 2)
			EXPECT_EQ(smc_llc_type_known(uint8_t(t)), want == SMC_LLC_OK);
		else
			EXPECT_EQ(smc_llc_type_known_v2(uint8_t(lo)), v2ok);
	}
	// a CDC message is not an LLC message
	Bytes cdc(44, 0);
	cdc[0] = 0xfe;
	cdc[1] = 44;
	EXPECT_EQ(Dec(cdc, &m), SMC_LLC_ERR_BAD_TYPE);
	for (unsigned l = 0; l < 256; l++) {
		if (l == 44)
			continue;
		Bytes b = w;
		b[1] = uint8_t(l);
		EXPECT_EQ(Dec(b, &m), SMC_LLC_ERR_BAD_LENGTH) << l;
	}
	EXPECT_EQ(smc_llc_decode(nullptr, 44, &m), SMC_LLC_ERR_INVAL);
	EXPECT_EQ(smc_llc_decode(w.data(), 44, nullptr), SMC_LLC_ERR_INVAL);
}

// SMC-Rv2 header: byte 0 = 0x20 | type, bytes 1..2 the length (we write
// big endian, as Wireshark reads it), byte 3 the flags; the body as v1.
TEST(LlcV2, GoldenConfirmLink)
{
	Img v1(0x01, 0x03);
	v1.at(4, kMac).at(10, kGid).at(26, {0x00, 0x01, 0x23}).at(29, {1})
		.at(30, {0xde, 0xad, 0xbe, 0xef}).at(34, {2});
	Bytes golden = v1.b;
	golden[0] = 0x21;
	golden[1] = 0x00;
	golden[2] = 0x2c;
	ExpectGolden("llc_v2_confirm_link", golden);
	// Linux 6.1 on x86 writes the length in host order: taken too
	golden[1] = 0x2c;
	golden[2] = 0x00;
	smc_llc_msg m;
	ASSERT_EQ(Dec(golden, &m), SMC_LLC_OK);
	EXPECT_TRUE(Same(m, Sample("llc_v2_confirm_link")));
}

TEST(LlcV21, ConfirmLinkCarriesMaxConns)
{
	// SMC v2.1: the byte after max_links is the group's connection limit
	smc_llc_msg m = Sample("llc_confirm_link");
	m.confirm_link.max_conns = 200;
	Bytes w = Enc(m);
	EXPECT_EQ(w[34], 2);
	EXPECT_EQ(w[35], 200);
	smc_llc_msg back;
	ASSERT_EQ(Dec(w, &back), SMC_LLC_OK);
	EXPECT_EQ(back.confirm_link.max_conns, 200);
	EXPECT_TRUE(Same(back, m));
}

TEST(LlcV2, GoldenTestAndDeleteLink)
{
	Bytes tl = Enc(Sample("llc_v2_test_link_resp"));
	EXPECT_EQ(tl[0], 0x27);
	EXPECT_EQ(tl[1], 0x00);
	EXPECT_EQ(tl[2], 0x2c);
	EXPECT_EQ(tl[3], 0x80);
	EXPECT_EQ(std::string(tl.begin() + 4, tl.begin() + 19), "SMC-R keepalive");
	Bytes dl = Enc(Sample("llc_v2_delete_link_all"));
	EXPECT_EQ(dl[0], 0x24);
	EXPECT_EQ(dl[2], 0x2c);
	EXPECT_EQ(dl[3], 0x60);		// all | orderly
	EXPECT_EQ(dl[5], 0x00);		// reason 0x00030000, big endian
	EXPECT_EQ(dl[6], 0x03);
}

TEST(LlcV2, AddLinkKeepsItsLength)
{
	// v1 puts the reject reason in byte 2; v2 has its length there
	Bytes b = Enc(Sample("llc_v2_add_link_rej"));
	EXPECT_EQ(b[0], 0x22);
	EXPECT_EQ(b[1], 0x00);
	EXPECT_EQ(b[2], 0x2c);
	smc_llc_msg m = Sample("llc_add_link_rej");
	m.v2 = true;
	Bytes out(44, 0x5a);
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL);
	EXPECT_EQ(out, Bytes(44, 0x5a));
	m.add_link.reject_reason = 0;	// rejected flag alone: fine
	ASSERT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_OK);
	EXPECT_EQ(out[3], 0xc0);
}

TEST(LlcV2, EveryV2TypeRoundTrips)
{
	// every v1 sample of a type v2 keeps, sent with a v2 header
	size_t n = 0;
	for (size_t i = 0; i < smc_llc_sample_count(); i++) {
		smc_llc_msg m, back;
		const char *name = smc_llc_sample(i, &m);
		if (m.v2 || !smc_llc_type_known_v2(m.type))
			continue;
		m.v2 = true;
		m.v2_len = 44;
		// the ADD LINK request too: its first 44 bytes, the
		// extension is the caller's (LlcV2.AddLinkRequestWithExtension)
		if (m.type == SMC_LLC_ADD_LINK)
			m.add_link.reject_reason = 0;
		Bytes w = Enc(m);
		EXPECT_EQ(w[0], 0x20 | m.type) << name;
		ASSERT_EQ(Dec(w, &back), SMC_LLC_OK) << name;
		EXPECT_TRUE(Same(m, back)) << name;
		n++;
	}
	// 2 CONFIRM LINK, 2 ADD LINK, 2 DELETE LINK, 3 CONFIRM RKEY,
	// 2 TEST LINK, 2 DELETE RKEY
	EXPECT_GE(n, 13u);
}

TEST(LlcV2, Lengths)
{
	Bytes w = Enc(Sample("llc_v2_delete_link_all"));
	smc_llc_msg m;
	// a longer message (a v2 extension follows): the first 44 bytes do,
	// and so does all of it
	for (unsigned len : {45u, 100u, 8192u}) {
		Bytes b = w;
		b[1] = uint8_t(len >> 8);
		b[2] = uint8_t(len);
		ASSERT_EQ(Dec(b, &m), SMC_LLC_OK) << len;
		EXPECT_EQ(m.v2_len, len);
		EXPECT_TRUE(m.delete_link.all);
		b.resize(len, 0);
		ASSERT_EQ(Dec(b, &m), SMC_LLC_OK) << len;
		b.push_back(0);			// more than the header says
		EXPECT_EQ(Dec(b, &m), SMC_LLC_ERR_TRAILING) << len;
	}
	// lengths no order makes 44..8192 of
	for (unsigned v : {0u, 43u, 0x2b00u, 8193u, 0xffffu, 0x2020u + 1}) {
		Bytes b = w;
		b[1] = uint8_t(v >> 8);
		b[2] = uint8_t(v);
		uint16_t le = uint16_t(b[2] << 8 | b[1]);
		bool ok = (v >= 44 && v <= 8192) || (le >= 44 && le <= 8192);
		EXPECT_EQ(Dec(b, &m), ok ? SMC_LLC_OK : SMC_LLC_ERR_BAD_LENGTH) << v;
	}
	Bytes short_msg(w.begin(), w.begin() + 43);
	EXPECT_EQ(Dec(short_msg, &m), SMC_LLC_ERR_TRUNCATED);
	// the encoder writes 44-byte messages only, and v2 types only; a
	// length past 44 is an ADD LINK's (LlcV2.AddLinkLengths)
	m = Sample("llc_v2_test_link");
	m.v2_len = 100;
	Bytes out(44, 0x5a);
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL);
	m = Sample("llc_confirm_rkey_cont");
	m.v2 = true;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_BAD_VERSION);
	m = Sample("llc_add_link_cont");
	m.v2 = true;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_BAD_VERSION);
	EXPECT_EQ(out, Bytes(44, 0x5a));
	// REQUEST ADD LINK (0x25) and the CONTINUATIONs are not read
	for (uint8_t t : {0x25, 0x23, 0x28}) {
		Bytes b = w;
		b[0] = t;
		EXPECT_EQ(Dec(b, &m), SMC_LLC_ERR_BAD_VERSION) << int(t);
	}
}

// A v2 ADD LINK request or accepting response is longer than 44 bytes: the
// encoder puts the whole length into the header and the caller appends the
// extension.
TEST(LlcV2, AddLinkRequestWithExtension)
{
	smc_llc_msg m = Sample("llc_add_link");
	m.v2 = true;
	m.v2_len = 44 + 28 + 32;		// two rkey entries
	auto e = std::make_unique<smc_llc_add_link_ext>();
	e->direct = true;
	e->num_rkeys = 2;
	e->rt[0] = {0x1111, 0x2111, 0x1c0de0000};
	e->rt[1] = {0x1222, 0x2222, 0x1c0df0000};
	Bytes full(104, 0x5a);
	ASSERT_EQ(smc_llc_encode(&m, full.data(), full.size()), SMC_LLC_OK);
	EXPECT_EQ(full[0], 0x22);
	EXPECT_EQ(full[1], 0x00);		// 104, big endian
	EXPECT_EQ(full[2], 104);
	EXPECT_EQ(full[3], 0x00);
	EXPECT_EQ(full[44], 0x5a) << "the encoder wrote past 44 bytes";
	ASSERT_EQ(smc_llc_add_ext_encode(e.get(), full.data() + 44, 60),
		  SMC_LLC_OK);
	smc_llc_msg back;
	ASSERT_EQ(Dec(full, &back), SMC_LLC_OK);
	EXPECT_EQ(back.v2_len, 104);
	EXPECT_TRUE(Same(back, m));
	auto eb = std::make_unique<smc_llc_add_link_ext>();
	ASSERT_EQ(smc_llc_add_ext_decode(full.data() + 44, back.v2_len - 44,
					 eb.get()), SMC_LLC_OK);
	EXPECT_EQ(std::memcmp(e.get(), eb.get(), sizeof(*e)), 0);
	// a receiver that keeps only the first 44 bytes reads the same
	ASSERT_EQ(Dec(Bytes(full.begin(), full.begin() + 44), &back), SMC_LLC_OK);
	EXPECT_TRUE(Same(back, m));
	// an accepting response alike
	m.response = true;
	ASSERT_EQ(smc_llc_encode(&m, full.data(), 44), SMC_LLC_OK);
	EXPECT_EQ(full[3], 0x80);
	EXPECT_EQ(full[2], 104);
}

TEST(LlcV2, AddLinkLengths)
{
	smc_llc_msg m = Sample("llc_add_link");
	m.v2 = true;
	Bytes out(44, 0x5a);
	// 0 means "44", as for every type
	m.v2_len = 0;
	ASSERT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_OK);
	EXPECT_EQ(out[1], 0x00);
	EXPECT_EQ(out[2], 44);
	for (unsigned len : {44u, 45u, 0x12cu, 8192u}) {
		m.v2_len = uint16_t(len);
		ASSERT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_OK) << len;
		EXPECT_EQ(out[1], uint8_t(len >> 8)) << len;
		EXPECT_EQ(out[2], uint8_t(len)) << len;
		smc_llc_msg back;
		ASSERT_EQ(Dec(out, &back), SMC_LLC_OK) << len;
		EXPECT_EQ(back.v2_len, len);
	}
	// no length the decoder would refuse; nothing written
	std::fill(out.begin(), out.end(), 0x5a);
	for (unsigned len : {1u, 43u, 8193u, 0xffffu}) {
		m.v2_len = uint16_t(len);
		EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL)
			<< len;
	}
	// a reject reason has no byte in v2, whatever the length
	m = Sample("llc_add_link");
	m.v2 = true;
	m.v2_len = 104;
	m.add_link.reject_reason = 1;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL);
	m.v2_len = 0;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL);
	EXPECT_EQ(out, Bytes(44, 0x5a));
	// other v2 types: 0 or 44 only
	m = Sample("llc_v2_delete_rkey");
	m.v2_len = 45;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL);
	EXPECT_EQ(out, Bytes(44, 0x5a));
}

// v2 DELETE RKEY: v1's first 44 bytes; in a response byte 5 counts the
// rkeys not found.
TEST(LlcV2, DeleteRkey)
{
	Img g(0x09, 0x00);
	g.at(4, {3}).at(8, {0, 0, 0x50, 0x01, 0, 0, 0x50, 0x02, 0, 0, 0x50, 0x03});
	Bytes req = g.b;
	req[0] = 0x29;
	req[1] = 0x00;
	req[2] = 0x2c;
	ExpectGolden("llc_v2_delete_rkey", req);
	Bytes resp = req;
	resp[3] = 0xa0;			// response | negative
	resp[5] = 1;			// one rkey not found
	ExpectGolden("llc_v2_delete_rkey_resp", resp);
	smc_llc_msg m;
	ASSERT_EQ(Dec(resp, &m), SMC_LLC_OK);
	EXPECT_TRUE(m.v2);
	EXPECT_EQ(m.delete_rkey.num_rkeys, 3);
	EXPECT_EQ(m.delete_rkey.err_mask, 1);
	EXPECT_EQ(m.delete_rkey.rkey[2], 0x5003u);
	// as in v1, more than 8 rkeys is refused: the 9th would be past
	// the 44 bytes read
	for (unsigned n = 0; n < 256; n++) {
		Bytes b = req;
		b[4] = uint8_t(n);
		EXPECT_EQ(Dec(b, &m), n <= 8 ? SMC_LLC_OK : SMC_LLC_ERR_BAD_COUNT)
			<< n;
	}
	m = Sample("llc_v2_delete_rkey");
	m.delete_rkey.num_rkeys = 9;
	Bytes out(44, 0x5a);
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_BAD_COUNT);
	EXPECT_EQ(out, Bytes(44, 0x5a));
	// a longer v2 one (more rkeys after byte 44) is read up to byte 44
	Bytes longer = req;
	longer[2] = 44 + 8;
	longer.resize(52, 0);
	ASSERT_EQ(Dec(longer, &m), SMC_LLC_OK);
	EXPECT_EQ(m.v2_len, 52);
	EXPECT_EQ(m.delete_rkey.num_rkeys, 3);
}

namespace {

using ExtPtr = std::unique_ptr<smc_llc_add_link_ext>;

ExtPtr NewExt()
{
	return std::make_unique<smc_llc_add_link_ext>();	// zeroed
}

smc_llc_err DecExt(const Bytes &b, smc_llc_add_link_ext *e)
{
	// exactly sized heap copy, so ASan builds see any over-read
	std::unique_ptr<uint8_t[]> p(new uint8_t[b.size() ? b.size() : 1]);
	if (!b.empty())
		std::memcpy(p.get(), b.data(), b.size());
	return smc_llc_add_ext_decode(p.get(), b.size(), e);
}

Bytes EncExt(const smc_llc_add_link_ext &e)
{
	Bytes b(smc_llc_add_ext_len(e.num_rkeys), 0xcc);
	EXPECT_EQ(smc_llc_add_ext_encode(&e, b.data(), b.size()), SMC_LLC_OK);
	return b;
}

bool SameExt(const smc_llc_add_link_ext &a, const smc_llc_add_link_ext &b)
{
	return std::memcmp(&a, &b, sizeof(a)) == 0;
}

bool AllZero(const smc_llc_add_link_ext &e)
{
	return SameExt(e, smc_llc_add_link_ext{});
}

// n entries with distinct values in every field
ExtPtr ExtWith(unsigned n)
{
	ExtPtr e = NewExt();
	e->direct = n & 1;
	for (uint8_t i = 0; i < SMC_LLC_GID_LEN; i++)
		e->target_gid[i] = uint8_t(0xf0 + i);
	e->num_rkeys = uint16_t(n);
	for (unsigned i = 0; i < n; i++)
		e->rt[i] = {0x10000u + i, 0x20000u + i,
			    0x0123456700000000ull + (uint64_t(i) << 12)};
	return e;
}

} // namespace

TEST(LlcAddExt, Golden)
{
	// two entries: 28 + 32 bytes, offsets from the start of the extension
	ExtPtr e = NewExt();
	e->direct = true;
	const uint8_t gid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				 0, 0, 0, 0, 0, 0, 0x0c, 0x02};
	std::memcpy(e->target_gid, gid, 16);
	e->num_rkeys = 2;
	e->rt[0] = {0x00001111, 0x00002111, 0x00000001c0de0000ull};
	e->rt[1] = {0x00001222, 0x00002222, 0x00000001c0df0000ull};
	Bytes g(60, 0);
	g[0] = 0x80;				// direct; 1 reserved
	for (size_t i = 0; i < 16; i++)		// 2..17 target GID
		g[2 + i] = gid[i];
	// 18..25 reserved; 26..27 count, big endian
	g[26] = 0x00;
	g[27] = 0x02;
	const uint8_t rt0[16] = {0, 0, 0x11, 0x11, 0, 0, 0x21, 0x11,
				 0, 0, 0, 1, 0xc0, 0xde, 0, 0};
	const uint8_t rt1[16] = {0, 0, 0x12, 0x22, 0, 0, 0x22, 0x22,
				 0, 0, 0, 1, 0xc0, 0xdf, 0, 0};
	for (size_t i = 0; i < 16; i++) {
		g[28 + i] = rt0[i];
		g[44 + i] = rt1[i];
	}
	EXPECT_EQ(smc_llc_add_ext_len(2), 60u);
	Bytes w = EncExt(*e);
	ASSERT_EQ(w.size(), g.size());
	for (size_t i = 0; i < g.size(); i++)
		EXPECT_EQ(w[i], g[i]) << "extension byte offset " << i;
	ExtPtr back = NewExt();
	ASSERT_EQ(DecExt(g, back.get()), SMC_LLC_OK);
	EXPECT_TRUE(SameExt(*back, *e));
	// not direct: the flag byte is 0
	e->direct = false;
	EXPECT_EQ(EncExt(*e)[0], 0x00);
}

TEST(LlcAddExt, CountFieldNotRead)
{
	ExtPtr e = ExtWith(2), back = NewExt();
	Bytes w = EncExt(*e);
	// Linux 6.1 on x86: the count in host order, little endian
	w[26] = 0x02;
	w[27] = 0x00;
	ASSERT_EQ(DecExt(w, back.get()), SMC_LLC_OK);
	EXPECT_TRUE(SameExt(*back, *e));
	// Linux counts RMBs it then skips: more than the entries sent
	for (unsigned c : {3u, 255u, 0x1234u, 0xffffu, 0u}) {
		w[26] = uint8_t(c >> 8);
		w[27] = uint8_t(c);
		ASSERT_EQ(DecExt(w, back.get()), SMC_LLC_OK) << c;
		EXPECT_EQ(back->num_rkeys, 2) << c;
		EXPECT_TRUE(SameExt(*back, *e)) << c;
	}
	// and the encoder writes the number of entries, big endian
	Bytes again = EncExt(*back);
	EXPECT_EQ(again[26], 0x00);
	EXPECT_EQ(again[27], 0x02);
}

TEST(LlcAddExt, ReservedIgnored)
{
	ExtPtr e = ExtWith(1), back = NewExt();
	Bytes w = EncExt(*e), noisy = w;
	noisy[0] |= 0x7f;			// reserved flag bits
	noisy[1] = 0xff;
	for (size_t i = 18; i < 26; i++)
		noisy[i] = 0xff;
	ASSERT_EQ(DecExt(noisy, back.get()), SMC_LLC_OK);
	EXPECT_TRUE(SameExt(*back, *e));
	EXPECT_EQ(EncExt(*back), w);
	noisy[0] = 0x7f;			// without the direct bit
	ASSERT_EQ(DecExt(noisy, back.get()), SMC_LLC_OK);
	EXPECT_FALSE(back->direct);
}

TEST(LlcAddExt, Malformed)
{
	ExtPtr e = NewExt();
	auto dirty = [&e] { std::memset(e.get(), 0xab, sizeof(*e)); };
	Bytes ok = EncExt(*ExtWith(3));
	for (size_t n = 0; n < 28; n++) {
		dirty();
		EXPECT_EQ(DecExt(Bytes(ok.begin(), ok.begin() + n), e.get()),
			  SMC_LLC_ERR_TRUNCATED) << n;
		EXPECT_TRUE(AllZero(*e)) << n;
	}
	// not whole entries: 28 + 15 and the others up to 3 entries
	for (size_t n = 29; n < ok.size(); n++) {
		if ((n - 28) % 16 == 0)
			continue;
		dirty();
		EXPECT_EQ(DecExt(Bytes(ok.begin(), ok.begin() + n), e.get()),
			  SMC_LLC_ERR_BAD_LENGTH) << n;
		EXPECT_TRUE(AllZero(*e)) << n;
	}
	dirty();
	EXPECT_EQ(DecExt(Bytes(28 + 15, 0), e.get()), SMC_LLC_ERR_BAD_LENGTH);
	EXPECT_TRUE(AllZero(*e));
	// 256 entries is one more than a group has connections
	dirty();
	EXPECT_EQ(DecExt(Bytes(smc_llc_add_ext_len(256), 0), e.get()),
		  SMC_LLC_ERR_BAD_COUNT);
	EXPECT_TRUE(AllZero(*e));
	dirty();
	EXPECT_EQ(smc_llc_add_ext_decode(nullptr, 28, e.get()), SMC_LLC_ERR_INVAL);
	EXPECT_TRUE(AllZero(*e));
	EXPECT_EQ(smc_llc_add_ext_decode(ok.data(), ok.size(), nullptr),
		  SMC_LLC_ERR_INVAL);
	// a whole entry count less than 256 is fine, 0 included
	ASSERT_EQ(DecExt(Bytes(28, 0), e.get()), SMC_LLC_OK);
	EXPECT_EQ(e->num_rkeys, 0);
}

TEST(LlcAddExt, RoundTrip)
{
	for (unsigned n : {0u, 1u, 255u}) {
		ExtPtr e = ExtWith(n), back = NewExt();
		Bytes w = EncExt(*e);
		ASSERT_EQ(w.size(), 28 + 16 * n) << n;
		EXPECT_EQ(w[26], uint8_t(n >> 8)) << n;
		EXPECT_EQ(w[27], uint8_t(n)) << n;
		ASSERT_EQ(DecExt(w, back.get()), SMC_LLC_OK) << n;
		EXPECT_TRUE(SameExt(*back, *e)) << n;
		EXPECT_EQ(EncExt(*back), w) << n;
		if (n) {		// the last entry, where it belongs
			size_t last = 28 + 16 * (n - 1);
			EXPECT_EQ(w[last + 3], uint8_t(n - 1)) << n;
			EXPECT_EQ(w[last + 7], uint8_t(n - 1)) << n;
		}
	}
}

TEST(LlcAddExt, EncoderErrorsWriteNothing)
{
	for (unsigned n : {0u, 2u, 255u}) {
		ExtPtr e = ExtWith(n);
		size_t need = smc_llc_add_ext_len(n);
		Bytes b(need + 16, 0x5a);
		for (size_t cap : {size_t(0), size_t(27), need - 1}) {
			EXPECT_EQ(smc_llc_add_ext_encode(e.get(), b.data(), cap),
				  SMC_LLC_ERR_NOSPACE) << n << "/" << cap;
			EXPECT_EQ(b, Bytes(need + 16, 0x5a)) << n << "/" << cap;
		}
		EXPECT_EQ(smc_llc_add_ext_encode(e.get(), nullptr, need),
			  SMC_LLC_ERR_NOSPACE);
		// exactly the length, whatever the capacity
		ASSERT_EQ(smc_llc_add_ext_encode(e.get(), b.data(), b.size()),
			  SMC_LLC_OK);
		EXPECT_EQ(Bytes(b.begin() + long(need), b.end()), Bytes(16, 0x5a));
	}
	ExtPtr e = ExtWith(1);
	e->num_rkeys = 256;
	Bytes b(smc_llc_add_ext_len(256), 0x5a);
	EXPECT_EQ(smc_llc_add_ext_encode(e.get(), b.data(), b.size()),
		  SMC_LLC_ERR_BAD_COUNT);
	EXPECT_EQ(b, Bytes(b.size(), 0x5a));
	EXPECT_EQ(smc_llc_add_ext_encode(nullptr, b.data(), b.size()),
		  SMC_LLC_ERR_INVAL);
	EXPECT_EQ(b, Bytes(b.size(), 0x5a));
}

TEST(LlcMalformed, Counts)
{
	smc_llc_msg m;
	// CONFIRM RKEY: at most 2 further rtokens fit
	Bytes b = Enc(Sample("llc_confirm_rkey"));
	for (unsigned n = 0; n < 256; n++) {
		b[4] = uint8_t(n);
		EXPECT_EQ(Dec(b, &m), n <= 2 ? SMC_LLC_OK : SMC_LLC_ERR_BAD_COUNT) << n;
	}
	// DELETE RKEY: at most 8 (Linux clamps; this decoder refuses)
	b = Enc(Sample("llc_delete_rkey"));
	for (unsigned n = 0; n < 256; n++) {
		b[4] = uint8_t(n);
		EXPECT_EQ(Dec(b, &m), n <= 8 ? SMC_LLC_OK : SMC_LLC_ERR_BAD_COUNT) << n;
	}
	// remaining-count fields: any value, at most 2 / 3 entries used
	b = Enc(Sample("llc_add_link_cont"));
	b[5] = 200;
	ASSERT_EQ(Dec(b, &m), SMC_LLC_OK);
	EXPECT_EQ(m.add_link_cont.num_rkeys, 200);
	EXPECT_EQ(m.add_link_cont.rt[1].rkey_new, 0x2222u);
	b[5] = 1;			// the second entry is then not decoded
	ASSERT_EQ(Dec(b, &m), SMC_LLC_OK);
	EXPECT_EQ(m.add_link_cont.rt[1].rkey_new, 0u);
	b = Enc(Sample("llc_confirm_rkey_cont"));
	b[4] = 255;
	b[31] = 7;
	ASSERT_EQ(Dec(b, &m), SMC_LLC_OK);
	EXPECT_EQ(m.confirm_rkey_cont.rtoken[2].link_id, 7);
	// encoders refuse what the wire cannot hold, and write nothing
	Bytes out(44, 0x5a);
	m = Sample("llc_confirm_rkey");
	m.confirm_rkey.num_rkeys = 3;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_BAD_COUNT);
	m = Sample("llc_delete_rkey");
	m.delete_rkey.num_rkeys = 9;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_BAD_COUNT);
	m = Sample("llc_add_link");
	m.add_link.sender_qpn = 0x1000000;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL);
	m = Sample("llc_add_link");
	m.add_link.qp_mtu = 16;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL);
	m = Sample("llc_confirm_link");
	m.confirm_link.sender_qpn = 0x1000000;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_INVAL);
	m.type = 0x05;
	EXPECT_EQ(smc_llc_encode(&m, out.data(), 44), SMC_LLC_ERR_BAD_TYPE);
	EXPECT_EQ(smc_llc_encode(nullptr, out.data(), 44), SMC_LLC_ERR_INVAL);
	EXPECT_EQ(out, Bytes(44, 0x5a));
}

TEST(LlcMalformed, RandomBytesNeverCrashAndRoundTrip)
{
	std::mt19937 rng(7609);
	size_t ok = 0;
	for (int i = 0; i < 200000; i++) {
		Bytes b(44);
		for (auto &x : b)
			x = uint8_t(rng());
		b[0] = uint8_t(1 + rng() % 9);
		b[1] = 44;
		smc_llc_msg m, again;
		if (Dec(b, &m) != SMC_LLC_OK)
			continue;
		ok++;
		Bytes w = Enc(m);
		ASSERT_EQ(Dec(w, &again), SMC_LLC_OK);
		ASSERT_TRUE(Same(m, again));
	}
	EXPECT_GT(ok, 100000u);
}

TEST(LlcText, EveryValueNamed)
{
	for (int e = 0; e <= SMC_LLC_ERR__MAX; e++)
		EXPECT_NE(smc_llc_err_text(smc_llc_err(e)), nullptr);
	EXPECT_STREQ(smc_llc_err_text(SMC_LLC_OK), "ok");
	EXPECT_STREQ(smc_llc_type_text(SMC_LLC_CONFIRM_LINK), "CONFIRM LINK");
	EXPECT_STREQ(smc_llc_type_text(SMC_LLC_DELETE_RKEY), "DELETE RKEY");
	EXPECT_STREQ(smc_llc_type_text(0x05), "unknown LLC type");
	for (unsigned t = 1; t <= 9; t++) {
		if (t != 5) {
			EXPECT_STRNE(smc_llc_type_text(uint8_t(t)),
				     "unknown LLC type");
		}
	}
}
