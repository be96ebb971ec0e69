// SPDX-License-Identifier: GPL-2.0
//
// "ueid" and "seid": the Enterprise IDs an SMC v2 handshake offers. Two
// hosts do SMC v2 only when they share an EID: one of up to four User EIDs,
// or the System EID (SMC-D on s390 only).
#include <cctype>
#include <cerrno>

#include <linux/smc.h>

#include "options.h"
#include "smc_tool.h"

namespace smc {

namespace {

// The kernel's rules for a User EID: up to 32 characters of A-Z, 0-9, '.'
// and '-', starting with a letter or digit, no "..". It is sent padded with
// blanks to 32 characters.
Result<std::string> check_ueid(const std::string &eid)
{
	auto bad = [&](const std::string &why) {
		return make_error(EINVAL, "invalid User EID '" + eid + "': " + why);
	};
	if (eid.empty())
		return bad("it is empty");
	if (eid.size() > SMC_MAX_EID_LEN)
		return bad("it is longer than " + std::to_string(SMC_MAX_EID_LEN) + " characters");
	if (!std::isalnum(static_cast<unsigned char>(eid[0])))
		return bad("it must start with a letter or a digit");
	if (eid.find("..") != std::string::npos)
		return bad("it may not hold two dots in a row");
	for (unsigned char c : eid) {
		bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
		if (!ok)
			return bad(std::string("the character '") + static_cast<char>(c) +
				   "' is not allowed (only A-Z, 0-9, '.' and '-')");
	}
	return eid + std::string(SMC_MAX_EID_LEN - eid.size(), ' ');
}

Table<std::string> ueid_table()
{
	return Table<std::string>({Column<std::string>{"UEID", "ueid", 0, Align::left, 0,
		[](const std::string &e) { return std::optional<Cell>(text_cell(trim(e))); }}});
}

} // namespace

std::string ueid_help(const SmcContext &ctx)
{
	const std::string &p = ctx.prog;
	return "Usage: " + p + " ueid [show]\n"
	       "       " + p + " ueid add EID\n"
	       "       " + p + " ueid del EID\n"
	       "       " + p + " ueid flush\n"
	       "Show, add or delete the User Enterprise IDs (at most 4) that SMC v2 offers its\n"
	       "peers. An EID has up to 32 characters of A-Z, 0-9, '.' and '-', and starts\n"
	       "with a letter or digit. Changes need CAP_NET_ADMIN.\n";
}

std::string seid_help(const SmcContext &ctx)
{
	const std::string &p = ctx.prog;
	return "Usage: " + p + " seid [show]\n"
	       "       " + p + " seid enable\n"
	       "       " + p + " seid disable\n"
	       "Show the System Enterprise ID and whether SMC v2 offers it; enable or disable\n"
	       "offering it (disabling needs a User EID). Changes need CAP_NET_ADMIN.\n";
}

int smc_ueid(SmcContext &ctx, Args args)
{
	static constexpr std::string_view commands[] = {"show", "add", "del", "flush"};
	int cmd = 0;
	if (!args.empty()) {
		if (is_help_word(args[0])) {
			ctx.env.out << ueid_help(ctx);
			return exit_ok;
		}
		cmd = match_word(args[0], commands);
		if (cmd < 0)
			return ctx.usage("ueid", "unknown command '" + args[0] + "'");
	}
	bool needs_eid = cmd == 1 || cmd == 2;
	std::size_t expected = args.empty() ? 0 : needs_eid ? 2 : 1;
	for (std::size_t i = 1; i < args.size(); ++i)
		if (is_help_word(args[i]) && !(needs_eid && i == 1)) {
			ctx.env.out << ueid_help(ctx);
			return exit_ok;
		}
	if (needs_eid && args.size() < 2)
		return ctx.usage("ueid", "'" + args[0] + "' needs an EID");
	if (args.size() > expected)
		return ctx.usage("ueid", "unexpected argument '" + args[expected] + "'");
	std::string eid;
	if (needs_eid) {
		auto checked = check_ueid(args[1]);
		if (!checked)
			return ctx.usage("ueid", checked.error().message);
		eid = *checked;
	}

	auto g = ctx.genl();
	if (!g)
		return ctx.fail(g.error());
	switch (cmd) {
	case 1:
		if (auto r = (*g)->add_ueid(eid); !r)
			return ctx.fail(r.error());
		return exit_ok;
	case 2: {
		auto r = (*g)->remove_ueid(eid);
		if (!r)
			return ctx.fail(r.error());
		if (*r)
			ctx.env.err << ctx.prog << ": note: that was the last User EID; "
				    "the System EID is offered again\n";
		return exit_ok;
	}
	case 3:
		if (auto r = (*g)->flush_ueids(); !r)
			return ctx.fail(r.error());
		return exit_ok;
	default:
		break;
	}
	auto ueids = (*g)->ueids();
	if (!ueids)
		return ctx.fail(ueids.error());
	auto table = ueid_table();
	if (ctx.json)
		ctx.print_json(table.to_json(*ueids));
	else
		table.print_text(ctx.env.out, *ueids, false);
	return exit_ok;
}

int smc_seid(SmcContext &ctx, Args args)
{
	static constexpr std::string_view commands[] = {"show", "enable", "disable"};
	int cmd = 0;
	if (!args.empty()) {
		if (is_help_word(args[0])) {
			ctx.env.out << seid_help(ctx);
			return exit_ok;
		}
		cmd = match_word(args[0], commands);
		if (cmd < 0)
			return ctx.usage("seid", "unknown command '" + args[0] + "'");
		if (args.size() > 1) {
			if (is_help_word(args[1])) {
				ctx.env.out << seid_help(ctx);
				return exit_ok;
			}
			return ctx.usage("seid", "unexpected argument '" + args[1] + "'");
		}
	}
	auto g = ctx.genl();
	if (!g)
		return ctx.fail(g.error());
	auto seid = (*g)->seid();
	if (!seid)
		return ctx.fail(seid.error());
	if (cmd != 0) {
		if (!seid->seid)
			return ctx.fail(make_error(ENOENT, "this system has no System EID"));
		auto r = cmd == 1 ? (*g)->enable_seid() : (*g)->disable_seid();
		if (!r)
			return ctx.fail(r.error());
		return exit_ok;
	}
	if (ctx.json) {
		json::Value o = json::Value::object();
		if (seid->seid)
			o.set("seid", trim(*seid->seid)).set("enabled", seid->enabled);
		else
			o.set("seid", json::Value());
		ctx.print_json(o);
	} else if (seid->seid) {
		ctx.env.out << trim(*seid->seid) << (seid->enabled ? " [enabled]" : " [disabled]") << '\n';
	} else {
		ctx.env.out << "n/a\n";
	}
	return exit_ok;
}

} // namespace smc
