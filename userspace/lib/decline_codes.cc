// SPDX-License-Identifier: GPL-2.0
#include "decline_codes.h"

#include "text.h"

namespace smc {

namespace {

struct Known {
	std::uint32_t code;
	const char *name;
	const char *text;	// as smcss(8) explains the code
};

constexpr Known known[] = {
	{0x01010000, "OUT_OF_MEMORY", "Out of memory"},
	{0x02010000, "TIMEOUT_CONFIRM_LINK", "Timeout while waiting for confirm link message over RDMA device"},
	{0x02020000, "TIMEOUT_ADD_LINK", "Timeout while waiting for RDMA device to be added"},
	{0x03000000, "CONFIG_ERROR", "Configuration error"},
	{0x03010000, "PEER_NO_SMC", "Peer does not support SMC"},
	{0x03020000, "IPSEC", "Connection uses IPsec"},
	{0x03030000, "NO_SMC_DEVICE", "No SMC devices found (R and D)"},
	{0x03030001, "NO_SMCD_DEVICE", "No ISM device for SMC-D found"},
	{0x03030002, "NO_SMCR_DEVICE", "No RDMA device for SMC-R found"},
	{0x03030003, "NO_ISMV2_SUPPORT", "Hardware has no ISMv2 support"},
	{0x03030004, "NO_V2_EXTENSION", "Peer sent no SMCv2 extension"},
	{0x03030005, "NO_SMCDV2_EXTENSION", "Peer sent no SMC-Dv2 extension"},
	{0x03030006, "NO_SEID", "Peer sent no ISMv2 SEID"},
	{0x03030007, "NO_SMCDV2_DEVICE", "No SMC-Dv2 device found, but required"},
	{0x03030008, "NO_UEID", "Peer sent no UEID"},
	{0x03040000, "MODE_UNSUPPORTED", "SMC modes mismatch (R or D)"},
	{0x03050000, "RMBE_EYECATCHER", "Peer has eyecatcher in RMBE"},
	{0x03060000, "OPTION_UNSUPPORTED", "Fastopen sockopt not supported"},
	{0x03070000, "DIFFERENT_PREFIX", "IP prefix / subnet mismatch"},
	{0x03080000, "GET_VLAN_ERROR", "Error retrieving VLAN ID of IP device"},
	{0x03090000, "ISM_VLAN_ERROR", "Error while registering VLAN ID on ISM device"},
	{0x030a0000, "NO_ACTIVE_LINK", "No active SMC-R link in link group"},
	{0x030b0000, "NO_SERVER_LINK", "SMC-R link from server not found"},
	{0x030c0000, "VERSION_MISMATCH", "SMC version mismatch"},
	{0x030d0000, "MAX_DMB", "SMC-D connection limit reached"},
	{0x030e0000, "NO_ROUTE", "SMC-Rv2 connection found no route to peer"},
	{0x030f0000, "DIRECT_MISMATCH", "SMC-Rv2 connection mismatch direct/indirect with peer"},
	{0x04000000, "SYNC_ERROR", "Synchronization error"},
	{0x05000000, "PEER_DECLINED", "Peer declined during handshake"},
	{0x09990000, "INTERNAL_ERROR", "Internal error"},
	{0x09990001, "RTOKEN_ERROR", "rtoken handling failed"},
	{0x09990002, "LINK_ERROR", "RDMA link failed"},
	{0x09990003, "RMB_REGISTER_ERROR", "RMB registration failed"},
};

} // namespace

const char *decline_code_name(std::uint32_t code)
{
	for (const auto &k : known)
		if (k.code == code)
			return k.name;
	return nullptr;
}

const char *decline_code_text(std::uint32_t code)
{
	for (const auto &k : known)
		if (k.code == code)
			return k.text;
	return nullptr;
}

std::string decline_code_label(std::uint32_t code)
{
	const char *name = decline_code_name(code);
	return name ? name : hex0x(code, 8);
}

} // namespace smc
