// SPDX-License-Identifier: GPL-2.0
// CDC messages: layout, golden bytes, round trips and malformed input for the
// SMC-R (44 bytes) and SMC-D (32 bytes) forms. Golden bytes are placed at
// literal offsets from RFC 7609 / Linux 6.1 net/smc/smc_cdc.h, not computed
// from smc_cdc_layout.h.
#include <cstddef>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "smc_cdc.h"
#include "smc_cdc_layout.h"

#define SZ(t) sizeof(struct t)
#define OFF(t, m) offsetof(struct t, m)

// SMC-R: type 0, len 1, seqno 2, token 4, prod 8 (reserved 2, wrap 2,
// count 4), cons 16, prod flags 24, conn state flags 25, reserved 26..43,
// where af_smc keeps its own: cons and prod generation 26 and 27, ring
// class 28, ring key 30..33 and ring token 34..41.
static_assert(SZ(smc_cdc_wire_msg) == 44);
static_assert(OFF(smc_cdc_wire_msg, len) == 1);
static_assert(OFF(smc_cdc_wire_msg, seqno) == 2);
static_assert(OFF(smc_cdc_wire_msg, token) == 4);
static_assert(OFF(smc_cdc_wire_msg, prod.wrap) == 10);
static_assert(OFF(smc_cdc_wire_msg, prod.count) == 12);
static_assert(OFF(smc_cdc_wire_msg, cons.wrap) == 18);
static_assert(OFF(smc_cdc_wire_msg, cons.count) == 20);
static_assert(OFF(smc_cdc_wire_msg, conn_state_flags) == 25);
static_assert(OFF(smc_cdc_wire_msg, cons_gen) == 26);
static_assert(OFF(smc_cdc_wire_msg, prod_gen) == 27);
static_assert(OFF(smc_cdc_wire_msg, ring_class) == 28);
static_assert(OFF(smc_cdc_wire_msg, ring_key) == 30);
static_assert(OFF(smc_cdc_wire_msg, ring_token) == 34);
// SMC-D (struct smcd_cdc_msg): type 0, reserved 1..7, prod 8 (wrap 2,
// count 4, two flag bytes), cons 16, reserved 24..31; af_smc's own ring
// class 1, cons generation 2 and ring token 24..31 in Linux's reserved.
static_assert(SZ(smcd_cdc_wire_msg) == 32);
static_assert(OFF(smcd_cdc_wire_msg, prod.wrap) == 8);
static_assert(OFF(smcd_cdc_wire_msg, prod.count) == 10);
static_assert(OFF(smcd_cdc_wire_msg, cons.wrap) == 16);
static_assert(OFF(smcd_cdc_wire_msg, cons.count) == 18);
static_assert(OFF(smcd_cdc_wire_msg, cons.prod_flags) == 22);
static_assert(OFF(smcd_cdc_wire_msg, cons.conn_state_flags) == 23);
static_assert(OFF(smcd_cdc_wire_msg, ring_class) == 1);
static_assert(OFF(smcd_cdc_wire_msg, cons_gen) == 2);
static_assert(OFF(smcd_cdc_wire_msg, ring_token) == 24);
static_assert(alignof(struct smc_cdc_wire_msg) == 1);
static_assert(alignof(struct smcd_cdc_wire_msg) == 1);
static_assert(SMC_CDC_R_LEN == 44 && SMC_CDC_D_LEN == 32);

namespace {

using Bytes = std::vector<uint8_t>;

smc_cdc_msg Full()
{
	smc_cdc_msg m{};
	m.seqno = 0x1234;
	m.token = 0xa1b2c3d4;
	m.prod = {0x0102, 0x00030405};
	m.cons = {0xfffe, 0x8000ffff};
	m.write_blocked = true;
	m.urg_data_present = true;
	m.failover_validation = true;
	m.peer_conn_closed = true;
	return m;
}

bool Same(const smc_cdc_msg &a, const smc_cdc_msg &b)
{
	return a.seqno == b.seqno && a.token == b.token &&
	       a.prod.wrap == b.prod.wrap && a.prod.count == b.prod.count &&
	       a.cons.wrap == b.cons.wrap && a.cons.count == b.cons.count &&
	       a.write_blocked == b.write_blocked &&
	       a.urg_data_pending == b.urg_data_pending &&
	       a.urg_data_present == b.urg_data_present &&
	       a.cons_curs_upd_req == b.cons_curs_upd_req &&
	       a.failover_validation == b.failover_validation &&
	       a.peer_done_writing == b.peer_done_writing &&
	       a.peer_conn_closed == b.peer_conn_closed &&
	       a.peer_conn_abort == b.peer_conn_abort &&
	       a.ring_token == b.ring_token && a.ring_class == b.ring_class &&
	       a.cons_gen == b.cons_gen && a.ring_key == b.ring_key &&
	       a.prod_gen == b.prod_gen;
}

// exactly sized heap copy, so ASan builds see any over-read
template <typename F> smc_cdc_err Dec(F f, const Bytes &b, smc_cdc_msg *m)
{
	std::unique_ptr<uint8_t[]> p(new uint8_t[b.size() ? b.size() : 1]);
	if (!b.empty())
		std::memcpy(p.get(), b.data(), b.size());
	return f(p.get(), b.size(), m);
}

Bytes EncR(const smc_cdc_msg &m)
{
	Bytes b(SMC_CDC_R_LEN, 0xcc);
	EXPECT_EQ(smc_cdc_encode_r(&m, b.data(), b.size()), SMC_CDC_OK);
	return b;
}

Bytes EncD(const smc_cdc_msg &m)
{
	Bytes b(SMC_CDC_D_LEN, 0xcc);
	EXPECT_EQ(smc_cdc_encode_d(&m, b.data(), b.size()), SMC_CDC_OK);
	return b;
}

const Bytes kGoldenR = {
	0xfe, 0x2c, 0x12, 0x34, 0xa1, 0xb2, 0xc3, 0xd4,	// type, len, seqno, token
	0x00, 0x00, 0x01, 0x02, 0x00, 0x03, 0x04, 0x05,	// prod
	0x00, 0x00, 0xff, 0xfe, 0x80, 0x00, 0xff, 0xff,	// cons
	0xa8, 0x40, 0, 0, 0, 0, 0, 0,			// flags, reserved
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

const Bytes kGoldenD = {
	0xfe, 0, 0, 0, 0, 0, 0, 0,			// type, reserved
	0x01, 0x02, 0x00, 0x03, 0x04, 0x05, 0x00, 0x00,	// prod, no flags
	0xff, 0xfe, 0x80, 0x00, 0xff, 0xff, 0xa8, 0x40,	// cons + flags
	0, 0, 0, 0, 0, 0, 0, 0,
};

} // namespace

TEST(CdcGolden, SmcR)
{
	smc_cdc_msg m = Full();
	EXPECT_EQ(EncR(m), kGoldenR);
	smc_cdc_msg back;
	ASSERT_EQ(Dec(smc_cdc_decode_r, kGoldenR, &back), SMC_CDC_OK);
	EXPECT_TRUE(Same(back, m));
}

TEST(CdcGolden, SmcD)
{
	smc_cdc_msg m = Full();
	EXPECT_EQ(EncD(m), kGoldenD);
	smc_cdc_msg back;
	ASSERT_EQ(Dec(smc_cdc_decode_d, kGoldenD, &back), SMC_CDC_OK);
	// SMC-D has no sequence number and no token
	m.seqno = 0;
	m.token = 0;
	EXPECT_TRUE(Same(back, m));
}

TEST(CdcGolden, SmcDRingOffer)
{
	// af_smc's own fields: class at 1, generation at 2, token big endian
	// at 24; the SMC-D form has no ring key and no producer generation
	// (the reader knows where the message is) and drops them.
	smc_cdc_msg m = Full();
	m.seqno = 0;
	m.token = 0;
	m.ring_class = 4;
	m.cons_gen = 0x81;
	m.ring_token = 0x0102030405060708ULL;
	Bytes want = kGoldenD;
	want[1] = 4;
	want[2] = 0x81;
	for (size_t i = 0; i < 8; i++)
		want[24 + i] = uint8_t(i + 1);
	EXPECT_EQ(EncD(m), want);
	smc_cdc_msg back;
	ASSERT_EQ(Dec(smc_cdc_decode_d, want, &back), SMC_CDC_OK);
	EXPECT_TRUE(Same(back, m));
	smc_cdc_msg more = m;
	more.ring_key = 0x11223344;
	more.prod_gen = 7;
	EXPECT_EQ(EncD(more), want);
}

TEST(CdcGolden, SmcRRingOffer)
{
	// The SMC-R form: generations at 26 and 27, class at 28, the key big
	// endian at 30, the token (the RMB's address) big endian at 34.
	smc_cdc_msg m = Full();
	m.cons_gen = 0x81;
	m.prod_gen = 0x82;
	m.ring_class = 4;
	m.ring_key = 0x11223344;
	m.ring_token = 0x0102030405060708ULL;
	Bytes want = kGoldenR;
	want[26] = 0x81;
	want[27] = 0x82;
	want[28] = 4;
	want[30] = 0x11;
	want[31] = 0x22;
	want[32] = 0x33;
	want[33] = 0x44;
	for (size_t i = 0; i < 8; i++)
		want[34 + i] = uint8_t(i + 1);
	EXPECT_EQ(EncR(m), want);
	smc_cdc_msg back;
	ASSERT_EQ(Dec(smc_cdc_decode_r, want, &back), SMC_CDC_OK);
	EXPECT_TRUE(Same(back, m));
}

TEST(CdcGolden, EachFlagBit)
{
	// one flag at a time lands on its own bit, MSB first, in both forms
	struct {
		bool smc_cdc_msg::*f;
		size_t r_off, d_off;
		uint8_t bit;
	} flags[] = {
		{&smc_cdc_msg::write_blocked, 24, 22, 0x80},
		{&smc_cdc_msg::urg_data_pending, 24, 22, 0x40},
		{&smc_cdc_msg::urg_data_present, 24, 22, 0x20},
		{&smc_cdc_msg::cons_curs_upd_req, 24, 22, 0x10},
		{&smc_cdc_msg::failover_validation, 24, 22, 0x08},
		{&smc_cdc_msg::peer_done_writing, 25, 23, 0x80},
		{&smc_cdc_msg::peer_conn_closed, 25, 23, 0x40},
		{&smc_cdc_msg::peer_conn_abort, 25, 23, 0x20},
	};
	for (auto &f : flags) {
		smc_cdc_msg m{};
		m.*f.f = true;
		Bytes r = EncR(m), d = EncD(m);
		for (size_t i = 0; i < r.size(); i++) {
			uint8_t want = i == 0 ? 0xfe : i == 1 ? 44 :
				       i == f.r_off ? f.bit : 0;
			EXPECT_EQ(r[i], want) << "R byte " << i;
		}
		for (size_t i = 0; i < d.size(); i++) {
			uint8_t want = i == 0 ? 0xfe : i == f.d_off ? f.bit : 0;
			EXPECT_EQ(d[i], want) << "D byte " << i;
		}
		smc_cdc_msg back;
		ASSERT_EQ(Dec(smc_cdc_decode_r, r, &back), SMC_CDC_OK);
		EXPECT_TRUE(Same(back, m));
		ASSERT_EQ(Dec(smc_cdc_decode_d, d, &back), SMC_CDC_OK);
		EXPECT_TRUE(Same(back, m));
	}
}

TEST(CdcRoundTrip, Random)
{
	std::mt19937 rng(7609);
	for (int i = 0; i < 2000; i++) {
		smc_cdc_msg m{};
		m.seqno = uint16_t(rng());
		m.token = uint32_t(rng());
		m.prod = {uint16_t(rng()), uint32_t(rng())};
		m.cons = {uint16_t(rng()), uint32_t(rng())};
		uint32_t f = uint32_t(rng());
		m.write_blocked = f & 1;
		m.urg_data_pending = f & 2;
		m.urg_data_present = f & 4;
		m.cons_curs_upd_req = f & 8;
		m.failover_validation = f & 16;
		m.peer_done_writing = f & 32;
		m.peer_conn_closed = f & 64;
		m.peer_conn_abort = f & 128;
		smc_cdc_msg back;
		ASSERT_EQ(Dec(smc_cdc_decode_r, EncR(m), &back), SMC_CDC_OK);
		ASSERT_TRUE(Same(back, m));
		m.ring_token = uint64_t(rng()) << 32 | rng();
		m.ring_class = uint8_t(rng());
		m.cons_gen = uint8_t(rng());
		m.prod_gen = uint8_t(rng());
		m.ring_key = uint32_t(rng());
		ASSERT_EQ(Dec(smc_cdc_decode_r, EncR(m), &back), SMC_CDC_OK);
		ASSERT_TRUE(Same(back, m));
		m.prod_gen = 0;
		m.ring_key = 0;
		ASSERT_EQ(Dec(smc_cdc_decode_d, EncD(m), &back), SMC_CDC_OK);
		m.seqno = 0;
		m.token = 0;
		ASSERT_TRUE(Same(back, m));
	}
}

TEST(CdcEncode, NeverPastCapacity)
{
	smc_cdc_msg m = Full();
	for (size_t cap = 0; cap < SMC_CDC_R_LEN; cap++) {
		Bytes b(64, 0x5a);
		EXPECT_EQ(smc_cdc_encode_r(&m, b.data(), cap), SMC_CDC_ERR_NOSPACE);
		EXPECT_EQ(b, Bytes(64, 0x5a)) << "wrote with cap " << cap;
	}
	for (size_t cap = 0; cap < SMC_CDC_D_LEN; cap++) {
		Bytes b(64, 0x5a);
		EXPECT_EQ(smc_cdc_encode_d(&m, b.data(), cap), SMC_CDC_ERR_NOSPACE);
		EXPECT_EQ(b, Bytes(64, 0x5a)) << "wrote with cap " << cap;
	}
	// a bigger buffer: exactly the message is written, the rest untouched
	Bytes b(64, 0x5a);
	ASSERT_EQ(smc_cdc_encode_r(&m, b.data(), b.size()), SMC_CDC_OK);
	EXPECT_EQ(Bytes(b.begin(), b.begin() + 44), kGoldenR);
	EXPECT_EQ(Bytes(b.begin() + 44, b.end()), Bytes(20, 0x5a));
	b.assign(64, 0x5a);
	ASSERT_EQ(smc_cdc_encode_d(&m, b.data(), b.size()), SMC_CDC_OK);
	EXPECT_EQ(Bytes(b.begin(), b.begin() + 32), kGoldenD);
	EXPECT_EQ(Bytes(b.begin() + 32, b.end()), Bytes(32, 0x5a));

	EXPECT_EQ(smc_cdc_encode_r(&m, nullptr, 100), SMC_CDC_ERR_NOSPACE);
	EXPECT_EQ(smc_cdc_encode_d(&m, nullptr, 100), SMC_CDC_ERR_NOSPACE);
	EXPECT_EQ(smc_cdc_encode_r(nullptr, b.data(), b.size()), SMC_CDC_ERR_INVAL);
	EXPECT_EQ(smc_cdc_encode_d(nullptr, b.data(), b.size()), SMC_CDC_ERR_INVAL);
}

TEST(CdcMalformed, TruncatedAndTrailing)
{
	smc_cdc_msg m;
	for (size_t n = 0; n < kGoldenR.size(); n++)
		EXPECT_EQ(Dec(smc_cdc_decode_r, Bytes(kGoldenR.begin(),
						      kGoldenR.begin() + n), &m),
			  SMC_CDC_ERR_TRUNCATED) << n;
	for (size_t n = 0; n < kGoldenD.size(); n++)
		EXPECT_EQ(Dec(smc_cdc_decode_d, Bytes(kGoldenD.begin(),
						      kGoldenD.begin() + n), &m),
			  SMC_CDC_ERR_TRUNCATED) << n;
	for (size_t extra : {1u, 4u, 100u}) {
		Bytes r = kGoldenR, d = kGoldenD;
		r.resize(r.size() + extra);
		d.resize(d.size() + extra);
		EXPECT_EQ(Dec(smc_cdc_decode_r, r, &m), SMC_CDC_ERR_TRAILING);
		EXPECT_EQ(Dec(smc_cdc_decode_d, d, &m), SMC_CDC_ERR_TRAILING);
	}
	// an SMC-D message is not an SMC-R one and vice versa
	EXPECT_EQ(Dec(smc_cdc_decode_r, kGoldenD, &m), SMC_CDC_ERR_TRUNCATED);
	EXPECT_EQ(Dec(smc_cdc_decode_d, kGoldenR, &m), SMC_CDC_ERR_TRAILING);
	EXPECT_EQ(smc_cdc_decode_r(nullptr, 44, &m), SMC_CDC_ERR_INVAL);
	EXPECT_EQ(smc_cdc_decode_d(nullptr, 32, &m), SMC_CDC_ERR_INVAL);
	EXPECT_EQ(smc_cdc_decode_r(kGoldenR.data(), 44, nullptr), SMC_CDC_ERR_INVAL);
	EXPECT_EQ(smc_cdc_decode_d(kGoldenD.data(), 32, nullptr), SMC_CDC_ERR_INVAL);
}

TEST(CdcMalformed, WrongTypeAndLength)
{
	smc_cdc_msg m;
	for (unsigned t = 0; t < 256; t++) {
		if (t == 0xfe)
			continue;
		Bytes r = kGoldenR, d = kGoldenD;
		r[0] = uint8_t(t);
		d[0] = uint8_t(t);
		EXPECT_EQ(Dec(smc_cdc_decode_r, r, &m), SMC_CDC_ERR_BAD_TYPE) << t;
		EXPECT_EQ(Dec(smc_cdc_decode_d, d, &m), SMC_CDC_ERR_BAD_TYPE) << t;
	}
	for (unsigned l = 0; l < 256; l++) {
		if (l == 44)
			continue;
		Bytes r = kGoldenR;
		r[1] = uint8_t(l);
		EXPECT_EQ(Dec(smc_cdc_decode_r, r, &m), SMC_CDC_ERR_BAD_LENGTH) << l;
	}
	// a failed decode leaves no stale fields behind
	m = Full();
	Bytes r = kGoldenR;
	r[1] = 43;
	ASSERT_EQ(Dec(smc_cdc_decode_r, r, &m), SMC_CDC_ERR_BAD_LENGTH);
	EXPECT_TRUE(Same(m, smc_cdc_msg{}));
}

TEST(CdcMalformed, ReservedIgnoredLikeLinux)
{
	// Linux 6.1 reads only the named bits and fields; so does the decoder.
	// The re-encoded message has the reserved parts zero again.
	Bytes r = kGoldenR, d = kGoldenD;
	r[8] = r[9] = r[16] = r[17] = 0xff;	// cursor reserved halfwords
	r[24] |= 0x07;				// reserved producer flag bits
	r[25] |= 0x1f;				// reserved state flag bits
	r[29] = r[42] = r[43] = 0xff;		// 26..41 but 29: af_smc's
	for (size_t i = 3; i < 8; i++)		// 1, 2, 24..31: af_smc's
		d[i] = 0xff;
	d[14] = d[15] = 0xff;			// flag bytes of prod: unused
	d[22] |= 0x07;
	d[23] |= 0x1f;
	smc_cdc_msg m;
	ASSERT_EQ(Dec(smc_cdc_decode_r, r, &m), SMC_CDC_OK);
	EXPECT_TRUE(Same(m, Full()));
	EXPECT_EQ(EncR(m), kGoldenR);
	ASSERT_EQ(Dec(smc_cdc_decode_d, d, &m), SMC_CDC_OK);
	EXPECT_EQ(EncD(m), kGoldenD);
}

TEST(CdcErrText, EveryValueNamed)
{
	for (int e = 0; e <= SMC_CDC_ERR__MAX; e++) {
		const char *t = smc_cdc_err_text(smc_cdc_err(e));
		ASSERT_NE(t, nullptr);
		EXPECT_GT(std::strlen(t), 1u);
	}
	EXPECT_STREQ(smc_cdc_err_text(SMC_CDC_OK), "ok");
	EXPECT_STRNE(smc_cdc_err_text(SMC_CDC_ERR_TRUNCATED),
		     smc_cdc_err_text(SMC_CDC_ERR_TRAILING));
	EXPECT_STREQ(smc_cdc_err_text(smc_cdc_err(99)), "unknown CDC error");
}
