// SPDX-License-Identifier: GPL-2.0
/* Strict parsing of SMC_SNDBUF, SMC_RCVBUF, SMC_DEBUG and SMC_MODE (see smc_env.h). */
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "smc_env.h"

const char *smc_parse_size(const char *text, int *out)
{
	unsigned long long value = 0, unit = 1;
	const char *p = text;

	if (!text || !*text)
		return "empty";
	if (*p < '0' || *p > '9')
		return "does not start with a decimal digit";
	for (; *p >= '0' && *p <= '9'; p++) {
		value = value * 10 + (unsigned long long)(*p - '0');
		/* Stop early: the digits alone already exceed any valid size. */
		if (value > INT_MAX)
			return "too large (the limit is 2147483647 bytes)";
	}
	switch (*p) {
	case '\0':
		break;
	case 'k':
	case 'K':
		unit = 1024;
		p++;
		break;
	case 'm':
	case 'M':
		unit = 1024 * 1024;
		p++;
		break;
	default:
		return "unknown suffix (use k, K, m or M)";
	}
	if (*p)
		return "trailing characters after the suffix";
	if (value == 0)
		return "zero";
	if (value > INT_MAX / unit)
		return "too large (the limit is 2147483647 bytes)";
	*out = (int)(value * unit);
	return NULL;
}

int smc_parse_flag(const char *text)
{
	return text && *text && !(text[0] == '0' && text[1] == '\0');
}

const char *smc_parse_mode(const char *text, enum smc_mode *out)
{
	if (!text || !*text || !strcmp(text, "smc"))
		*out = SMC_MODE_SMC;
	else if (!strcmp(text, "inet"))
		*out = SMC_MODE_INET;
	else if (!strcmp(text, "auto"))
		*out = SMC_MODE_AUTO;
	else
		return "not smc, inet or auto";
	return NULL;
}
