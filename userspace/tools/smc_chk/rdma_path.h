// SPDX-License-Identifier: GPL-2.0
//
// smc_chk's RDMA path check: resolve the peer's address and route, create a
// queue pair and connect to the peer's RDMA CM listener (smc_chk -S), each
// step bounded in time, every event acknowledged. The RDMA CM is reached
// through CmDriver so the host tests can play any sequence of events.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include <sys/socket.h>

#include "cm_events.h"

namespace smc {

struct CmEvent {
	int type = 0;	// enum rdma_cm_event_type
	int status = 0;
};

// One RDMA CM identifier on its own event channel (the active side).
// Calls return 0 or an errno value.
class CmDriver {
public:
	virtual ~CmDriver() = default;
	virtual int open() = 0;
	virtual int resolve_addr(const sockaddr *peer, int timeout_ms) = 0;
	virtual int resolve_route(int timeout_ms) = 0;
	virtual int create_qp() = 0;
	virtual int connect() = 0;
	virtual int disconnect() = 0;
	// Waits up to timeout_ms for the next event and acknowledges it before
	// returning 0; ETIMEDOUT when none came, another errno on failure.
	virtual int next_event(int timeout_ms, CmEvent &ev) = 0;
	// "rxe0 port 1" once address resolution bound the id to a device.
	virtual std::string device() const = 0;
};

// The server side: an RDMA CM listener that accepts (or, for tests,
// rejects) every connection request and cleans up after its peers.
class CmListener {
public:
	virtual ~CmListener() = default;
	// Listens on the port on every address (IPv6 includes IPv4). 0 or errno.
	virtual int listen(unsigned port, bool ipv6, bool reject) = 0;
	// The event channel's descriptor, for poll().
	virtual int fd() const = 0;
	// Handles (and acknowledges) every pending event; writes one line per
	// event worth telling to log.
	virtual void handle_events(std::ostream &log, bool debug) = 0;
};

struct StepResult {
	CmStep step = CmStep::channel;
	bool ok = false;
	std::string what;	// "REJECTED, status 8 (invalid service ID)", "no answer"
	int event = -1;		// the RDMA CM event that decided the step, if one did
	long ms = 0;		// how long the step took
};

struct PathReport {
	std::vector<StepResult> steps;
	bool ok = false;
	std::string sentence;	// the diagnosis for the user
	std::string device;	// the local device address resolution chose
	long total_ms = 0;

	// The step that failed, or nullptr.
	const StepResult *failed_step() const;
};

using Clock = std::function<long()>;	// milliseconds, monotonic

PathReport probe_rdma_path(CmDriver &cm, const sockaddr *peer, CmContext ctx, const Clock &now);
void print_path_report(std::ostream &out, const PathReport &r, const CmContext &ctx);

} // namespace smc
