// SPDX-License-Identifier: GPL-2.0
#include "decline_codes.h"

#include "text.h"

namespace smc {

namespace {

struct Known {
	std::uint32_t code;
	const char *name;
};

constexpr Known known[] = {
	{0x01010000, "OUT_OF_MEMORY"},
	{0x02010000, "TIMEOUT_CONFIRM_LINK"},
	{0x02020000, "TIMEOUT_ADD_LINK"},
	{0x03000000, "CONFIG_ERROR"},
	{0x03010000, "PEER_NO_SMC"},
	{0x03020000, "IPSEC"},
	{0x03030000, "NO_SMC_DEVICE"},
	{0x03030001, "NO_SMCD_DEVICE"},
	{0x03030002, "NO_SMCR_DEVICE"},
	{0x03030003, "NO_ISMV2_SUPPORT"},
	{0x03030004, "NO_V2_EXTENSION"},
	{0x03030005, "NO_SMCDV2_EXTENSION"},
	{0x03030006, "NO_SEID"},
	{0x03030007, "NO_SMCDV2_DEVICE"},
	{0x03030008, "NO_UEID"},
	{0x03040000, "MODE_UNSUPPORTED"},
	{0x03050000, "RMBE_EYECATCHER"},
	{0x03060000, "OPTION_UNSUPPORTED"},
	{0x03070000, "DIFFERENT_PREFIX"},
	{0x03080000, "GET_VLAN_ERROR"},
	{0x03090000, "ISM_VLAN_ERROR"},
	{0x030a0000, "NO_ACTIVE_LINK"},
	{0x030b0000, "NO_SERVER_LINK"},
	{0x030c0000, "VERSION_MISMATCH"},
	{0x030d0000, "MAX_DMB"},
	{0x030e0000, "NO_ROUTE"},
	{0x030f0000, "DIRECT_MISMATCH"},
	{0x04000000, "SYNC_ERROR"},
	{0x05000000, "PEER_DECLINED"},
	{0x09990000, "INTERNAL_ERROR"},
	{0x09990001, "RTOKEN_ERROR"},
	{0x09990002, "LINK_ERROR"},
	{0x09990003, "RMB_REGISTER_ERROR"},
};

} // namespace

const char *decline_code_name(std::uint32_t code)
{
	for (const auto &k : known)
		if (k.code == code)
			return k.name;
	return nullptr;
}

std::string decline_code_label(std::uint32_t code)
{
	const char *name = decline_code_name(code);
	return name ? name : hex0x(code, 8);
}

} // namespace smc
