// SPDX-License-Identifier: GPL-2.0
//
// What an RDMA CM event (or a failed call, or silence) means for the RDMA
// network between two hosts, in one sentence a user can act on. Pure
// functions of their arguments: the host tests cover every event type.
#pragma once

#include <string>

namespace smc {

// The steps of smc_chk's RDMA path check, in order.
enum class CmStep {
	channel,	// opening the RDMA CM (rdma_create_event_channel, rdma_create_id)
	address,	// rdma_resolve_addr: which local device reaches the peer
	route,		// rdma_resolve_route
	qp,		// creating a queue pair on the local device
	connect,	// rdma_connect to the peer's smc_chk -S listener
	disconnect,	// rdma_disconnect
};

const char *cm_step_name(CmStep step);	// "address resolution" ...

enum class CmOutcome {
	done,	// the step succeeded
	failed,	// the step failed; the sentence says why
	ignore,	// harmless (TIMEWAIT_EXIT): keep waiting
};

struct CmVerdict {
	CmOutcome outcome = CmOutcome::failed;
	std::string sentence;
};

// What the sentences name.
struct CmContext {
	std::string peer;	// "10.43.0.2"
	unsigned port = 0;	// the RDMA CM port of the peer's listener
	std::string device;	// "rxe0 port 1" once address resolution found one
	int timeout_s = 0;	// the time each step may take
};

// event: an enum rdma_cm_event_type value; status: the event's status (an
// errno value, negative, or for REJECTED a transport reject reason).
CmVerdict explain_cm_event(CmStep step, int event, int status, const CmContext &ctx);
// A call of the step failed at once with errno err (positive).
CmVerdict explain_call_error(CmStep step, int err, const CmContext &ctx);
// No event came within ctx.timeout_s.
CmVerdict explain_timeout(CmStep step, const CmContext &ctx);

// "ADDR_ERROR" for RDMA_CM_EVENT_ADDR_ERROR; "EVENT_N" for unknown ones.
std::string cm_event_name(int event);
// The InfiniBand CM reject reason's name ("invalid service ID"), or "".
const char *ib_reject_reason_name(int reason);
// "status -110 (Connection timed out)", "status 8 (invalid service ID)".
std::string cm_status_text(int event, int status);

} // namespace smc
