// SPDX-License-Identifier: GPL-2.0
/*
 * Strict parsing of SMC_SNDBUF, SMC_RCVBUF, SMC_DEBUG, SMC_MODE, SMC_PORTS and
 * SMC_PROGRAMS (see smc_env.h).
 */
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

/* One port of a list: digits up to the next '-', ',' or the end. */
static const char *parse_port(const char **p, unsigned short *out)
{
	unsigned long value = 0;
	const char *start = *p;

	for (; **p >= '0' && **p <= '9'; (*p)++) {
		value = value * 10 + (unsigned long)(**p - '0');
		if (value > 65535)
			return "a port above 65535";
	}
	if (*p == start)
		return "an item that is not a port or a range (digits, or digits-digits)";
	if (value == 0)
		return "port 0";
	*out = (unsigned short)value;
	return NULL;
}

const char *smc_parse_ports(const char *text, struct smc_port_ranges *out)
{
	struct smc_port_ranges ports = { 0 };
	const char *p = text, *err;

	if (!text || !*text)
		return "empty";
	for (;;) {
		unsigned short low, high;

		if (ports.count == SMC_MAX_PORT_RANGES)
			return "more than 16 ports or ranges";
		err = parse_port(&p, &low);
		if (err)
			return err;
		high = low;
		if (*p == '-') {
			p++;
			err = parse_port(&p, &high);
			if (err)
				return err;
			if (high < low)
				return "a range whose first port is above its last";
		}
		ports.range[ports.count].low = low;
		ports.range[ports.count].high = high;
		ports.count++;
		if (!*p)
			break;
		if (*p != ',')
			return "an item that is not a port or a range (digits, or digits-digits)";
		p++;
	}
	*out = ports;
	return NULL;
}

int smc_port_listed(const struct smc_port_ranges *ports, unsigned int port)
{
	unsigned int i;

	for (i = 0; i < ports->count; i++)
		if (port >= ports->range[i].low && port <= ports->range[i].high)
			return 1;
	return 0;
}

const char *smc_check_programs(const char *text)
{
	size_t len = 0;
	const char *p;

	if (!text || !*text)
		return "empty";
	for (p = text;; p++) {
		if (*p == ',' || !*p) {
			if (len == 0)
				return "an empty name";
			if (!*p)
				return NULL;
			len = 0;
			continue;
		}
		if (*p == '/')
			return "a name with a '/' (give program names, not paths)";
		if (*p == ' ' || *p == '\t' || *p == '\n')
			return "a blank in a name";
		if (++len > SMC_MAX_PROGRAM_NAME)
			return "a name longer than 255 bytes";
	}
}

int smc_program_listed(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	if (!len)
		return 0;
	while (p) {
		const char *end = strchr(p, ',');
		size_t item = end ? (size_t)(end - p) : strlen(p);

		if (item == len && !memcmp(p, name, len))
			return 1;
		p = end ? end + 1 : NULL;
	}
	return 0;
}
