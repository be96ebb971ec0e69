// SPDX-License-Identifier: GPL-2.0
//
// The SMC_GEN_NETLINK family: queries and table changes, with the kernel's
// error codes turned into messages a user can act on.
#pragma once

#include <string>
#include <vector>

#include "genl.h"
#include "smc_model.h"

namespace smc {

// Messages for errors every family shares: missing privilege, unknown
// command; and, when opening, a missing family (module not loaded).
Error explain_genl_error(Error e, const std::string &family);
Error explain_open_error(Error e, const std::string &family);

class SmcGenl {
public:
	static Result<SmcGenl> open(nl::TransportFactory &factory);

	Result<SysInfo> sys_info();
	Result<std::vector<Device>> devices(Tech tech);
	Result<std::vector<LinkGroupR>> linkgroups_r(bool with_links);
	Result<std::vector<LinkGroupD>> linkgroups_d();
	Result<Stats> stats();
	// SMC-R's failover counters (af_smc's own command); nullopt from a
	// kernel without it (Linux's smc.ko answers EOPNOTSUPP).
	Result<std::optional<LinkStats>> link_stats();

	Result<std::vector<std::string>> ueids();
	// ueid is already validated and padded (see eid.h).
	Result<void> add_ueid(const std::string &ueid);
	// True when the kernel re-enabled the System EID because the last
	// User EID went away.
	Result<bool> remove_ueid(const std::string &ueid);
	Result<void> flush_ueids();

	Result<SeidInfo> seid();
	Result<void> enable_seid();
	Result<void> disable_seid();

	// The handshake policy of the caller's netns (af_smc's own commands).
	Result<std::vector<PolicyRule>> policy();
	// Appends rule (its id is ignored; the kernel gives one).
	Result<void> add_policy(const PolicyRule &rule);
	Result<void> del_policy(std::uint32_t id);
	Result<void> flush_policy();

private:
	explicit SmcGenl(nl::GenlFamily family) : family_(std::move(family)) {}
	Result<std::vector<nl::GenlMessage>> dump(std::uint8_t cmd);
	Result<std::vector<nl::GenlMessage>> execute(std::uint8_t cmd, const nl::AttrFiller &fill = {});
	nl::GenlFamily family_;
};

} // namespace smc
