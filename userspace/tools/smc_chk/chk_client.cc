// SPDX-License-Identifier: GPL-2.0
//
// smc_chk -C HOST: connect to the test server, read its view of the
// connection, look at our own socket through sock_diag, and when SMC-R was
// not used, check the RDMA path to HOST.
#include <cerrno>
#include <cstring>

#include <rdma/rdma_cma.h>

#include "chk_report.h"
#include "chk_socket.h"
#include "clock.h"
#include "smc_chk.h"

namespace smc {

namespace {

std::string connect_error_text(int err, const ChkOptions &opt)
{
	std::string s = std::strerror(err);
	switch (err) {
	case ECONNREFUSED:
		return s + " (is 'smc_chk -S -p " + std::to_string(opt.port) + "' running there?)";
	case ETIMEDOUT:
		return "no answer within " + std::to_string(opt.timeout_s) + " s";
	case ENETUNREACH:
	case EHOSTUNREACH:
		return s + " (no IP route to the host)";
	default:
		return s;
	}
}

void conclude(std::ostream &out, ConnMode mode, const PathReport &p)
{
	out << "Conclusion: ";
	const StepResult *f = p.failed_step();
	if (f && f->step == CmStep::channel) {
		out << "this host cannot use RDMA (see above); SMC-R cannot work until it can.\n";
		return;
	}
	if (f && f->event == RDMA_CM_EVENT_REJECTED) {
		out << "the RDMA network to the peer works, but the peer refused the RDMA "
		       "connection (see above).\n";
		return;
	}
	if (!p.ok) {
		out << "the RDMA network to the peer is at fault (see above); SMC-R cannot work "
		       "until it is fixed";
		if (mode == ConnMode::smcd)
			out << ", but SMC-D is used and does not need it";
		out << ".\n";
		return;
	}
	if (mode == ConnMode::smcd)
		out << "SMC-D is used; the RDMA network would also allow SMC-R.\n";
	else if (mode == ConnMode::tcp)
		out << "the RDMA network works: SMC-R was not used because of the SMC "
		       "configuration or the peer (see the reasons above).\n";
	else
		out << "the RDMA network works.\n";
}

} // namespace

EndView query_end_view(nl::TransportFactory &factory, unsigned long inode)
{
	EndView v;
	auto socks = query_smc_sockets(factory, DiagRequest{});
	if (!socks) {
		v.error = socks.error().message;
		return v;
	}
	for (const auto &s : *socks)
		if (s.inode == inode)
			return end_view_of(s);
	v.error = "the socket is missing from the kernel's AF_SMC sock_diag dump";
	return v;
}

int chk_client(const ChkOptions &opt, ToolEnv &env, RdmaCm &cm)
{
	auto addr = resolve_host(opt.connect, opt.port, opt.ipv6);
	if (!addr) {
		env.err << "smc_chk: " << addr.error().message << '\n';
		return exit_error;
	}
	ConnReport rep;
	rep.peer = opt.connect;
	rep.address = address_text(*addr);
	rep.port = opt.port;
	rep.ipv6 = opt.ipv6;
	auto sock = open_chk_socket(opt.ipv6);
	if (!sock) {
		env.err << "smc_chk: " << sock.error().message << '\n';
		return exit_error;
	}
	rep.af_smc_note = sock->note;
	if (int err = connect_within(sock->fd.get(), *addr, opt.timeout_s * 1000)) {
		rep.connect_error = connect_error_text(err, opt);
	} else {
		// The server writes its line once its side is set up; by the time
		// it arrives, our side has finished its handshake too.
		auto line = read_line_within(sock->fd.get(), opt.timeout_s * 1000);
		if (!line)
			rep.server_error = line.error().message;
		else if (auto v = decode_server_line(*line))
			rep.server = *v;
		else
			rep.server_error = "the server's answer is not smc_chk's: '" + printable(*line) + "'";
		if (sock->af_smc) {
			rep.client = query_end_view(env.netlink, socket_inode(sock->fd.get()));
		} else {
			rep.client.af_smc = false;
			rep.client.mode = ConnMode::tcp;
		}
	}
	sock->fd = UniqueFd();
	print_conn_report(env.out, rep);
	ConnMode mode = conn_mode(rep);
	if (opt.debug && rep.server)
		env.out << "Server said: " << encode_server_line(*rep.server);

	if (opt.rdma && (mode != ConnMode::smcr || opt.rdma_always)) {
		env.out << '\n';
		env.out.flush();
		CmContext ctx;
		ctx.peer = rep.address;
		ctx.port = opt.port;
		ctx.timeout_s = opt.timeout_s;
		auto driver = cm.client();
		PathReport p = probe_rdma_path(*driver, reinterpret_cast<const sockaddr *>(&*addr), ctx,
					       monotonic_ms);
		driver.reset();
		print_path_report(env.out, p, ctx);
		conclude(env.out, mode, p);
	}
	if (!rep.connect_error.empty() || mode == ConnMode::unknown)
		return exit_error;
	return mode == ConnMode::tcp ? exit_tcp : exit_ok;
}

} // namespace smc
