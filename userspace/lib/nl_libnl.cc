// SPDX-License-Identifier: GPL-2.0
#include "nl_libnl.h"

#include <cerrno>
#include <cstdlib>
#include <string>

#include <linux/netlink.h>
#include <sys/socket.h>

#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace smc::nl {

namespace {

// libnl reports -NLE_* codes; keep an errno for the callers that branch on it.
int errno_of(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case NLE_PERM: return EPERM;
	case NLE_NOACCESS: return EACCES;
	case NLE_OBJ_NOTFOUND: return ENOENT;
	case NLE_NOMEM: return ENOMEM;
	case NLE_AF_NOSUPPORT: return EAFNOSUPPORT;
	case NLE_PROTO_MISMATCH: return EPROTONOSUPPORT;
	case NLE_OPNOTSUPP: return EOPNOTSUPP;
	case NLE_MSG_TRUNC: return EMSGSIZE;
	default: return EIO;
	}
}

Error libnl_error(int nle, const std::string &what)
{
	return make_error(errno_of(nle), what + ": " + nl_geterror(nle));
}

class LibnlTransport : public Transport {
public:
	explicit LibnlTransport(nl_sock *sk) : sk_(sk) {}
	~LibnlTransport() override { nl_socket_free(sk_); }
	LibnlTransport(const LibnlTransport &) = delete;
	LibnlTransport &operator=(const LibnlTransport &) = delete;

	Result<void> send(ByteView request) override
	{
		int rc = nl_sendto(sk_, const_cast<std::uint8_t *>(request.data()), request.size());
		if (rc < 0)
			return libnl_error(rc, "netlink send");
		return {};
	}

	Result<Bytes> receive() override
	{
		sockaddr_nl from{};
		unsigned char *buf = nullptr;
		int n = nl_recv(sk_, &from, &buf, nullptr);
		if (n < 0)
			return libnl_error(n, "netlink receive");
		Bytes out(buf, buf + n);
		std::free(buf);
		return out;
	}

	Result<std::uint16_t> resolve_family(std::string_view name) override
	{
		int id = genl_ctrl_resolve(sk_, std::string(name).c_str());
		if (id == -NLE_OBJ_NOTFOUND)
			return make_error(ENOENT, "no generic netlink family " + std::string(name));
		if (id < 0)
			return libnl_error(id, "generic netlink family " + std::string(name));
		return static_cast<std::uint16_t>(id);
	}

private:
	nl_sock *sk_;
};

} // namespace

Result<std::unique_ptr<Transport>> LibnlFactory::open(Protocol protocol)
{
	nl_sock *sk = nl_socket_alloc();
	if (!sk)
		return make_error(ENOMEM, "cannot allocate a netlink socket");
	int proto = protocol == Protocol::sock_diag ? NETLINK_SOCK_DIAG : NETLINK_GENERIC;
	if (int rc = nl_connect(sk, proto); rc < 0) {
		nl_socket_free(sk);
		return libnl_error(rc, std::string("cannot open a netlink socket (") +
					       protocol_name(protocol) + ")");
	}
	// Large dumps arrive in datagrams bigger than libnl's default buffer.
	nl_socket_enable_msg_peek(sk);
	nl_socket_set_buffer_size(sk, 1 << 20, 0);
	// Ask for the kernel's error text; older kernels refuse, which is fine.
	int one = 1;
	(void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return std::unique_ptr<Transport>(new LibnlTransport(sk));
}

} // namespace smc::nl
