// SPDX-License-Identifier: GPL-2.0
//
// smc_chk's RDMA side: every RDMA CM event type turned into a sentence, and
// the path check driven through scripted events, silences and failed calls.
#include <algorithm>
#include <cerrno>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <rdma/rdma_cma.h>

#include "fixture.h"
#include "rdma_path.h"

namespace smc {
namespace {

using namespace smc::test;

CmContext ctx()
{
	CmContext c;
	c.peer = "10.43.0.2";
	c.port = 37373;
	c.device = "rxe0 port 1";
	c.timeout_s = 5;
	return c;
}

bool has(const std::string &s, const std::string &part)
{
	return s.find(part) != std::string::npos;
}

constexpr int all_events[] = {
	RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ROUTE_RESOLVED,
	RDMA_CM_EVENT_ROUTE_ERROR, RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_CONNECT_RESPONSE,
	RDMA_CM_EVENT_CONNECT_ERROR, RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_REJECTED,
	RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_DEVICE_REMOVAL,
	RDMA_CM_EVENT_MULTICAST_JOIN, RDMA_CM_EVENT_MULTICAST_ERROR, RDMA_CM_EVENT_ADDR_CHANGE,
	RDMA_CM_EVENT_TIMEWAIT_EXIT,
};

// The step in which each event is the expected good news.
CmStep home_step(int ev)
{
	switch (ev) {
	case RDMA_CM_EVENT_ADDR_RESOLVED: return CmStep::address;
	case RDMA_CM_EVENT_ROUTE_RESOLVED: return CmStep::route;
	case RDMA_CM_EVENT_DISCONNECTED: return CmStep::disconnect;
	default: return CmStep::connect;
	}
}

TEST(CmEvents, EveryEventHasItsOwnSentenceAndName)
{
	std::set<std::string> sentences, names;
	for (int ev : all_events) {
		auto v = explain_cm_event(home_step(ev), ev, ev == RDMA_CM_EVENT_ADDR_ERROR ? -ENODEV : 0, ctx());
		EXPECT_FALSE(v.sentence.empty()) << ev;
		EXPECT_FALSE(has(v.sentence, "unknown event")) << v.sentence;
		EXPECT_EQ(v.sentence.back(), '.') << v.sentence;
		sentences.insert(v.sentence);
		names.insert(cm_event_name(ev));
		EXPECT_FALSE(has(cm_event_name(ev), "EVENT_")) << ev;
		// librdmacm's own name for it ends with ours.
		std::string lib = rdma_event_str(static_cast<rdma_cm_event_type>(ev));
		EXPECT_TRUE(lib.ends_with(cm_event_name(ev))) << lib;
	}
	EXPECT_EQ(sentences.size(), std::size(all_events));
	EXPECT_EQ(names.size(), std::size(all_events));
}

TEST(CmEvents, OutcomePerEvent)
{
	auto outcome = [](CmStep s, int ev, int status = 0) {
		return explain_cm_event(s, ev, status, ctx()).outcome;
	};
	EXPECT_EQ(outcome(CmStep::address, RDMA_CM_EVENT_ADDR_RESOLVED), CmOutcome::done);
	EXPECT_EQ(outcome(CmStep::route, RDMA_CM_EVENT_ADDR_RESOLVED), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::address, RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::route, RDMA_CM_EVENT_ROUTE_RESOLVED), CmOutcome::done);
	EXPECT_EQ(outcome(CmStep::connect, RDMA_CM_EVENT_ROUTE_RESOLVED), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::route, RDMA_CM_EVENT_ROUTE_ERROR, -ETIMEDOUT), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::connect, RDMA_CM_EVENT_CONNECT_REQUEST), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::connect, RDMA_CM_EVENT_CONNECT_RESPONSE), CmOutcome::done);
	EXPECT_EQ(outcome(CmStep::address, RDMA_CM_EVENT_CONNECT_RESPONSE), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::connect, RDMA_CM_EVENT_CONNECT_ERROR, -EIO), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::connect, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::connect, RDMA_CM_EVENT_REJECTED, 8), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::connect, RDMA_CM_EVENT_ESTABLISHED), CmOutcome::done);
	EXPECT_EQ(outcome(CmStep::route, RDMA_CM_EVENT_ESTABLISHED), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::connect, RDMA_CM_EVENT_DISCONNECTED), CmOutcome::failed);
	EXPECT_EQ(outcome(CmStep::disconnect, RDMA_CM_EVENT_DISCONNECTED), CmOutcome::done);
	for (CmStep s : {CmStep::address, CmStep::route, CmStep::connect}) {
		EXPECT_EQ(outcome(s, RDMA_CM_EVENT_DEVICE_REMOVAL), CmOutcome::failed);
		EXPECT_EQ(outcome(s, RDMA_CM_EVENT_MULTICAST_JOIN), CmOutcome::failed);
		EXPECT_EQ(outcome(s, RDMA_CM_EVENT_MULTICAST_ERROR, -EIO), CmOutcome::failed);
		EXPECT_EQ(outcome(s, RDMA_CM_EVENT_ADDR_CHANGE), CmOutcome::failed);
		EXPECT_EQ(outcome(s, RDMA_CM_EVENT_TIMEWAIT_EXIT), CmOutcome::ignore);
		EXPECT_EQ(outcome(s, 42), CmOutcome::failed);
	}
}

TEST(CmEvents, SentencesNameTheCause)
{
	auto say = [](CmStep s, int ev, int status) {
		return explain_cm_event(s, ev, status, ctx()).sentence;
	};
	auto addr = [&](int status) { return say(CmStep::address, RDMA_CM_EVENT_ADDR_ERROR, status); };
	EXPECT_TRUE(has(addr(-ENODEV), "No local RDMA device serves the interface")) << addr(-ENODEV);
	EXPECT_TRUE(has(addr(-ETIMEDOUT), "10.43.0.2 did not answer address resolution"));
	EXPECT_TRUE(has(addr(-ENODATA), "did not answer address resolution"));
	EXPECT_TRUE(has(addr(-ENETUNREACH), "no IP route to 10.43.0.2"));
	EXPECT_TRUE(has(addr(-EHOSTUNREACH), "no IP route"));
	EXPECT_TRUE(has(addr(-EADDRNOTAVAIL), "no suitable IP address"));
	EXPECT_TRUE(has(addr(-EPROTO), "Protocol error"));

	auto route = [&](int status) { return say(CmStep::route, RDMA_CM_EVENT_ROUTE_ERROR, status); };
	EXPECT_TRUE(has(route(-ETIMEDOUT), "subnet manager"));
	EXPECT_TRUE(has(route(-ENODEV), "rxe0 port 1 has no usable GID"));
	EXPECT_TRUE(has(route(-EIO), "Input/output error"));

	auto rej = [&](int status) { return say(CmStep::connect, RDMA_CM_EVENT_REJECTED, status); };
	EXPECT_TRUE(has(rej(8), "nothing listens for RDMA connections on port 37373"));
	EXPECT_TRUE(has(rej(8), "network itself works"));
	EXPECT_TRUE(has(rej(-ECONNREFUSED), "nothing listens"));
	EXPECT_TRUE(has(rej(28), "rejected the RDMA connection: the RDMA network works, the peer refuses"));
	EXPECT_TRUE(has(rej(26), "path MTUs"));
	EXPECT_TRUE(has(rej(3), "lack of resources"));
	EXPECT_TRUE(has(rej(12), "status 12 (invalid GID)")) << rej(12);
	EXPECT_TRUE(has(rej(99), "status 99)")) << rej(99);

	auto unreach = [&](int status) { return say(CmStep::connect, RDMA_CM_EVENT_UNREACHABLE, status); };
	EXPECT_TRUE(has(unreach(-ETIMEDOUT), "did not answer the RDMA connection request"));
	EXPECT_TRUE(has(unreach(-ETIMEDOUT), "UDP port 4791"));
	EXPECT_TRUE(has(unreach(-EHOSTUNREACH), "not reachable over RDMA"));

	EXPECT_TRUE(has(say(CmStep::connect, RDMA_CM_EVENT_CONNECT_ERROR, -ECONNRESET), "lost between"));
	EXPECT_TRUE(has(say(CmStep::connect, RDMA_CM_EVENT_DEVICE_REMOVAL, 0), "rxe0 port 1 was removed"));
	EXPECT_TRUE(has(say(CmStep::connect, RDMA_CM_EVENT_ADDR_CHANGE, 0), "bonding failover"));
	EXPECT_TRUE(has(say(CmStep::connect, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0), "nothing is wrong"));
	EXPECT_TRUE(has(say(CmStep::connect, 42, -5), "unknown event EVENT_42 (status -5"));
	EXPECT_TRUE(has(say(CmStep::route, RDMA_CM_EVENT_ESTABLISHED, 0), "during route resolution"));
}

TEST(CmEvents, CallErrorsAndTimeouts)
{
	auto call = [](CmStep s, int err) { return explain_call_error(s, err, ctx()); };
	EXPECT_TRUE(has(call(CmStep::channel, ENOENT).sentence, "load the rdma_ucm module"));
	EXPECT_TRUE(has(call(CmStep::channel, ENODEV).sentence, "This host has no RDMA device"));
	EXPECT_TRUE(has(call(CmStep::channel, EACCES).sentence, "No permission"));
	EXPECT_TRUE(has(call(CmStep::address, ENODEV).sentence, "No local RDMA device serves"));
	EXPECT_TRUE(has(call(CmStep::address, ENETUNREACH).sentence, "There is no IP route to 10.43.0.2"));
	EXPECT_TRUE(has(call(CmStep::address, EINVAL).sentence, "Address resolution of 10.43.0.2 failed (Invalid argument)"));
	EXPECT_TRUE(has(call(CmStep::qp, ENOMEM).sentence, "Cannot create a queue pair on rxe0 port 1"));
	for (CmStep s : {CmStep::channel, CmStep::address, CmStep::route, CmStep::qp, CmStep::connect,
			 CmStep::disconnect})
		EXPECT_EQ(call(s, EIO).outcome, CmOutcome::failed) << cm_step_name(s);

	EXPECT_TRUE(has(explain_timeout(CmStep::address, ctx()).sentence, "did not finish within 5 s"));
	EXPECT_TRUE(has(explain_timeout(CmStep::connect, ctx()).sentence,
			"did not answer the RDMA connection request within 5 s"));
	EXPECT_EQ(explain_timeout(CmStep::connect, ctx()).outcome, CmOutcome::failed);
	// A lost disconnect confirmation does not spoil a working path.
	EXPECT_EQ(explain_timeout(CmStep::disconnect, ctx()).outcome, CmOutcome::done);
}

TEST(CmEvents, StatusTexts)
{
	EXPECT_EQ(cm_status_text(RDMA_CM_EVENT_REJECTED, 8), "status 8 (invalid service ID)");
	EXPECT_EQ(cm_status_text(RDMA_CM_EVENT_REJECTED, 28), "status 28 (consumer defined)");
	EXPECT_EQ(cm_status_text(RDMA_CM_EVENT_UNREACHABLE, -110), "status -110 (Connection timed out)");
	EXPECT_EQ(cm_status_text(RDMA_CM_EVENT_CONNECT_ERROR, 7), "status 7");
	EXPECT_STREQ(ib_reject_reason_name(34), "");
	EXPECT_EQ(cm_event_name(99), "EVENT_99");
}

// A CmDriver playing a script: each step's call result and the events (or
// silences) that follow.
class FakeCm : public CmDriver {
public:
	struct Item {
		int rc = 0;		// next_event's result
		CmEvent ev{};
		long takes_ms = 0;	// how far the clock moves
	};
	std::map<std::string, int> call_rc;	// "open", "addr", ... -> errno
	std::deque<Item> events;
	std::vector<std::string> calls;
	long clock = 1000;
	int delivered = 0;

	int open() override { return called("open"); }
	int resolve_addr(const sockaddr *, int timeout_ms) override
	{
		last_timeout = timeout_ms;
		return called("addr");
	}
	int resolve_route(int) override { return called("route"); }
	int create_qp() override { return called("qp"); }
	int connect() override { return called("connect"); }
	int disconnect() override { return called("disconnect"); }
	int next_event(int timeout_ms, CmEvent &ev) override
	{
		if (events.empty()) {
			clock += timeout_ms;
			return ETIMEDOUT;
		}
		Item it = events.front();
		events.pop_front();
		if (it.rc == ETIMEDOUT) {
			clock += timeout_ms;
			return ETIMEDOUT;
		}
		if (it.takes_ms > timeout_ms) {
			// It comes too late for this wait.
			it.takes_ms -= timeout_ms;
			events.push_front(it);
			clock += timeout_ms;
			return ETIMEDOUT;
		}
		clock += it.takes_ms;
		if (it.rc)
			return it.rc;
		ev = it.ev;
		++delivered;
		return 0;
	}
	std::string device() const override { return "rxe0 port 1"; }

	void event(int type, int status = 0, long ms = 1) { events.push_back(Item{0, CmEvent{type, status}, ms}); }
	void silence() { events.push_back(Item{ETIMEDOUT, {}, 0}); }

	int last_timeout = 0;

private:
	int called(const std::string &what)
	{
		calls.push_back(what);
		auto it = call_rc.find(what);
		return it == call_rc.end() ? 0 : it->second;
	}
};

PathReport probe(FakeCm &cm)
{
	sockaddr_storage peer{};
	CmContext c = ctx();
	c.device.clear();
	return probe_rdma_path(cm, reinterpret_cast<sockaddr *>(&peer), c, [&cm] { return cm.clock; });
}

std::string printed(const PathReport &r)
{
	std::ostringstream out;
	CmContext c = ctx();
	print_path_report(out, r, c);
	return out.str();
}

TEST(RdmaPath, WorkingPath)
{
	FakeCm cm;
	cm.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 12);
	cm.event(RDMA_CM_EVENT_ROUTE_RESOLVED, 0, 3);
	cm.event(RDMA_CM_EVENT_TIMEWAIT_EXIT, 0, 1);	// harmless, skipped
	cm.event(RDMA_CM_EVENT_ESTABLISHED, 0, 20);
	cm.event(RDMA_CM_EVENT_DISCONNECTED, 0, 4);
	auto r = probe(cm);
	EXPECT_TRUE(r.ok);
	EXPECT_EQ(r.failed_step(), nullptr);
	EXPECT_EQ(cm.calls, (std::vector<std::string>{"open", "addr", "route", "qp", "connect", "disconnect"}));
	EXPECT_EQ(cm.delivered, 5);
	EXPECT_EQ(cm.last_timeout, 5000);
	EXPECT_EQ(r.device, "rxe0 port 1");
	EXPECT_EQ(r.total_ms, 40);
	expect_golden("chk_path_ok", printed(r));
}

TEST(RdmaPath, EachFailingStepIsNamed)
{
	struct Case {
		const char *golden;
		std::function<void(FakeCm &)> script;
		CmStep step;
		long total_ms;
	};
	const Case cases[] = {
		{"chk_path_no_rdma_cm", [](FakeCm &c) { c.call_rc["open"] = ENOENT; }, CmStep::channel, 0},
		{"chk_path_no_route", [](FakeCm &c) { c.event(RDMA_CM_EVENT_ADDR_ERROR, -ENETUNREACH, 2); },
		 CmStep::address, 2},
		{"chk_path_no_neighbour", [](FakeCm &c) { c.event(RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT, 5000); },
		 CmStep::address, 5000},
		{"chk_path_no_device", [](FakeCm &c) { c.call_rc["addr"] = ENODEV; }, CmStep::address, 0},
		// The kernel's own verdict may come a little after its timer: it
		// is waited for (1 s of grace), and silence is given up on then.
		{"chk_path_no_neighbour_late", [](FakeCm &c) { c.event(RDMA_CM_EVENT_ADDR_ERROR, -ETIMEDOUT, 5900); },
		 CmStep::address, 5900},
		{"chk_path_addr_silent", [](FakeCm &c) { c.silence(); }, CmStep::address, 6000},
		{"chk_path_route_error", [](FakeCm &c) {
			c.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_ROUTE_ERROR, -ETIMEDOUT, 5000);
		 }, CmStep::route, 5001},
		{"chk_path_route_silent", [](FakeCm &c) {
			c.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_ROUTE_ERROR, -ETIMEDOUT, 7000);	// too late
		 }, CmStep::route, 6001},
		{"chk_path_qp", [](FakeCm &c) {
			c.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_ROUTE_RESOLVED, 0, 1);
			c.call_rc["qp"] = ENOMEM;
		 }, CmStep::qp, 2},
		{"chk_path_no_listener", [](FakeCm &c) {
			c.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_ROUTE_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_REJECTED, 8, 30);
		 }, CmStep::connect, 32},
		{"chk_path_rejected", [](FakeCm &c) {
			c.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_ROUTE_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_REJECTED, 28, 30);
		 }, CmStep::connect, 32},
		{"chk_path_no_peer_device", [](FakeCm &c) {
			c.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_ROUTE_RESOLVED, 0, 1);
			c.silence();
		 }, CmStep::connect, 5002},
		{"chk_path_unreachable", [](FakeCm &c) {
			c.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_ROUTE_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, 4000);
		 }, CmStep::connect, 4002},
		{"chk_path_device_removed", [](FakeCm &c) {
			c.event(RDMA_CM_EVENT_ADDR_RESOLVED, 0, 1);
			c.event(RDMA_CM_EVENT_DEVICE_REMOVAL, 0, 1);
		 }, CmStep::route, 2},
	};
	for (const auto &k : cases) {
		SCOPED_TRACE(k.golden);
		FakeCm cm;
		k.script(cm);
		auto r = probe(cm);
		EXPECT_FALSE(r.ok);
		ASSERT_NE(r.failed_step(), nullptr);
		EXPECT_EQ(r.failed_step()->step, k.step);
		EXPECT_EQ(r.total_ms, k.total_ms);
		// Only the event that came too late is left.
		std::size_t left = std::string(k.golden) == "chk_path_route_silent" ? 1 : 0;
		EXPECT_EQ(cm.events.size(), left) << "events left unread";
		// Nothing is attempted after the failing step.
		EXPECT_EQ(std::count(cm.calls.begin(), cm.calls.end(), "disconnect"), 0);
		std::string text = printed(r);
		EXPECT_TRUE(has(text, std::string("RDMA path: FAILED at ") + cm_step_name(k.step))) << text;
		expect_golden(k.golden, text);
	}
}

TEST(RdmaPath, LostDisconnectStillOk)
{
	FakeCm cm;
	cm.event(RDMA_CM_EVENT_ADDR_RESOLVED);
	cm.event(RDMA_CM_EVENT_ROUTE_RESOLVED);
	cm.event(RDMA_CM_EVENT_ESTABLISHED);
	auto r = probe(cm);	// then silence: the disconnect is never confirmed
	EXPECT_TRUE(r.ok);
	ASSERT_EQ(r.steps.size(), 6u);
	EXPECT_EQ(r.steps.back().step, CmStep::disconnect);
	EXPECT_TRUE(r.steps.back().ok);
	EXPECT_TRUE(has(r.sentence, "RDMA connection to 10.43.0.2 was established"));
}

TEST(RdmaPath, WaitingFails)
{
	FakeCm cm;
	cm.events.push_back(FakeCm::Item{EBADF, {}, 0});
	auto r = probe(cm);
	EXPECT_FALSE(r.ok);
	ASSERT_NE(r.failed_step(), nullptr);
	EXPECT_EQ(r.failed_step()->step, CmStep::address);
	EXPECT_TRUE(has(r.sentence, "Waiting for RDMA CM events failed (Bad file descriptor)"));
}

} // namespace
} // namespace smc
