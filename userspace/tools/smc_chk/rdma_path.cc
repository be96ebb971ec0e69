// SPDX-License-Identifier: GPL-2.0
#include "rdma_path.h"

#include <cerrno>
#include <cstring>

#include <rdma/rdma_cma.h>

namespace smc {

namespace {

constexpr long resolve_grace_ms = 1000;

class Probe {
public:
	Probe(CmDriver &cm, CmContext &ctx, const Clock &now) : cm_(cm), ctx_(ctx), now_(now) {}

	// Runs one step: the call, then (unless wait_for is false) its events
	// until one decides, the step's time is up, or waiting fails.
	bool step(CmStep step, const std::function<int()> &call, bool wait_for = true)
	{
		long start = now_();
		StepResult r;
		r.step = step;
		int err = call();
		if (err) {
			r.what = std::string("call failed: ") + std::strerror(err);
			return finish(r, start, explain_call_error(step, err, ctx_));
		}
		if (!wait_for) {
			r.ok = true;
			return finish(r, start, CmVerdict{CmOutcome::done, ""});
		}
		// Address and route resolution have the kernel's own timer set to
		// the same time: wait a little longer, so that its verdict (with
		// the reason) arrives rather than our silence.
		long grace = step == CmStep::address || step == CmStep::route ? resolve_grace_ms : 0;
		long deadline = start + ctx_.timeout_s * 1000L + grace;
		for (;;) {
			long left = deadline - now_();
			CmEvent ev;
			int rc = left > 0 ? cm_.next_event(static_cast<int>(left), ev) : ETIMEDOUT;
			if (rc == ETIMEDOUT) {
				r.what = "no answer";
				CmVerdict v = explain_timeout(step, ctx_);
				r.ok = v.outcome == CmOutcome::done;
				return finish(r, start, v);
			}
			if (rc) {
				r.what = std::string("waiting for events failed: ") + std::strerror(rc);
				return finish(r, start, CmVerdict{CmOutcome::failed,
					"Waiting for RDMA CM events failed (" + std::string(std::strerror(rc)) + ")."});
			}
			if (step == CmStep::address && ev.type == RDMA_CM_EVENT_ADDR_RESOLVED)
				ctx_.device = cm_.device();
			CmVerdict v = explain_cm_event(step, ev.type, ev.status, ctx_);
			if (v.outcome == CmOutcome::ignore)
				continue;
			r.event = ev.type;
			r.what = cm_event_name(ev.type);
			if (ev.status)
				r.what += ", " + cm_status_text(ev.type, ev.status);
			r.ok = v.outcome == CmOutcome::done;
			return finish(r, start, v);
		}
	}

	PathReport report;

private:
	bool finish(StepResult r, long start, const CmVerdict &v)
	{
		r.ms = now_() - start;
		if (r.step == CmStep::address && r.ok && ctx_.device.empty())
			ctx_.device = cm_.device();
		bool ok = v.outcome == CmOutcome::done;
		r.ok = ok;
		report.steps.push_back(r);
		if (!ok)
			report.sentence = v.sentence;
		return ok;
	}

	CmDriver &cm_;
	CmContext &ctx_;
	const Clock &now_;
};

} // namespace

const StepResult *PathReport::failed_step() const
{
	for (const auto &s : steps)
		if (!s.ok)
			return &s;
	return nullptr;
}

PathReport probe_rdma_path(CmDriver &cm, const sockaddr *peer, CmContext ctx, const Clock &now)
{
	long start = now();
	Probe p(cm, ctx, now);
	int timeout_ms = ctx.timeout_s * 1000;
	bool ok = p.step(CmStep::channel, [&] { return cm.open(); }, false) &&
		  p.step(CmStep::address, [&] { return cm.resolve_addr(peer, timeout_ms); }) &&
		  p.step(CmStep::route, [&] { return cm.resolve_route(timeout_ms); }) &&
		  p.step(CmStep::qp, [&] { return cm.create_qp(); }, false) &&
		  p.step(CmStep::connect, [&] { return cm.connect(); });
	PathReport r = std::move(p.report);
	if (ok) {
		r.ok = true;
		r.sentence = explain_cm_event(CmStep::connect, RDMA_CM_EVENT_ESTABLISHED, 0, ctx).sentence;
		// Closing is part of a clean check but not of the verdict: a peer
		// that does not confirm the disconnect still had a working path.
		Probe closing(cm, ctx, now);
		closing.step(CmStep::disconnect, [&] { return cm.disconnect(); });
		for (auto &s : closing.report.steps)
			r.steps.push_back(s);
	}
	r.device = ctx.device;
	r.total_ms = now() - start;
	return r;
}

void print_path_report(std::ostream &out, const PathReport &r, const CmContext &ctx)
{
	out << "RDMA path to " << ctx.peer << " port " << ctx.port << " (RDMA CM):\n";
	for (const auto &s : r.steps) {
		out << "  " << cm_step_name(s.step) << ": " << (s.ok ? "ok" : "FAILED");
		std::string detail = s.what;
		if (s.ok && s.step == CmStep::address && !r.device.empty())
			detail = r.device;
		if (!detail.empty())
			out << " (" << detail << ")";
		out << ", " << s.ms << " ms\n";
	}
	if (const StepResult *f = r.failed_step())
		out << "RDMA path: FAILED at " << cm_step_name(f->step) << " after " << r.total_ms
		    << " ms\n";
	else
		out << "RDMA path: ok (" << r.total_ms << " ms)\n";
	out << "  " << r.sentence << '\n';
}

} // namespace smc
