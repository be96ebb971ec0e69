// SPDX-License-Identifier: GPL-2.0
/*
 * Texts of the SMC decline / fallback reason codes (smc_decline.h).
 */
#include "smc_decline.h"

#define DECL(c, t)	{ SMC_CLC_DECL_##c, #c, t, true }
#define DECL21(c, t)	{ SMC_CLC_DECL_##c, #c, t, false }	/* or af_smc's own */

/* Sorted by code; smc_clc_decline_lookup() relies on it. */
static const struct smc_clc_decline_info smc_clc_decl_table[] = {
	DECL(MEM,	 "not enough memory for SMC buffers or link group"),
	DECL21(HSLIMIT,	 "the server has too many SMC handshakes in flight (listener or client address)"),
	DECL(TIMEOUT_CL, "timed out waiting for the LLC CONFIRM LINK exchange"),
	DECL(TIMEOUT_AL, "timed out waiting for the LLC ADD LINK exchange"),
	DECL(CNFERR,	 "configuration error"),
	DECL(PEERNOSMC,	 "peer did not offer SMC (no SMC option in the TCP handshake)"),
	DECL(IPSEC,	 "IPsec is used on the connection"),
	DECL(NOSMCDEV,	 "no usable SMC device (SMC-R or SMC-D) found"),
	DECL(NOSMCDDEV,	 "no usable SMC-D (ISM) device found"),
	DECL(NOSMCRDEV,	 "no usable SMC-R (RoCE) device found"),
	DECL(NOISM2SUPP, "the ISM hardware does not support SMC-Dv2"),
	DECL(NOV2EXT,	 "peer's proposal has no SMCv2 extension"),
	DECL(NOV2DEXT,	 "peer's proposal has no SMC-Dv2 extension"),
	DECL(NOSEID,	 "peer sent no system EID"),
	DECL(NOSMCD2DEV, "no usable SMC-Dv2 device found"),
	DECL(NOUEID,	 "no common user EID with the peer"),
	DECL21(RELEASEERR, "SMC release negotiation failed"),
	DECL21(MAXCONNERR, "negotiation of connections per link group failed"),
	DECL21(MAXLINKERR, "negotiation of links per link group failed"),
	DECL(MODEUNSUPP, "the SMC modes (SMC-R / SMC-D) of the peers do not match"),
	DECL(RMBE_EC,	 "peer uses an eyecatcher in its RMB elements"),
	DECL(OPTUNSUPP,	 "a socket option in use (e.g. TCP fastopen) prevents SMC"),
	DECL(DIFFPREFIX, "the peers are not in the same IP subnet"),
	DECL(GETVLANERR, "could not get the VLAN id of the IP device"),
	DECL(ISMVLANERR, "could not register the VLAN id on the ISM device"),
	DECL(NOACTLINK,	 "no active SMC-R link in the link group"),
	DECL(NOSRVLINK,	 "the SMC-R link named by the server was not found"),
	DECL(VERSMISMAT, "no common SMC version"),
	DECL(MAX_DMB,	 "SMC-D DMB limit reached"),
	DECL(NOROUTE,	 "SMC-Rv2: no route to the peer's RoCE GID"),
	DECL(NOINDIRECT, "SMC-Rv2: peer's direct/indirect route claim does not match"),
	DECL21(POLICY,	 "the handshake policy of the network namespace keeps the connection on TCP"),
	DECL(SYNCERR,	 "link group out of synchronization"),
	DECL(PEERDECL,	 "the peer declined SMC during the handshake"),
	DECL(INTERR,	 "internal error"),
	DECL(ERR_RTOK,	 "internal error: handling the peer's rkey failed"),
	DECL(ERR_RDYLNK, "internal error: bringing the RDMA link up failed"),
	DECL(ERR_REGBUF, "internal error: registering RDMA buffers failed"),
};

const struct smc_clc_decline_info *smc_clc_decline_lookup(uint32_t code)
{
	size_t lo = 0, hi = ARRAY_SIZE(smc_clc_decl_table), mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (smc_clc_decl_table[mid].code == code)
			return &smc_clc_decl_table[mid];
		if (smc_clc_decl_table[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *smc_clc_decline_text(uint32_t code)
{
	const struct smc_clc_decline_info *info = smc_clc_decline_lookup(code);

	if (info)
		return info->text;
	switch (SMC_CLC_DECL_CLASS(code)) {
	case 0x01:
		return "unrecognized resource shortage";
	case 0x02:
		return "unrecognized timeout";
	case 0x03:
		return "unrecognized configuration error";
	case 0x04:
		return "unrecognized synchronization error";
	case 0x05:
		return "unrecognized peer decline";
	case 0x09:
		return "unrecognized internal error";
	default:
		return "unknown decline code";
	}
}

const struct smc_clc_decline_info *smc_clc_decline_table(size_t *count)
{
	if (count)
		*count = ARRAY_SIZE(smc_clc_decl_table);
	return smc_clc_decl_table;
}
