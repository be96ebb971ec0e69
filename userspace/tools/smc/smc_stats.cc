// SPDX-License-Identifier: GPL-2.0
//
// "stats": the counters of one technology, since the last "stats reset" of
// this user (or, with -a, since the module was loaded).
#include <algorithm>
#include <cerrno>

#include "decline_codes.h"
#include "options.h"
#include "smc_tool.h"
#include "stats_snapshot.h"

namespace smc {

namespace {

// What the text shows, computed once from the counters.
struct StatsView {
	const TechStats *t = nullptr;
	std::uint64_t smc_conns = 0, clnt_conns = 0, srv_conns = 0, v1_conns = 0, v2_conns = 0;
	std::uint64_t hs_errors = 0, fallbacks = 0, total = 0, special_calls = 0;
	double avg_requests = 0;
};

StatsView make_view(const Stats &s, Tech tech)
{
	StatsView v;
	const TechStats &t = s.tech(tech);
	v.t = &t;
	v.clnt_conns = t.clnt_v1_succ + t.clnt_v2_succ;
	v.srv_conns = t.srv_v1_succ + t.srv_v2_succ;
	v.v1_conns = t.clnt_v1_succ + t.srv_v1_succ;
	v.v2_conns = t.clnt_v2_succ + t.srv_v2_succ;
	v.smc_conns = v.clnt_conns + v.srv_conns;
	v.hs_errors = s.clnt_hs_err + s.srv_hs_err;
	v.fallbacks = s.clnt_fallback + s.srv_fallback;
	v.total = v.smc_conns + v.hs_errors + v.fallbacks;
	v.special_calls = t.cork + t.nodelay + t.sendpage + t.splice + t.urg_data;
	if (v.smc_conns)
		v.avg_requests = static_cast<double>(t.rx_cnt + t.tx_cnt) / static_cast<double>(v.smc_conns);
	return v;
}

double percent(std::uint64_t part, std::uint64_t whole)
{
	return whole ? static_cast<double>(part) * 100.0 / static_cast<double>(whole) : 0.0;
}

// "  Label                      1234" with the number right-aligned at a
// fixed column.
std::string row(const std::string &label, std::uint64_t n)
{
	return "  " + pad(label, 27, Align::left) + strprintf("%12llu", static_cast<unsigned long long>(n));
}

std::string split(std::uint64_t clnt, std::uint64_t srv)
{
	return strprintf(" (client %llu, server %llu)", static_cast<unsigned long long>(clnt),
			 static_cast<unsigned long long>(srv));
}

void print_reasons(std::ostream &out, const char *side, std::vector<FallbackReason> reasons)
{
	std::stable_sort(reasons.begin(), reasons.end(),
			 [](const FallbackReason &a, const FallbackReason &b) { return a.count > b.count; });
	if (reasons.empty())
		return;
	out << "    " << side << '\n';
	// The three most frequent reasons.
	for (std::size_t i = 0; i < reasons.size() && i < 3; ++i)
		out << "      " << pad(decline_code_label(reasons[i].code), 21, Align::left)
		    << strprintf("%12llu", static_cast<unsigned long long>(reasons[i].count)) << '\n';
}

void print_histograms(std::ostream &out, const SizeHistogram &bufs, const SizeHistogram &reqs)
{
	auto line = [&](const char *label, const SizeHistogram &h) {
		out << "  " << label << "   ";
		for (std::size_t i = 0; i < 7; ++i)
			out << strprintf("%6s  ", abbreviate(h[i]).c_str());
		// the last column holds everything above 512K
		out << strprintf("%6s", abbreviate(h[7] + h[8]).c_str()) << '\n';
	};
	out << "            8KB    16KB    32KB    64KB   128KB   256KB   512KB  >512KB\n";
	line("Bufs", bufs);
	line("Reqs", reqs);
}

void print_text(std::ostream &out, const Stats &s, Tech tech, bool details)
{
	StatsView v = make_view(s, tech);
	const TechStats &t = *v.t;
	out << tech_name(tech) << " Connections Summary\n";
	out << row("Total connections handled", v.total) << '\n';
	out << row("SMC connections", v.smc_conns) << (details ? split(v.clnt_conns, v.srv_conns) : "") << '\n';
	if (details) {
		out << row("  v1", v.v1_conns) << '\n';
		out << row("  v2", v.v2_conns) << '\n';
	}
	out << row("Handshake errors", v.hs_errors) << (details ? split(s.clnt_hs_err, s.srv_hs_err) : "") << '\n';
	out << "  " << pad("Avg requests per SMC conn", 27, Align::left) << strprintf("%14.1f", v.avg_requests) << '\n';
	out << row("TCP fallback", v.fallbacks) << (details ? split(s.clnt_fallback, s.srv_fallback) : "") << '\n';
	if (details) {
		print_reasons(out, "Server", s.srv_reasons);
		print_reasons(out, "Client", s.clnt_reasons);
	}

	auto bytes = [&](std::uint64_t n) {
		return "  " + pad("Data transmitted (Bytes)", 25, Align::left) +
		       strprintf("%14llu (%s)", static_cast<unsigned long long>(n), abbreviate(n).c_str());
	};
	auto with_pct = [&](const std::string &label, std::uint64_t n, std::uint64_t of) {
		return row(label, n) + strprintf(" (%.2f%%)", percent(n, of));
	};
	// A level the kernel reports from Linux 6.12 on: nothing when absent.
	auto in_use = [&](const std::optional<std::uint64_t> &n) -> std::string {
		if (!n)
			return "";
		return row("Buffers in use (Bytes)", *n) + " (" + abbreviate(*n) + ")\n";
	};
	out << "\nRX Stats\n";
	out << bytes(t.rx_bytes) << '\n';
	out << row("Total requests", t.rx_cnt) << '\n';
	out << with_pct("Buffer full", t.rx_buf.full, t.rx_cnt) << '\n';
	if (details) {
		out << row("Buffer downgrades", t.rx_buf.downgrade) << '\n';
		out << row("Buffer reuses", t.rx_buf.reuse) << '\n';
		out << in_use(t.rx_buf_use);
	}
	print_histograms(out, t.rx_buf_size, t.rx_req_size);

	out << "\nTX Stats\n";
	out << bytes(t.tx_bytes) << '\n';
	out << row("Total requests", t.tx_cnt) << '\n';
	out << with_pct("Buffer full", t.tx_buf.full, t.tx_cnt) << '\n';
	if (details) {
		out << with_pct("Buffer full (remote)", t.tx_buf.full_peer, t.tx_cnt) << '\n';
		out << with_pct("Buffer too small", t.tx_buf.size_small, t.tx_cnt) << '\n';
		out << with_pct("Buffer too small (remote)", t.tx_buf.size_small_peer, t.tx_cnt) << '\n';
		out << row("Buffer downgrades", t.tx_buf.downgrade) << '\n';
		out << row("Buffer reuses", t.tx_buf.reuse) << '\n';
		out << in_use(t.tx_buf_use);
	}
	print_histograms(out, t.tx_buf_size, t.tx_req_size);

	out << "\nExtras\n";
	out << row("Special socket calls", v.special_calls) << '\n';
	if (details) {
		out << row("  cork", t.cork) << '\n';
		out << row("  nodelay", t.nodelay) << '\n';
		out << row("  sendpage", t.sendpage) << '\n';
		out << row("  splice", t.splice) << '\n';
		out << row("  urgent data", t.urg_data) << '\n';
	}
	// af_smc's own (smcr only): nothing from a kernel without them.
	if (details && tech == Tech::smcr && s.links) {
		out << "\nLink Failovers\n";
		out << row("Connections moved", s.links->failovers) << '\n';
		out << row("Bytes written again", s.links->resent) << " (" << abbreviate(s.links->resent)
		    << ")\n";
	}
}

json::Value reasons_json(const std::vector<FallbackReason> &reasons)
{
	json::Value a = json::Value::array();
	for (const auto &r : reasons) {
		json::Value o = json::Value::object();
		o.set("code", hex0x(r.code, 8));
		if (const char *name = decline_code_name(r.code))
			o.set("name", name);
		o.set("count", r.count);
		a.push(std::move(o));
	}
	return a;
}

// {"SMCD": {...}} or {"SMCR": {...}}: every counter of the technology under
// its stable name, then the shared counters and the fallback reasons.
json::Value to_json(const Stats &s, Tech tech)
{
	json::Value counters = json::Value::object();
	auto add = [&](const std::string &name, const std::uint64_t &v) { counters.set(name, v); };
	for_each_counter(s.tech(tech), add);
	for_each_global_counter(s, add);
	if (tech == Tech::smcr && s.links)
		for_each_link_counter(*s.links, add);
	const TechStats &t = s.tech(tech);
	if (t.rx_buf_use)
		counters.set("SMC_RX_RMB_USAGE", *t.rx_buf_use);
	if (t.tx_buf_use)
		counters.set("SMC_TX_RMB_USAGE", *t.tx_buf_use);
	counters.set("SMC_SRV_FBACK_RSN", reasons_json(s.srv_reasons));
	counters.set("SMC_CLNT_FBACK_RSN", reasons_json(s.clnt_reasons));
	json::Value out = json::Value::object();
	out.set(tech == Tech::smcd ? "SMCD" : "SMCR", std::move(counters));
	return out;
}

} // namespace

std::string stats_help(const SmcContext &ctx)
{
	const std::string &p = ctx.prog;
	return "Usage: " + p + " [-d] [-a] [-j] stats [show | reset | json]\n"
	       "show (the default) prints the " + std::string(tech_name(ctx.tech)) +
	       " statistics counted since your last reset;\n"
	       "reset prints them and then starts counting anew (for you alone: the kernel's\n"
	       "counters stay; " + p + " keeps a snapshot of them); json prints them as JSON.\n"
	       "-d adds more counters, and the bytes of buffers the connections hold now\n"
	       "(kernels that report them)" +
	       std::string(ctx.tech == Tech::smcr ? ", and link failovers (af_smc)" : "") +
	       "; -a counts from the loading of the module instead.\n";
}

int smc_stats(SmcContext &ctx, Args args)
{
	static constexpr std::string_view commands[] = {"show", "reset", "json"};
	int cmd = 0;
	if (!args.empty()) {
		if (is_help_word(args[0])) {
			ctx.env.out << stats_help(ctx);
			return exit_ok;
		}
		cmd = match_word(args[0], commands);
		if (cmd < 0)
			return ctx.usage("stats", "unknown command '" + args[0] + "'");
		if (args.size() > 1) {
			if (is_help_word(args[1])) {
				ctx.env.out << stats_help(ctx);
				return exit_ok;
			}
			return ctx.usage("stats", "unexpected argument '" + args[1] + "'");
		}
	}
	bool reset = cmd == 1;
	bool json = ctx.json || cmd == 2;

	auto g = ctx.genl();
	if (!g)
		return ctx.fail(g.error());
	auto now = (*g)->stats();
	if (!now)
		return ctx.fail(now.error());
	if (ctx.tech == Tech::smcr) {
		auto links = (*g)->link_stats();
		if (!links)
			return ctx.fail(links.error());
		now->links = *links;
	}

	SnapshotStore store(ctx.env.state_dir, ctx.env.uid);
	Stats shown = *now;
	if (!ctx.absolute) {
		auto snap = store.load(ctx.tech);
		if (!snap) {
			if (snap.error().code != EBADMSG)
				return ctx.fail(snap.error());
			ctx.env.err << ctx.prog << ": ignoring " << snap.error().message << '\n';
		} else if (*snap) {
			if (auto diff = subtract_snapshot(*now, **snap, ctx.tech)) {
				shown = std::move(*diff);
			} else {
				// The module was reloaded since: the snapshot is void.
				(void)store.remove(ctx.tech);
			}
		}
	}

	if (json)
		ctx.print_json(to_json(shown, ctx.tech));
	else
		print_text(ctx.env.out, shown, ctx.tech, ctx.detail > 0);

	if (reset) {
		if (auto r = store.save(ctx.tech, *now); !r)
			return ctx.fail(r.error());
	}
	return exit_ok;
}

} // namespace smc
