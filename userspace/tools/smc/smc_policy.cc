// SPDX-License-Identifier: GPL-2.0
//
// "policy": the handshake policy of the caller's network namespace, an
// ordered list of rules saying which connections stay on TCP (action tcp)
// or may use SMC (action smc), by peer prefix and service port. The first
// rule that matches decides (Documentation/handshake-policy.md).
#include <arpa/inet.h>
#include <sys/socket.h>

#include <charconv>
#include <cerrno>

#include <smc/af_smc.h>

#include "options.h"
#include "smc_tool.h"

namespace smc {

namespace {

std::optional<unsigned long> parse_number(std::string_view s, unsigned long max)
{
	unsigned long v = 0;
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > max)
		return std::nullopt;
	return v;
}

// "ADDR" (one host) or "ADDR/LEN", IPv4 or IPv6, with no host bits set
// past LEN (the kernel refuses those too; saying so here names the word).
Result<PolicyRule> parse_prefix(const std::string &word, PolicyRule r)
{
	auto bad = [&](const std::string &why) {
		return make_error(EINVAL, "invalid peer prefix '" + word + "': " + why);
	};
	std::string addr = word;
	std::optional<unsigned long> len;
	if (auto slash = word.find('/'); slash != std::string::npos) {
		addr = word.substr(0, slash);
		len = parse_number(std::string_view(word).substr(slash + 1), 128);
		if (!len)
			return bad("the prefix length is not a number from 0 to 128");
	}
	if (inet_pton(AF_INET, addr.c_str(), r.addr.data()) == 1)
		r.family = AF_INET;
	else if (inet_pton(AF_INET6, addr.c_str(), r.addr.data()) == 1)
		r.family = AF_INET6;
	else
		return bad("'" + addr + "' is neither an IPv4 nor an IPv6 address");
	unsigned bits = r.family == AF_INET ? 32 : 128;
	if (len && *len > bits)
		return bad("an IPv4 prefix is at most 32 bits long");
	r.prefix_len = static_cast<std::uint8_t>(len.value_or(bits));
	for (unsigned b = r.prefix_len; b < bits; ++b)
		if (r.addr[b / 8] & (0x80 >> (b % 8)))
			return bad("bits are set past the prefix length");
	return r;
}

// "PORT" or "LO-HI", 1 to 65535 (a service port is never 0).
Result<PolicyRule> parse_ports(const std::string &word, PolicyRule r)
{
	std::string_view w = word;
	auto dash = w.find('-');
	auto lo = parse_number(w.substr(0, dash), 65535);
	auto hi = dash == std::string_view::npos ? lo : parse_number(w.substr(dash + 1), 65535);
	if (!lo || !hi || *lo == 0 || *hi < *lo)
		return make_error(EINVAL, "invalid port '" + word +
					  "': give PORT or LOW-HIGH, from 1 to 65535, LOW <= HIGH");
	r.port_lo = static_cast<std::uint16_t>(*lo);
	r.port_hi = static_cast<std::uint16_t>(*hi);
	return r;
}

// The words after "add": smc|tcp [peer PREFIX] [port PORTS], the two
// optional parts in either order, each at most once.
Result<PolicyRule> parse_rule(Args args)
{
	static constexpr std::string_view actions[] = {"smc", "tcp"};
	static constexpr std::string_view keys[] = {"peer", "port"};
	PolicyRule r;
	if (args.empty())
		return make_error(EINVAL, "'add' needs an action: smc or tcp");
	int action = match_word(args[0], actions);
	if (action < 0)
		return make_error(EINVAL, "unknown action '" + args[0] + "': use smc or tcp");
	r.action = action == 0 ? SMC_POLICY_SMC : SMC_POLICY_TCP;
	bool seen[2] = {false, false};
	for (std::size_t i = 1; i < args.size(); i += 2) {
		int key = match_word(args[i], keys);
		if (key < 0)
			return make_error(EINVAL, "unexpected argument '" + args[i] + "'");
		if (seen[key])
			return make_error(EINVAL, "'" + std::string(keys[key]) + "' given twice");
		seen[key] = true;
		if (i + 1 >= args.size())
			return make_error(EINVAL, "'" + std::string(keys[key]) + "' needs " +
						  (key == 0 ? "a prefix" : "a port or a range"));
		auto next = key == 0 ? parse_prefix(args[i + 1], r) : parse_ports(args[i + 1], r);
		if (!next)
			return next.error();
		r = *next;
	}
	return r;
}

std::string peer_text(const PolicyRule &r)
{
	if (r.family == 0)
		return "any";
	char buf[INET6_ADDRSTRLEN];
	if (!inet_ntop(r.family, r.addr.data(), buf, sizeof(buf)))
		return "?";
	return std::string(buf) + "/" + std::to_string(r.prefix_len);
}

std::string ports_text(const PolicyRule &r)
{
	if (r.port_lo == 0 && r.port_hi == 65535)
		return "any";
	if (r.port_lo == r.port_hi)
		return std::to_string(r.port_lo);
	return std::to_string(r.port_lo) + "-" + std::to_string(r.port_hi);
}

std::string action_text(const PolicyRule &r)
{
	switch (r.action) {
	case SMC_POLICY_SMC: return "smc";
	case SMC_POLICY_TCP: return "tcp";
	default: return "action " + std::to_string(r.action);
	}
}

Table<PolicyRule> policy_table()
{
	auto num = [](std::uint64_t v) { return std::optional<Cell>(Cell{std::to_string(v), json::Value(v)}); };
	return Table<PolicyRule>({
		Column<PolicyRule>{"ID", "id", 4, Align::left, 1,
			[num](const PolicyRule &r) { return num(r.id); }},
		Column<PolicyRule>{"ACTION", "action", 6, Align::left, 1,
			[](const PolicyRule &r) { return std::optional<Cell>(text_cell(action_text(r))); }},
		Column<PolicyRule>{"PEER", "peer", 24, Align::left, 1,
			[](const PolicyRule &r) { return std::optional<Cell>(text_cell(peer_text(r))); }},
		Column<PolicyRule>{"PORTS", "ports", 0, Align::left, 0,
			[](const PolicyRule &r) { return std::optional<Cell>(text_cell(ports_text(r))); },
			Show::text_only},
		Column<PolicyRule>{"", "port_low", 0, Align::left, 0,
			[num](const PolicyRule &r) { return num(r.port_lo); }, Show::json_only},
		Column<PolicyRule>{"", "port_high", 0, Align::left, 0,
			[num](const PolicyRule &r) { return num(r.port_hi); }, Show::json_only},
	});
}

} // namespace

std::string policy_help(const SmcContext &ctx)
{
	const std::string &p = ctx.prog;
	return "Usage: " + p + " policy [show]\n"
	       "       " + p + " policy add {smc|tcp} [peer PREFIX] [port PORT[-PORT]]\n"
	       "       " + p + " policy del ID\n"
	       "       " + p + " policy flush\n"
	       "Show or change the handshake policy of this network namespace: which\n"
	       "connections stay TCP (tcp) or may use SMC (smc). A rule matches peers in\n"
	       "PREFIX (IPv4 or IPv6, ADDR or ADDR/LEN; any peer without one) and service\n"
	       "ports (the port a server listens on or a client connects to; any without\n"
	       "one). The first matching rule decides; no match means SMC may be used.\n"
	       "A rule is added at the end, at most " + std::to_string(SMC_POLICY_MAX_RULES) +
	       ". Changes need CAP_NET_ADMIN.\n";
}

int smc_policy(SmcContext &ctx, Args args)
{
	static constexpr std::string_view commands[] = {"show", "add", "del", "flush"};
	int cmd = 0;
	if (!args.empty()) {
		if (is_help_word(args[0])) {
			ctx.env.out << policy_help(ctx);
			return exit_ok;
		}
		cmd = match_word(args[0], commands);
		if (cmd < 0)
			return ctx.usage("policy", "unknown command '" + args[0] + "'");
	}
	for (std::size_t i = 1; i < args.size(); ++i)
		if (is_help_word(args[i])) {
			ctx.env.out << policy_help(ctx);
			return exit_ok;
		}
	PolicyRule rule;
	std::uint32_t id = 0;
	if (cmd == 1) {
		auto r = parse_rule(args.subspan(1));
		if (!r)
			return ctx.usage("policy", r.error().message);
		rule = *r;
	} else if (cmd == 2) {
		if (args.size() < 2)
			return ctx.usage("policy", "'del' needs a rule id");
		auto n = parse_number(args[1], 0xffffffffUL);
		if (!n || *n == 0)
			return ctx.usage("policy", "invalid rule id '" + args[1] + "'");
		id = static_cast<std::uint32_t>(*n);
		if (args.size() > 2)
			return ctx.usage("policy", "unexpected argument '" + args[2] + "'");
	} else if (args.size() > 1) {
		return ctx.usage("policy", "unexpected argument '" + args[1] + "'");
	}

	auto g = ctx.genl();
	if (!g)
		return ctx.fail(g.error());
	Result<void> done;
	switch (cmd) {
	case 1: done = (*g)->add_policy(rule); break;
	case 2: done = (*g)->del_policy(id); break;
	case 3: done = (*g)->flush_policy(); break;
	default: {
		auto rules = (*g)->policy();
		if (!rules)
			return ctx.fail(rules.error());
		auto table = policy_table();
		if (ctx.json)
			ctx.print_json(table.to_json(*rules));
		else
			table.print_text(ctx.env.out, *rules);
		return exit_ok;
	}
	}
	if (!done)
		return ctx.fail(done.error());
	return exit_ok;
}

} // namespace smc
