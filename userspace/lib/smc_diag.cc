// SPDX-License-Identifier: GPL-2.0
#include "smc_diag.h"

#include <cerrno>
#include <cstddef>
#include <cstring>

#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>

#include <linux/smc_diag.h>

#include "nl_channel.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif

namespace smc {

namespace {

// The size each attribute had in Linux 6.1; shorter ones are malformed,
// longer ones come from newer kernels that appended members.
constexpr std::size_t conninfo_min = sizeof(smc_diag_conninfo);
constexpr std::size_t lgrinfo_min = sizeof(smc_diag_lgrinfo);
constexpr std::size_t dmbinfo_min = offsetof(smcd_diag_dmbinfo, peer_gid_ext);
constexpr std::size_t fallback_min = sizeof(smc_diag_fallback);

DiagCursor cursor(const smc_diag_cursor &c) { return DiagCursor{c.wrap, c.count}; }

template <std::size_t N>
std::string fixed_string(const __u8 (&chars)[N])
{
	std::size_t n = 0;
	while (n < N && chars[n])
		++n;
	return std::string(reinterpret_cast<const char *>(chars), n);
}

std::string format_ip(bool v6, const std::array<std::uint8_t, 16> &addr)
{
	char buf[INET6_ADDRSTRLEN] = "";
	inet_ntop(v6 ? AF_INET6 : AF_INET, addr.data(), buf, sizeof(buf));
	return buf;
}

} // namespace

std::string SmcSocket::local_ip() const { return format_ip(ipv6, local_addr); }
std::string SmcSocket::peer_ip() const { return format_ip(ipv6, peer_addr); }

nl::MessageBuilder smc_diag_request(const DiagRequest &req)
{
	smc_diag_req r{};
	r.diag_family = AF_SMC;
	auto bit = [](int ext) { return static_cast<std::uint8_t>(1u << (ext - 1)); };
	// Shutdown state and fallback reasons come unasked from 6.1 on; asking
	// for SMC_DIAG_SHUTDOWN costs nothing on kernels that want it asked.
	r.diag_ext = bit(SMC_DIAG_SHUTDOWN);
	if (req.conninfo)
		r.diag_ext |= bit(SMC_DIAG_CONNINFO);
	if (req.lgrinfo)
		r.diag_ext |= bit(SMC_DIAG_LGRINFO);
	if (req.dmbinfo)
		r.diag_ext |= bit(SMC_DIAG_DMBINFO);
	nl::MessageBuilder b(SOCK_DIAG_BY_FAMILY, 0);
	b.header(r);
	return b;
}

Result<SmcSocket> decode_smc_socket(const nl::Message &msg)
{
	if (msg.payload.size() < sizeof(smc_diag_msg))
		return make_error(EBADMSG, "truncated AF_SMC sock_diag message (" +
				  std::to_string(msg.payload.size()) + " bytes)");
	auto r = load<smc_diag_msg>(msg.payload);
	SmcSocket s;
	s.state = r.diag_state;
	s.mode = r.diag_mode;
	s.shutdown = r.diag_shutdown;
	std::memcpy(s.local_addr.data(), r.id.idiag_src, 16);
	std::memcpy(s.peer_addr.data(), r.id.idiag_dst, 16);
	// diag_family says AF_SMC for both address families, and the kernel
	// clears the address fields before filling them. So an address with
	// anything beyond its first 4 bytes is IPv6, one without is taken as
	// IPv4 (which misreads an IPv6 socket bound to :: or to an address whose
	// last 96 bits are zero, in both directions alike).
	auto beyond_v4 = [](const __be32 *a) { return a[1] || a[2] || a[3]; };
	s.ipv6 = beyond_v4(r.id.idiag_src) || beyond_v4(r.id.idiag_dst);
	s.local_port = ntohs(r.id.idiag_sport);
	s.peer_port = ntohs(r.id.idiag_dport);
	s.ifindex = r.id.idiag_if;
	s.uid = r.diag_uid;
	s.inode = r.diag_inode;

	constexpr std::size_t attrs_at = (sizeof(smc_diag_msg) + 3) & ~std::size_t{3};
	ByteView rest = msg.payload.size() > attrs_at ? ByteView(msg.payload).subspan(attrs_at)
						      : ByteView();
	auto attrs = nl::AttrSet::parse(rest);
	if (!attrs.well_formed())
		return make_error(EBADMSG, "malformed attributes in an AF_SMC sock_diag message");

	if (const auto *a = attrs.find(SMC_DIAG_SHUTDOWN); a && a->data.size() >= 1)
		s.shutdown_attr = a->data[0];
	if (const auto *a = attrs.find(SMC_DIAG_CONNINFO); a && a->data.size() >= conninfo_min) {
		auto c = load_prefix<smc_diag_conninfo>(a->data);
		ConnInfo ci;
		ci.token = c.token;
		ci.sndbuf_size = c.sndbuf_size;
		ci.rmbe_size = c.rmbe_size;
		ci.peer_rmbe_size = c.peer_rmbe_size;
		ci.rx_prod = cursor(c.rx_prod);
		ci.rx_cons = cursor(c.rx_cons);
		ci.tx_prod = cursor(c.tx_prod);
		ci.tx_cons = cursor(c.tx_cons);
		ci.rx_prod_flags = c.rx_prod_flags;
		ci.rx_conn_state_flags = c.rx_conn_state_flags;
		ci.tx_prod_flags = c.tx_prod_flags;
		ci.tx_conn_state_flags = c.tx_conn_state_flags;
		ci.tx_prep = cursor(c.tx_prep);
		ci.tx_sent = cursor(c.tx_sent);
		ci.tx_fin = cursor(c.tx_fin);
		s.conn = ci;
	}
	if (const auto *a = attrs.find(SMC_DIAG_LGRINFO); a && a->data.size() >= lgrinfo_min) {
		auto l = load_prefix<smc_diag_lgrinfo>(a->data);
		LgrInfo li;
		li.role = l.role;
		li.link_id = l.lnk[0].link_id;
		li.ib_name = fixed_string(l.lnk[0].ibname);
		li.ib_port = l.lnk[0].ibport;
		li.gid = fixed_string(l.lnk[0].gid);
		li.peer_gid = fixed_string(l.lnk[0].peer_gid);
		s.lgr = li;
	}
	if (const auto *a = attrs.find(SMC_DIAG_DMBINFO); a && a->data.size() >= dmbinfo_min) {
		auto d = load_prefix<smcd_diag_dmbinfo>(a->data);
		s.dmb = DmbInfo{d.linkid, d.peer_gid, d.my_gid, d.token, d.peer_token,
				d.peer_gid_ext, d.my_gid_ext};
	}
	if (const auto *a = attrs.find(SMC_DIAG_FALLBACK); a && a->data.size() >= fallback_min) {
		auto f = load_prefix<smc_diag_fallback>(a->data);
		s.fallback = FallbackInfo{f.reason, f.peer_diagnosis};
	}
	return s;
}

Result<std::vector<SmcSocket>> query_smc_sockets(nl::TransportFactory &factory,
						  const DiagRequest &req)
{
	auto t = factory.open(nl::Protocol::sock_diag);
	if (!t)
		return t.error();
	nl::Channel ch(**t);
	auto replies = ch.dump(smc_diag_request(req));
	if (!replies) {
		Error e = replies.error();
		// sock_diag answers ENOENT when no module handles the family.
		if (e.code == ENOENT)
			e.message = "SMC module not loaded (the kernel has no sock_diag handler for AF_SMC; "
				    "is smc_diag loaded?)";
		return e;
	}
	std::vector<SmcSocket> out;
	for (const auto &m : *replies) {
		if (m.type != SOCK_DIAG_BY_FAMILY)
			continue;
		auto s = decode_smc_socket(m);
		if (!s)
			return s.error();
		out.push_back(std::move(*s));
	}
	return out;
}

} // namespace smc
