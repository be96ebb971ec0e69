// SPDX-License-Identifier: GPL-2.0
//
// Decoding of SMC_GEN_NETLINK replies into the typed model. Pure functions
// of the messages, so tests feed them canned replies directly.
#pragma once

#include <string>
#include <vector>

#include "genl.h"
#include "smc_model.h"

namespace smc {

using nl::GenlMessage;

Result<SysInfo> decode_sys_info(const std::vector<GenlMessage> &msgs);
Result<std::vector<Device>> decode_devices(const std::vector<GenlMessage> &msgs, Tech tech);
// Link messages (SMC_GEN_LINK_SMCR) belong to the link group message before them.
Result<std::vector<LinkGroupR>> decode_linkgroups_r(const std::vector<GenlMessage> &msgs);
Result<std::vector<LinkGroupD>> decode_linkgroups_d(const std::vector<GenlMessage> &msgs);
Result<Stats> decode_stats(const std::vector<GenlMessage> &stats,
			   const std::vector<GenlMessage> &fallback);
Result<LinkStats> decode_link_stats(const std::vector<GenlMessage> &msgs);
Result<std::vector<std::string>> decode_ueids(const std::vector<GenlMessage> &msgs);
Result<SeidInfo> decode_seid(const std::vector<GenlMessage> &msgs);
Result<std::vector<PolicyRule>> decode_policy(const std::vector<GenlMessage> &msgs);

// Notes whether any attribute stream it parsed was malformed.
class AttrDecoder {
public:
	nl::AttrSet top(const GenlMessage &m) { return check(m.attributes()); }
	nl::AttrSet nest(const nl::AttrSet &in, std::uint16_t type) { return check(in.nested(type)); }
	bool failed() const { return failed_; }
	Error error(const std::string &what) const;

private:
	nl::AttrSet check(nl::AttrSet s)
	{
		if (!s.well_formed())
			failed_ = true;
		return s;
	}
	bool failed_ = false;
};

} // namespace smc
