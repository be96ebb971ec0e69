// SPDX-License-Identifier: GPL-2.0
#include "cm_events.h"

#include <cerrno>
#include <cstring>

#include <rdma/rdma_cma.h>

namespace smc {

namespace {

// InfiniBand CM reject reasons (IBA, CM REJ message), which the RDMA CM
// passes on as the status of RDMA_CM_EVENT_REJECTED for InfiniBand and RoCE.
constexpr int rej_invalid_service_id = 8;
constexpr int rej_consumer_defined = 28;

struct RejectReason {
	int reason;
	const char *name;
};

constexpr RejectReason reject_reasons[] = {
	{1, "no QP available"},
	{2, "no EEC available"},
	{3, "no resources"},
	{4, "timeout"},
	{5, "unsupported request"},
	{6, "invalid communication ID"},
	{7, "invalid communication instance"},
	{8, "invalid service ID"},
	{9, "invalid transport type"},
	{10, "stale connection"},
	{11, "RDC does not exist"},
	{12, "invalid GID"},
	{13, "invalid LID"},
	{14, "invalid SL"},
	{15, "invalid traffic class"},
	{16, "invalid hop limit"},
	{17, "invalid packet rate"},
	{18, "invalid alternate GID"},
	{19, "invalid alternate LID"},
	{20, "invalid alternate SL"},
	{21, "invalid alternate traffic class"},
	{22, "invalid alternate hop limit"},
	{23, "invalid alternate packet rate"},
	{24, "port CM redirect"},
	{25, "port redirect"},
	{26, "invalid path MTU"},
	{27, "insufficient responder resources"},
	{28, "consumer defined"},
	{29, "invalid RNR NAK retry count"},
	{30, "duplicate local communication ID"},
	{31, "invalid class version"},
	{32, "invalid flow label"},
	{33, "invalid alternate flow label"},
	{35, "vendor option not supported"},
};

std::string peer_text(const CmContext &c)
{
	return c.peer.empty() ? std::string("the peer") : c.peer;
}

std::string device_text(const CmContext &c)
{
	return c.device.empty() ? std::string("the local RDMA device") : c.device;
}

std::string errno_text(int err)
{
	return std::strerror(err < 0 ? -err : err);
}

CmVerdict done(std::string s) { return CmVerdict{CmOutcome::done, std::move(s)}; }
CmVerdict failed(std::string s) { return CmVerdict{CmOutcome::failed, std::move(s)}; }

// An event that belongs to another step than the one in progress.
CmVerdict unexpected(CmStep step, int event, int status)
{
	return failed("The RDMA CM reported " + cm_event_name(event) + " (" +
		      cm_status_text(event, status) + ") during " + cm_step_name(step) +
		      ", which does not belong there: the local RDMA stack misbehaves.");
}

CmVerdict address_error(int status, const CmContext &c)
{
	const std::string peer = peer_text(c);
	switch (-status) {
	case ENODEV:
		return failed("No local RDMA device serves the interface through which " + peer +
			      " is reached: add one on that interface (e.g. 'rdma link add rxe0 type "
			      "rxe netdev IFACE') or reach the peer over an interface that has one.");
	case ETIMEDOUT:
	case ENODATA:
		return failed(peer + " did not answer address resolution (ARP or neighbour "
			      "discovery): the host is down, or not on the network of the local "
			      "RDMA device.");
	case ENETUNREACH:
	case EHOSTUNREACH:
		return failed("There is no IP route to " + peer + ": RDMA needs the peer to be "
			      "reachable through an interface that has an RDMA device.");
	case EADDRNOTAVAIL:
		return failed("No local address can reach " + peer + " over an RDMA device: "
			      "the interface of the RDMA device has no suitable IP address.");
	default:
		return failed("Address resolution of " + peer + " failed (" + errno_text(status) +
			      "): no local RDMA device could be tied to the way to the peer.");
	}
}

CmVerdict route_error(int status, const CmContext &c)
{
	const std::string peer = peer_text(c);
	switch (-status) {
	case ETIMEDOUT:
		return failed("Route resolution to " + peer + " timed out: on InfiniBand the "
			      "subnet manager did not answer the path query; on RoCE the route to "
			      "the peer over " + device_text(c) + " is missing.");
	case ENODEV:
	case EINVAL:
	case ENOENT:
		return failed("Route resolution to " + peer + " failed (" + errno_text(status) +
			      "): " + device_text(c) + " has no usable GID for the source address "
			      "(is the port ACTIVE and its interface up?).");
	default:
		return failed("Route resolution to " + peer + " over " + device_text(c) +
			      " failed (" + errno_text(status) + ").");
	}
}

CmVerdict rejected(int status, const CmContext &c)
{
	const std::string peer = peer_text(c);
	const std::string port = std::to_string(c.port);
	if (status == rej_invalid_service_id || status == -ECONNREFUSED)
		return failed(peer + "'s RDMA device answered, but nothing listens for RDMA "
			      "connections on port " + port + ": start 'smc_chk -S' there. The RDMA "
			      "network itself works.");
	if (status == rej_consumer_defined)
		return failed("The program listening on " + peer + " port " + port +
			      " rejected the RDMA connection: the RDMA network works, the peer "
			      "refuses.");
	if (status == 26)
		return failed(peer + " rejected the RDMA connection because the path MTUs of "
			      "the two RDMA ports do not fit together: check the MTU of both "
			      "interfaces.");
	if (status == 3 || status == 1 || status == 27)
		return failed(peer + " rejected the RDMA connection for lack of resources (" +
			      cm_status_text(RDMA_CM_EVENT_REJECTED, status) + "): its RDMA device "
			      "is overloaded or limited.");
	return failed(peer + " rejected the RDMA connection (" +
		      cm_status_text(RDMA_CM_EVENT_REJECTED, status) + "): the two RDMA devices "
		      "do not agree on the connection's parameters.");
}

} // namespace

const char *cm_step_name(CmStep step)
{
	switch (step) {
	case CmStep::channel: return "RDMA CM";
	case CmStep::address: return "address resolution";
	case CmStep::route: return "route resolution";
	case CmStep::qp: return "queue pair";
	case CmStep::connect: return "connection";
	case CmStep::disconnect: return "disconnection";
	}
	return "?";
}

std::string cm_event_name(int event)
{
	switch (event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED: return "ADDR_RESOLVED";
	case RDMA_CM_EVENT_ADDR_ERROR: return "ADDR_ERROR";
	case RDMA_CM_EVENT_ROUTE_RESOLVED: return "ROUTE_RESOLVED";
	case RDMA_CM_EVENT_ROUTE_ERROR: return "ROUTE_ERROR";
	case RDMA_CM_EVENT_CONNECT_REQUEST: return "CONNECT_REQUEST";
	case RDMA_CM_EVENT_CONNECT_RESPONSE: return "CONNECT_RESPONSE";
	case RDMA_CM_EVENT_CONNECT_ERROR: return "CONNECT_ERROR";
	case RDMA_CM_EVENT_UNREACHABLE: return "UNREACHABLE";
	case RDMA_CM_EVENT_REJECTED: return "REJECTED";
	case RDMA_CM_EVENT_ESTABLISHED: return "ESTABLISHED";
	case RDMA_CM_EVENT_DISCONNECTED: return "DISCONNECTED";
	case RDMA_CM_EVENT_DEVICE_REMOVAL: return "DEVICE_REMOVAL";
	case RDMA_CM_EVENT_MULTICAST_JOIN: return "MULTICAST_JOIN";
	case RDMA_CM_EVENT_MULTICAST_ERROR: return "MULTICAST_ERROR";
	case RDMA_CM_EVENT_ADDR_CHANGE: return "ADDR_CHANGE";
	case RDMA_CM_EVENT_TIMEWAIT_EXIT: return "TIMEWAIT_EXIT";
	}
	return "EVENT_" + std::to_string(event);
}

const char *ib_reject_reason_name(int reason)
{
	for (const auto &r : reject_reasons)
		if (r.reason == reason)
			return r.name;
	return "";
}

std::string cm_status_text(int event, int status)
{
	std::string s = "status " + std::to_string(status);
	if (status < 0)
		return s + " (" + errno_text(status) + ")";
	if (event == RDMA_CM_EVENT_REJECTED && *ib_reject_reason_name(status))
		return s + " (" + ib_reject_reason_name(status) + ")";
	return s;
}

CmVerdict explain_cm_event(CmStep step, int event, int status, const CmContext &c)
{
	const std::string peer = peer_text(c);
	switch (event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (step != CmStep::address)
			return unexpected(step, event, status);
		return done("The address of " + peer + " is reached through " + device_text(c) + ".");
	case RDMA_CM_EVENT_ADDR_ERROR:
		return address_error(status, c);
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (step != CmStep::route)
			return unexpected(step, event, status);
		return done("A route to " + peer + " over " + device_text(c) + " was found.");
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return route_error(status, c);
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return failed("A connection request arrived at the checking side, which does not "
			      "listen: the local RDMA CM mixed up its connections.");
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		if (step != CmStep::connect)
			return unexpected(step, event, status);
		return done(peer + "'s RDMA CM answered the connection request: the RDMA network "
			    "between the two hosts works.");
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return failed("The RDMA connection to " + peer + " failed while it was set up (" +
			      cm_status_text(event, status) + "): RDMA packets are lost between "
			      "the two devices (MTU, a firewall on UDP port 4791, or a device error).");
	case RDMA_CM_EVENT_UNREACHABLE:
		if (status == -ETIMEDOUT)
			return failed(peer + " did not answer the RDMA connection request: it has no "
				      "RDMA device on this network, its device is down, or RoCE "
				      "traffic (UDP port 4791) does not get through.");
		return failed(peer + " is not reachable over RDMA (" + cm_status_text(event, status) +
			      "): its RDMA device does not answer connection requests.");
	case RDMA_CM_EVENT_REJECTED:
		return rejected(status, c);
	case RDMA_CM_EVENT_ESTABLISHED:
		if (step != CmStep::connect)
			return unexpected(step, event, status);
		return done("An RDMA connection to " + peer + " was established: the RDMA network "
			    "between the two hosts works.");
	case RDMA_CM_EVENT_DISCONNECTED:
		if (step == CmStep::disconnect)
			return done("The RDMA connection was closed.");
		return failed(peer + " closed the RDMA connection while it was set up.");
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return failed(device_text(c) + " was removed during the check (the device was "
			      "deleted or its driver unloaded).");
	case RDMA_CM_EVENT_MULTICAST_JOIN:
		return failed("The RDMA CM reported a multicast join, but smc_chk joins no group: "
			      "the local RDMA stack misbehaves.");
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		return failed("The RDMA CM reported a multicast group error (" +
			      cm_status_text(event, status) + "), but smc_chk joins no group: the "
			      "local RDMA stack misbehaves.");
	case RDMA_CM_EVENT_ADDR_CHANGE:
		return failed("The interface under " + device_text(c) + " changed its hardware "
			      "address during the check (for example a bonding failover): run the "
			      "check again.");
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		return CmVerdict{CmOutcome::ignore, "A queue pair left its time-wait state: "
						    "nothing is wrong."};
	}
	return failed("The RDMA CM reported an unknown event " + cm_event_name(event) + " (" +
		      cm_status_text(event, status) + ").");
}

CmVerdict explain_call_error(CmStep step, int err, const CmContext &c)
{
	const std::string why = errno_text(err);
	switch (step) {
	case CmStep::channel:
		if (err == ENOENT || err == ENXIO)
			return failed("The RDMA connection manager is not available on this host "
				      "(/dev/infiniband/rdma_cm is missing): load the rdma_ucm module.");
		if (err == ENODEV)
			return failed("This host has no RDMA device the RDMA connection manager "
				      "could use: SMC-R needs one (e.g. 'rdma link add rxe0 type rxe "
				      "netdev IFACE').");
		if (err == EACCES || err == EPERM)
			return failed("No permission to use /dev/infiniband/rdma_cm.");
		return failed("Cannot open the RDMA connection manager (" + why + ").");
	case CmStep::address:
		// The kernel fails at once what it knows at once (no route, no
		// device): the same causes as an ADDR_ERROR event.
		return address_error(-err, c);
	case CmStep::route:
		return failed("Route resolution to " + peer_text(c) + " could not start (" + why +
			      ").");
	case CmStep::qp:
		return failed("Cannot create a queue pair on " + device_text(c) + " (" + why +
			      "): the device or its driver cannot carry RDMA traffic.");
	case CmStep::connect:
		return failed("The RDMA connection to " + peer_text(c) + " could not start (" +
			      why + ").");
	case CmStep::disconnect:
		return failed("The RDMA connection could not be closed (" + why + ").");
	}
	return failed(why);
}

CmVerdict explain_timeout(CmStep step, const CmContext &c)
{
	const std::string within = " within " + std::to_string(c.timeout_s) + " s";
	switch (step) {
	case CmStep::address:
		return failed("Address resolution of " + peer_text(c) + " did not finish" + within +
			      ": the peer does not answer on the network of the local RDMA device.");
	case CmStep::route:
		return failed("Route resolution to " + peer_text(c) + " did not finish" + within +
			      ": on InfiniBand no subnet manager answers.");
	case CmStep::connect:
		return failed(peer_text(c) + " did not answer the RDMA connection request" + within +
			      ": it has no RDMA device on this network, its device is down, or "
			      "RoCE traffic (UDP port 4791) does not get through.");
	case CmStep::disconnect:
		return done("The disconnection was not confirmed" + within + "; the connection "
			    "itself worked.");
	case CmStep::channel:
	case CmStep::qp:
		break;
	}
	return failed(std::string(cm_step_name(step)) + " did not finish" + within + ".");
}

} // namespace smc
