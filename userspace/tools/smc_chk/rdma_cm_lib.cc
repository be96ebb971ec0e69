// SPDX-License-Identifier: GPL-2.0
//
// The real RDMA CM for smc_chk, through librdmacm (rdma-core). Only the
// smc_chk program links this file; the tools' core library and the host
// tests see the CmDriver/CmListener interfaces.
#include "rdma_cm_lib.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#include "chk_socket.h"
#include "clock.h"

namespace smc {

namespace {

constexpr const char *cm_device = "/dev/infiniband/rdma_cm";
constexpr char private_data[] = "smc_chk";
// Connections the server keeps at once; more are rejected, so a peer cannot
// use up the device's queue pairs.
constexpr std::size_t max_server_conns = 64;

int err_or(int fallback) { return errno ? errno : fallback; }

// A channel whose fd never blocks: waiting is poll()'s job, with a timeout.
int open_channel(rdma_event_channel *&ch)
{
	// Without the character device librdmacm fails with varying errno
	// values; ENOENT says "load rdma_ucm" (cm_events.cc).
	if (access(cm_device, R_OK | W_OK) != 0)
		return errno == EACCES ? EACCES : ENOENT;
	errno = 0;
	ch = rdma_create_event_channel();
	if (!ch)
		return err_or(ENODEV);
	int flags = fcntl(ch->fd, F_GETFL);
	if (flags < 0 || fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return errno;
	return 0;
}

void small_qp_attr(ibv_qp_init_attr &a)
{
	std::memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = 1;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
}

void small_conn_param(rdma_conn_param &p)
{
	std::memset(&p, 0, sizeof(p));
	p.private_data = private_data;
	p.private_data_len = sizeof(private_data);
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 3;
	p.rnr_retry_count = 3;
}

class LibCmDriver : public CmDriver {
public:
	~LibCmDriver() override
	{
		if (qp_)
			rdma_destroy_qp(id_);
		if (id_)
			rdma_destroy_id(id_);
		if (ch_)
			rdma_destroy_event_channel(ch_);
	}

	int open() override
	{
		if (int rc = open_channel(ch_))
			return rc;
		errno = 0;
		if (rdma_create_id(ch_, &id_, nullptr, RDMA_PS_TCP)) {
			id_ = nullptr;
			return err_or(EIO);
		}
		return 0;
	}

	int resolve_addr(const sockaddr *peer, int timeout_ms) override
	{
		errno = 0;
		return rdma_resolve_addr(id_, nullptr, const_cast<sockaddr *>(peer), timeout_ms)
			       ? err_or(EIO) : 0;
	}

	int resolve_route(int timeout_ms) override
	{
		errno = 0;
		return rdma_resolve_route(id_, timeout_ms) ? err_or(EIO) : 0;
	}

	int create_qp() override
	{
		ibv_qp_init_attr a;
		small_qp_attr(a);
		errno = 0;
		if (rdma_create_qp(id_, nullptr, &a))
			return err_or(EIO);
		qp_ = true;
		return 0;
	}

	int connect() override
	{
		rdma_conn_param p;
		small_conn_param(p);
		errno = 0;
		return rdma_connect(id_, &p) ? err_or(EIO) : 0;
	}

	int disconnect() override
	{
		errno = 0;
		return rdma_disconnect(id_) ? err_or(EIO) : 0;
	}

	int next_event(int timeout_ms, CmEvent &ev) override
	{
		long deadline = monotonic_ms() + timeout_ms;
		for (;;) {
			rdma_cm_event *e = nullptr;
			if (rdma_get_cm_event(ch_, &e) == 0) {
				ev.type = e->event;
				ev.status = e->status;
				rdma_ack_cm_event(e);
				return 0;
			}
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				return errno;
			long left = deadline - monotonic_ms();
			if (left <= 0)
				return ETIMEDOUT;
			pollfd p{ch_->fd, POLLIN, 0};
			if (poll(&p, 1, static_cast<int>(left)) < 0 && errno != EINTR)
				return errno;
		}
	}

	std::string device() const override
	{
		if (!id_ || !id_->verbs || !id_->verbs->device)
			return {};
		return std::string(ibv_get_device_name(id_->verbs->device)) + " port " +
		       std::to_string(id_->port_num);
	}

private:
	rdma_event_channel *ch_ = nullptr;
	rdma_cm_id *id_ = nullptr;
	bool qp_ = false;
};

std::string peer_text(rdma_cm_id *id)
{
	sockaddr *sa = rdma_get_peer_addr(id);
	if (!sa || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
		return "?";
	sockaddr_storage ss{};
	std::memcpy(&ss, sa, sa->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
	return address_text(ss);
}

class LibCmListener : public CmListener {
public:
	~LibCmListener() override
	{
		for (auto *id : conns_)
			drop(id);
		if (listen_id_)
			rdma_destroy_id(listen_id_);
		if (ch_)
			rdma_destroy_event_channel(ch_);
	}

	int listen(unsigned port, bool ipv6, bool reject) override
	{
		reject_ = reject;
		if (int rc = open_channel(ch_))
			return rc;
		errno = 0;
		if (rdma_create_id(ch_, &listen_id_, nullptr, RDMA_PS_TCP)) {
			listen_id_ = nullptr;
			return err_or(EIO);
		}
		sockaddr_storage a{};
		if (ipv6) {
			auto &a6 = reinterpret_cast<sockaddr_in6 &>(a);
			a6.sin6_family = AF_INET6;
			a6.sin6_addr = in6addr_any;
			a6.sin6_port = htons(static_cast<std::uint16_t>(port));
		} else {
			auto &a4 = reinterpret_cast<sockaddr_in &>(a);
			a4.sin_family = AF_INET;
			a4.sin_addr.s_addr = htonl(INADDR_ANY);
			a4.sin_port = htons(static_cast<std::uint16_t>(port));
		}
		errno = 0;
		if (rdma_bind_addr(listen_id_, reinterpret_cast<sockaddr *>(&a)))
			return err_or(EIO);
		if (rdma_listen(listen_id_, 8))
			return err_or(EIO);
		return 0;
	}

	int fd() const override { return ch_ ? ch_->fd : -1; }

	void handle_events(std::ostream &log, bool debug) override
	{
		for (;;) {
			rdma_cm_event *e = nullptr;
			if (!ch_ || rdma_get_cm_event(ch_, &e) != 0)
				return;	// EAGAIN: nothing more pending
			int type = e->event, status = e->status;
			rdma_cm_id *id = e->id;
			if (debug)
				log << "RDMA CM: " << rdma_event_str(e->event) << " status " << status
				    << std::endl;
			if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
				// Answer first, then acknowledge: the request's id
				// is ours from now on.
				std::string from = peer_text(id);
				bool ok = !reject_ && conns_.size() < max_server_conns && accept(id);
				if (!ok)
					rdma_reject(id, private_data, sizeof(private_data));
				rdma_ack_cm_event(e);
				if (ok) {
					conns_.push_back(id);
					log << "RDMA CM: accepted a connection from " << from << std::endl;
				} else {
					rdma_destroy_id(id);
					log << "RDMA CM: rejected a connection from " << from << std::endl;
				}
				continue;
			}
			rdma_ack_cm_event(e);
			switch (type) {
			case RDMA_CM_EVENT_DISCONNECTED:
			case RDMA_CM_EVENT_CONNECT_ERROR:
			case RDMA_CM_EVENT_UNREACHABLE:
			case RDMA_CM_EVENT_REJECTED:
			case RDMA_CM_EVENT_DEVICE_REMOVAL:
				if (id == listen_id_) {
					log << "RDMA CM: the listener's device went away; no more "
					       "RDMA connections" << std::endl;
					rdma_destroy_id(listen_id_);
					listen_id_ = nullptr;
					break;
				}
				forget(id);
				break;
			default:
				break;
			}
		}
	}

private:
	bool accept(rdma_cm_id *id)
	{
		ibv_qp_init_attr a;
		small_qp_attr(a);
		if (rdma_create_qp(id, nullptr, &a))
			return false;
		rdma_conn_param p;
		small_conn_param(p);
		if (rdma_accept(id, &p)) {
			rdma_destroy_qp(id);
			return false;
		}
		return true;
	}

	void drop(rdma_cm_id *id)
	{
		if (id->qp)
			rdma_destroy_qp(id);
		rdma_destroy_id(id);
	}

	void forget(rdma_cm_id *id)
	{
		for (auto it = conns_.begin(); it != conns_.end(); ++it)
			if (*it == id) {
				conns_.erase(it);
				drop(id);
				return;
			}
	}

	rdma_event_channel *ch_ = nullptr;
	rdma_cm_id *listen_id_ = nullptr;
	std::vector<rdma_cm_id *> conns_;
	bool reject_ = false;
};

} // namespace

std::unique_ptr<CmDriver> LibRdmaCm::client() { return std::make_unique<LibCmDriver>(); }
std::unique_ptr<CmListener> LibRdmaCm::listener() { return std::make_unique<LibCmListener>(); }

} // namespace smc
