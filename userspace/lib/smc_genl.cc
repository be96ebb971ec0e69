// SPDX-License-Identifier: GPL-2.0
#include "smc_genl.h"

#include <cerrno>

#include <linux/smc.h>
#include <smc/af_smc.h>
#include <sys/socket.h>

#include "smc_decode.h"

namespace smc {

Error explain_open_error(Error e, const std::string &family)
{
	if (e.code == ENOENT) {
		e.message = "SMC module not loaded (the kernel has no generic netlink family " +
			    family + ")";
		return e;
	}
	return explain_genl_error(std::move(e), family);
}

Error explain_genl_error(Error e, const std::string &family)
{
	switch (e.code) {
	case EPERM:
	case EACCES:
		e.message = "permission denied: needs CAP_NET_ADMIN";
		break;
	case EOPNOTSUPP:
		e.message = "operation not supported by this kernel's " + family;
		break;
	default:
		break;
	}
	return e;
}

Result<SmcGenl> SmcGenl::open(nl::TransportFactory &factory)
{
	auto f = nl::GenlFamily::open(factory, SMC_GENL_FAMILY_NAME, SMC_GENL_FAMILY_VERSION);
	if (!f)
		return explain_open_error(f.error(), SMC_GENL_FAMILY_NAME);
	return SmcGenl(std::move(*f));
}

Result<std::vector<nl::GenlMessage>> SmcGenl::dump(std::uint8_t cmd)
{
	auto r = family_.dump(cmd);
	if (!r)
		return explain_genl_error(r.error(), family_.name());
	return r;
}

Result<std::vector<nl::GenlMessage>> SmcGenl::execute(std::uint8_t cmd, const nl::AttrFiller &fill)
{
	return family_.execute(cmd, fill);
}

Result<SysInfo> SmcGenl::sys_info()
{
	auto r = dump(SMC_NETLINK_GET_SYS_INFO);
	if (!r)
		return r.error();
	return decode_sys_info(*r);
}

Result<std::vector<Device>> SmcGenl::devices(Tech tech)
{
	auto r = dump(tech == Tech::smcd ? SMC_NETLINK_GET_DEV_SMCD : SMC_NETLINK_GET_DEV_SMCR);
	if (!r)
		return r.error();
	return decode_devices(*r, tech);
}

Result<std::vector<LinkGroupR>> SmcGenl::linkgroups_r(bool with_links)
{
	auto r = dump(with_links ? SMC_NETLINK_GET_LINK_SMCR : SMC_NETLINK_GET_LGR_SMCR);
	if (!r)
		return r.error();
	return decode_linkgroups_r(*r);
}

Result<std::vector<LinkGroupD>> SmcGenl::linkgroups_d()
{
	auto r = dump(SMC_NETLINK_GET_LGR_SMCD);
	if (!r)
		return r.error();
	return decode_linkgroups_d(*r);
}

Result<Stats> SmcGenl::stats()
{
	auto fallback = dump(SMC_NETLINK_GET_FBACK_STATS);
	if (!fallback)
		return fallback.error();
	auto stats = dump(SMC_NETLINK_GET_STATS);
	if (!stats)
		return stats.error();
	return decode_stats(*stats, *fallback);
}

Result<std::optional<LinkStats>> SmcGenl::link_stats()
{
	auto r = family_.dump(SMC_NETLINK_GET_LINK_STATS);
	if (!r) {
		if (r.error().code == EOPNOTSUPP)
			return std::optional<LinkStats>{};
		return explain_genl_error(r.error(), family_.name());
	}
	auto l = decode_link_stats(*r);
	if (!l)
		return l.error();
	return std::optional<LinkStats>{*l};
}

Result<std::vector<std::string>> SmcGenl::ueids()
{
	auto r = dump(SMC_NETLINK_DUMP_UEID);
	if (!r)
		return r.error();
	return decode_ueids(*r);
}

namespace {

nl::AttrFiller eid_attr(const std::string &eid)
{
	return [eid](nl::AttrWriter &w) { w.put_str(SMC_NLA_EID_TABLE_ENTRY, eid); };
}

} // namespace

Result<void> SmcGenl::add_ueid(const std::string &ueid)
{
	auto r = execute(SMC_NETLINK_ADD_UEID, eid_attr(ueid));
	if (r)
		return {};
	Error e = r.error();
	switch (e.code) {
	case EEXIST: e.message = "the User EID is already defined"; break;
	case ERANGE: e.message = "the User EID table is full (at most " +
				 std::to_string(SMC_MAX_UEID) + " entries)"; break;
	case EINVAL: e.message = "the kernel rejected the User EID"; break;
	case ENOMEM: e.message = "the kernel ran out of memory"; break;
	default: return explain_genl_error(e, family_.name());
	}
	return e;
}

Result<bool> SmcGenl::remove_ueid(const std::string &ueid)
{
	auto r = execute(SMC_NETLINK_REMOVE_UEID, eid_attr(ueid));
	if (r)
		return false;
	Error e = r.error();
	if (e.code == EAGAIN)
		return true;
	if (e.code == ENOENT) {
		e.message = "the User EID is not defined";
		return e;
	}
	return explain_genl_error(e, family_.name());
}

Result<void> SmcGenl::flush_ueids()
{
	auto r = execute(SMC_NETLINK_FLUSH_UEID);
	if (!r)
		return explain_genl_error(r.error(), family_.name());
	return {};
}

Result<SeidInfo> SmcGenl::seid()
{
	auto r = dump(SMC_NETLINK_DUMP_SEID);
	if (!r)
		return r.error();
	return decode_seid(*r);
}

Result<void> SmcGenl::enable_seid()
{
	auto r = execute(SMC_NETLINK_ENABLE_SEID);
	if (!r)
		return explain_genl_error(r.error(), family_.name());
	return {};
}

Result<void> SmcGenl::disable_seid()
{
	auto r = execute(SMC_NETLINK_DISABLE_SEID);
	if (r)
		return {};
	Error e = r.error();
	if (e.code == ENOENT) {
		e.message = "the System EID cannot be disabled while no User EID is defined";
		return e;
	}
	return explain_genl_error(e, family_.name());
}

namespace {

// A kernel without the policy commands (Linux's smc.ko, or an older
// af_smc) answers an unknown command with EOPNOTSUPP.
Error explain_policy_error(Error e, const std::string &family)
{
	if (e.code == EOPNOTSUPP) {
		e.message = "this kernel's SMC module has no handshake policy (af_smc's own commands)";
		return e;
	}
	return explain_genl_error(std::move(e), family);
}

} // namespace

Result<std::vector<PolicyRule>> SmcGenl::policy()
{
	auto r = family_.dump(SMC_NETLINK_DUMP_POLICY);
	if (!r)
		return explain_policy_error(r.error(), family_.name());
	return decode_policy(*r);
}

Result<void> SmcGenl::add_policy(const PolicyRule &rule)
{
	auto r = execute(SMC_NETLINK_ADD_POLICY, [&rule](nl::AttrWriter &w) {
		w.put_u8(SMC_NLA_POLICY_ACTION, rule.action);
		if (rule.port_lo != 0)
			w.put_u16(SMC_NLA_POLICY_PORT_LO, rule.port_lo);
		if (rule.port_hi != 65535)
			w.put_u16(SMC_NLA_POLICY_PORT_HI, rule.port_hi);
		if (rule.family == 0)
			return;
		w.put_u8(SMC_NLA_POLICY_FAMILY, static_cast<std::uint8_t>(rule.family));
		w.put(SMC_NLA_POLICY_ADDR, ByteView(rule.addr.data(), rule.family == AF_INET ? 4 : 16));
		w.put_u8(SMC_NLA_POLICY_PREFIXLEN, rule.prefix_len);
	});
	if (!r) {
		Error e = r.error();
		if (e.code == ENOSPC)
			e.message = "the handshake policy is full (at most " +
				    std::to_string(SMC_POLICY_MAX_RULES) + " rules)";
		else if (e.code == EEXIST)
			e.message = "a rule for these peers and ports exists already";
		else if (e.code != EINVAL)	// EINVAL carries the kernel's reason
			return explain_policy_error(std::move(e), family_.name());
		return e;
	}
	return {};
}

Result<void> SmcGenl::del_policy(std::uint32_t id)
{
	auto r = execute(SMC_NETLINK_DEL_POLICY, [id](nl::AttrWriter &w) {
		w.put_u32(SMC_NLA_POLICY_ID, id);
	});
	if (r)
		return {};
	Error e = r.error();
	if (e.code == ENOENT) {
		e.message = "no rule has id " + std::to_string(id);
		return e;
	}
	return explain_policy_error(std::move(e), family_.name());
}

Result<void> SmcGenl::flush_policy()
{
	auto r = execute(SMC_NETLINK_FLUSH_POLICY);
	if (!r)
		return explain_policy_error(r.error(), family_.name());
	return {};
}

} // namespace smc
