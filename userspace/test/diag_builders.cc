// SPDX-License-Identifier: GPL-2.0
#include "diag_builders.h"

#include <cstring>

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include <linux/smc_diag.h>

namespace smc::test {

namespace {

void put_addr(const std::string &text, __be32 *out)
{
	std::memset(out, 0, 16);
	if (text.find(':') != std::string::npos)
		inet_pton(AF_INET6, text.c_str(), out);
	else
		inet_pton(AF_INET, text.c_str(), out);
}

template <std::size_t N>
void put_chars(__u8 (&dst)[N], const std::string &s)
{
	std::memset(dst, 0, N);
	std::memcpy(dst, s.data(), std::min(N, s.size()));
}

} // namespace

Bytes diag_msg(const DiagSock &s, std::uint32_t seq)
{
	smc_diag_msg m{};
	m.diag_family = 43;
	m.diag_state = s.state;
	m.diag_mode = s.mode;
	m.diag_shutdown = s.shutdown;
	put_addr(s.local, m.id.idiag_src);
	put_addr(s.peer, m.id.idiag_dst);
	m.id.idiag_sport = htons(s.sport);
	m.id.idiag_dport = htons(s.dport);
	m.id.idiag_if = s.ifindex;
	m.diag_uid = s.uid;
	m.diag_inode = s.inode;
	nl::MessageBuilder b(SOCK_DIAG_BY_FAMILY, NLM_F_MULTI);
	b.header(m);
	auto w = b.attrs();
	w.put_u8(SMC_DIAG_SHUTDOWN, s.shutdown);
	if (s.fallback) {
		smc_diag_fallback f{s.fallback->reason, s.fallback->peer_diagnosis};
		w.put(SMC_DIAG_FALLBACK, ByteView(reinterpret_cast<const std::uint8_t *>(&f), sizeof(f)));
	}
	if (s.conninfo) {
		smc_diag_conninfo c{};
		c.token = 0x1234;
		c.sndbuf_size = 0x10000;
		c.rmbe_size = 0x20000;
		c.peer_rmbe_size = 0x8000;
		c.rx_prod = {0, 1, 0x100};
		c.rx_cons = {0, 1, 0x80};
		c.tx_prod = {0, 2, 0x200};
		c.tx_cons = {0, 2, 0x180};
		c.rx_prod_flags = 0x01;
		c.rx_conn_state_flags = 0x02;
		c.tx_prod_flags = 0x03;
		c.tx_conn_state_flags = 0x04;
		c.tx_prep = {0, 3, 0x5000};
		c.tx_sent = {0, 3, 0x6000};
		c.tx_fin = {0, 3, 0x7000};
		w.put(SMC_DIAG_CONNINFO, ByteView(reinterpret_cast<const std::uint8_t *>(&c), sizeof(c)));
	}
	if (s.lgr) {
		smc_diag_lgrinfo l{};
		l.role = s.lgr->role;
		l.lnk[0].link_id = s.lgr->link_id;
		l.lnk[0].ibport = s.lgr->ib_port;
		put_chars(l.lnk[0].ibname, s.lgr->ib_name);
		put_chars(l.lnk[0].gid, s.lgr->gid);
		put_chars(l.lnk[0].peer_gid, s.lgr->peer_gid);
		w.put(SMC_DIAG_LGRINFO, ByteView(reinterpret_cast<const std::uint8_t *>(&l), sizeof(l)));
	}
	if (s.dmb) {
		smcd_diag_dmbinfo d{};
		d.linkid = s.dmb->link_id;
		d.peer_gid = s.dmb->peer_gid;
		d.my_gid = s.dmb->my_gid;
		d.token = s.dmb->token;
		d.peer_token = s.dmb->peer_token;
		d.peer_gid_ext = s.dmb->peer_gid_ext;
		d.my_gid_ext = s.dmb->my_gid_ext;
		w.put(SMC_DIAG_DMBINFO, ByteView(reinterpret_cast<const std::uint8_t *>(&d), sizeof(d)));
	}
	if (s.extra)
		s.extra(w);
	return b.finish(seq, 1234);
}

} // namespace smc::test
