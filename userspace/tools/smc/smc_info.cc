// SPDX-License-Identifier: GPL-2.0
//
// "info": what the kernel's SMC supports, and what hardware it found.
#include "smc_tool.h"

namespace smc {

namespace {

constexpr std::uint64_t roce_express_v1 = 0x1004;	// PCI device id of the first RoCE Express

struct InfoView {
	std::optional<std::string> version;	// "2.1"
	std::optional<std::string> hostname;
	std::vector<std::string> smcd_features, smcr_features;
	std::optional<std::string> seid;
	std::vector<std::string> ism, roce;	// empty: no such hardware
};

InfoView make_view(const SysInfo &info, const std::vector<Device> &ism,
		   const std::vector<Device> &roce)
{
	InfoView v;
	if (info.version && info.release)
		v.version = std::to_string(*info.version) + "." + std::to_string(*info.release);
	// The kernel pads both to their full length with blanks.
	if (info.hostname && !trim(*info.hostname).empty())
		v.hostname = trim(*info.hostname);
	bool v2 = info.version.value_or(1) >= 2;
	v.smcd_features = {"v1"};
	if (v2)
		v.smcd_features.push_back("v2");
	v.smcr_features = {"v1"};
	if (info.smcr_v2.value_or(false))
		v.smcr_features.push_back("v2");
	if (info.seid && !trim(*info.seid).empty())
		v.seid = trim(*info.seid);
	if (!ism.empty()) {
		v.ism = {"v1"};
		if (info.ism_v2.value_or(false))
			v.ism.push_back("v2");
	}
	if (!roce.empty()) {
		// Every RoCE device does v1; all but the first RoCE Express do
		// RoCE v2 too (soft-RoCE, without a PCI device id, among them).
		v.roce = {"v1"};
		for (const auto &d : roce)
			if (d.pci_device != roce_express_v1) {
				v.roce.push_back("v2");
				break;
			}
	}
	return v;
}

std::string join(const std::vector<std::string> &words)
{
	std::string s;
	for (const auto &w : words)
		s += (s.empty() ? "" : " ") + w;
	return s;
}

json::Value json_list(const std::vector<std::string> &words)
{
	json::Value a = json::Value::array();
	for (const auto &w : words)
		a.push(w);
	return a;
}

json::Value json_opt(const std::optional<std::string> &s)
{
	return s ? json::Value(*s) : json::Value();
}

void print_text(std::ostream &out, const InfoView &v)
{
	auto line = [&](const char *label, const std::string &value) {
		out << pad(std::string(label) + ":", 18, Align::left) << (value.empty() ? "n/a" : value) << '\n';
	};
	out << "Kernel Capabilities\n";
	line("SMC Version", v.version.value_or(""));
	line("SMC Hostname", v.hostname.value_or(""));
	line("SMC-D Features", join(v.smcd_features));
	line("SMC-R Features", join(v.smcr_features));
	out << "\nHardware Capabilities\n";
	line("SEID", v.seid.value_or(""));
	line("ISM", join(v.ism));
	line("RoCE", join(v.roce));
}

json::Value to_json(const InfoView &v)
{
	json::Value kernel = json::Value::object();
	kernel.set("smc_version", json_opt(v.version))
		.set("hostname", json_opt(v.hostname))
		.set("smcd_features", json_list(v.smcd_features))
		.set("smcr_features", json_list(v.smcr_features));
	json::Value hw = json::Value::object();
	hw.set("seid", json_opt(v.seid)).set("ism", json_list(v.ism)).set("roce", json_list(v.roce));
	json::Value out = json::Value::object();
	out.set("kernel", std::move(kernel)).set("hardware", std::move(hw));
	return out;
}

} // namespace

std::string info_help(const SmcContext &ctx)
{
	return "Usage: " + ctx.prog + " info [show]\n"
	       "Show the SMC version and features of the kernel, the host name and System EID\n"
	       "it announces, and the SMC versions the ISM and RoCE hardware allows.\n";
}

int smc_info(SmcContext &ctx, Args args)
{
	if (!args.empty()) {
		if (is_help_word(args[0])) {
			ctx.env.out << info_help(ctx);
			return exit_ok;
		}
		if (!is_prefix(args[0], "show"))
			return ctx.usage("info", "unknown command '" + args[0] + "'");
		if (args.size() > 1)
			return ctx.usage("info", "unexpected argument '" + args[1] + "'");
	}
	auto g = ctx.genl();
	if (!g)
		return ctx.fail(g.error());
	auto info = (*g)->sys_info();
	if (!info)
		return ctx.fail(info.error());
	auto ism = (*g)->devices(Tech::smcd);
	if (!ism)
		return ctx.fail(ism.error());
	auto roce = (*g)->devices(Tech::smcr);
	if (!roce)
		return ctx.fail(roce.error());
	InfoView v = make_view(*info, *ism, *roce);
	if (ctx.json)
		ctx.print_json(to_json(v));
	else
		print_text(ctx.env.out, v);
	return exit_ok;
}

} // namespace smc
