// SPDX-License-Identifier: GPL-2.0
#include "decline_codes.h"

#include "smc_decline.h"
#include "text.h"

namespace smc {

namespace {

// The codes are kernel/wire's (one definition for the module and the
// tools); the names and texts are what smcss(8) prints for them.
constexpr DeclineCode known[] = {
	{SMC_CLC_DECL_MEM, "OUT_OF_MEMORY", "Out of memory"},
	{SMC_CLC_DECL_TIMEOUT_CL, "TIMEOUT_CONFIRM_LINK", "Timeout while waiting for confirm link message over RDMA device"},
	{SMC_CLC_DECL_TIMEOUT_AL, "TIMEOUT_ADD_LINK", "Timeout while waiting for RDMA device to be added"},
	{SMC_CLC_DECL_CNFERR, "CONFIG_ERROR", "Configuration error"},
	{SMC_CLC_DECL_PEERNOSMC, "PEER_NO_SMC", "Peer does not support SMC"},
	{SMC_CLC_DECL_IPSEC, "IPSEC", "Connection uses IPsec"},
	{SMC_CLC_DECL_NOSMCDEV, "NO_SMC_DEVICE", "No SMC devices found (R and D)"},
	{SMC_CLC_DECL_NOSMCDDEV, "NO_SMCD_DEVICE", "No ISM device for SMC-D found"},
	{SMC_CLC_DECL_NOSMCRDEV, "NO_SMCR_DEVICE", "No RDMA device for SMC-R found"},
	{SMC_CLC_DECL_NOISM2SUPP, "NO_ISMV2_SUPPORT", "Hardware has no ISMv2 support"},
	{SMC_CLC_DECL_NOV2EXT, "NO_V2_EXTENSION", "Peer sent no SMCv2 extension"},
	{SMC_CLC_DECL_NOV2DEXT, "NO_SMCDV2_EXTENSION", "Peer sent no SMC-Dv2 extension"},
	{SMC_CLC_DECL_NOSEID, "NO_SEID", "Peer sent no ISMv2 SEID"},
	{SMC_CLC_DECL_NOSMCD2DEV, "NO_SMCDV2_DEVICE", "No SMC-Dv2 device found, but required"},
	{SMC_CLC_DECL_NOUEID, "NO_UEID", "Peer sent no UEID"},
	{SMC_CLC_DECL_MODEUNSUPP, "MODE_UNSUPPORTED", "SMC modes mismatch (R or D)"},
	{SMC_CLC_DECL_RMBE_EC, "RMBE_EYECATCHER", "Peer has eyecatcher in RMBE"},
	{SMC_CLC_DECL_OPTUNSUPP, "OPTION_UNSUPPORTED", "Fastopen sockopt not supported"},
	{SMC_CLC_DECL_DIFFPREFIX, "DIFFERENT_PREFIX", "IP prefix / subnet mismatch"},
	{SMC_CLC_DECL_GETVLANERR, "GET_VLAN_ERROR", "Error retrieving VLAN ID of IP device"},
	{SMC_CLC_DECL_ISMVLANERR, "ISM_VLAN_ERROR", "Error while registering VLAN ID on ISM device"},
	{SMC_CLC_DECL_NOACTLINK, "NO_ACTIVE_LINK", "No active SMC-R link in link group"},
	{SMC_CLC_DECL_NOSRVLINK, "NO_SERVER_LINK", "SMC-R link from server not found"},
	{SMC_CLC_DECL_VERSMISMAT, "VERSION_MISMATCH", "SMC version mismatch"},
	{SMC_CLC_DECL_MAX_DMB, "MAX_DMB", "SMC-D connection limit reached"},
	{SMC_CLC_DECL_NOROUTE, "NO_ROUTE", "SMC-Rv2 connection found no route to peer"},
	{SMC_CLC_DECL_NOINDIRECT, "DIRECT_MISMATCH", "SMC-Rv2 connection mismatch direct/indirect with peer"},
	{SMC_CLC_DECL_SYNCERR, "SYNC_ERROR", "Synchronization error"},
	{SMC_CLC_DECL_PEERDECL, "PEER_DECLINED", "Peer declined during handshake"},
	{SMC_CLC_DECL_INTERR, "INTERNAL_ERROR", "Internal error"},
	{SMC_CLC_DECL_ERR_RTOK, "RTOKEN_ERROR", "rtoken handling failed"},
	{SMC_CLC_DECL_ERR_RDYLNK, "LINK_ERROR", "RDMA link failed"},
	{SMC_CLC_DECL_ERR_REGBUF, "RMB_REGISTER_ERROR", "RMB registration failed"},
};

} // namespace

std::span<const DeclineCode> decline_codes()
{
	return known;
}

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
