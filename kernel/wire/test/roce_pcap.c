// SPDX-License-Identifier: GPL-2.0
/*
 * Write every SMC-R sample CDC/LLC message (roce_samples.c) as the payload of
 * one RoCEv2 packet into a pcap file: Ethernet, IPv4, UDP to port 4791, the
 * InfiniBand base transport header of an RC SEND Only, the 44-byte message,
 * the 4-byte ICRC (not computed: tshark does not check it). SMC-D samples
 * are skipped: they live in a DMB, never on a wire. Frame numbers count
 * from 1 in sample order over the SMC-R samples.
 * Usage: smc_roce_pcap OUT.pcap [--list]   (--list: "FRAME NAME LEN TYPE")
 */
#include <stdio.h>
#include <stdlib.h>

#include "roce_samples.h"

static void le32(FILE *f, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
			 (uint8_t)(v >> 24) };
	fwrite(b, 1, 4, f);
}

static void le16(FILE *f, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	fwrite(b, 1, 2, f);
}

static void be16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t ip_csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

int main(int argc, char **argv)
{
	uint8_t frame[14 + 20 + 8 + 12 + SMC_ROCE_SAMPLE_MAX + 4];
	enum smc_roce_sample_kind kind;
	const char *name;
	size_t i, frameno = 0;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUT.pcap [--list]\n", argv[0]);
		return 2;
	}
	f = fopen(argv[1], "wb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	le32(f, 0xa1b2c3d4);	/* pcap magic, microseconds */
	le16(f, 2);
	le16(f, 4);
	le32(f, 0);
	le32(f, 0);
	le32(f, 65535);
	le32(f, 1);		/* LINKTYPE_ETHERNET */

	for (i = 0;; i++) {
		uint8_t *eth = frame, *ip = eth + 14, *udp = ip + 20;
		uint8_t *bth = udp + 8, *pay = bth + 12;
		size_t len, total;
		uint16_t c;

		memset(frame, 0, sizeof(frame));
		name = smc_roce_sample(i, pay, &len, &kind);
		if (!name)
			break;
		if (!len) {
			fprintf(stderr, "%s: cannot encode\n", name);
			return 1;
		}
		if (kind == SMC_SAMPLE_CDC_D)
			continue;
		frameno++;
		if (argc > 2)
			printf("%zu %s %zu 0x%02x\n", frameno, name, len, pay[0]);
		/* Ethernet: locally administered MACs, IPv4 */
		eth[0] = 0x02; eth[5] = 0x02;
		eth[6] = 0x02; eth[11] = 0x01;
		eth[12] = 0x08;
		/* IPv4 192.168.10.1 -> 192.168.10.2, UDP */
		total = 20 + 8 + 12 + len + 4;
		ip[0] = 0x45;
		be16(ip + 2, total);
		ip[8] = 64;
		ip[9] = 17;
		ip[12] = 192; ip[13] = 168; ip[14] = 10; ip[15] = 1;
		ip[16] = 192; ip[17] = 168; ip[18] = 10; ip[19] = 2;
		c = ip_csum(ip, 20);
		be16(ip + 10, c);
		/* UDP 49152 -> 4791 (RoCEv2), checksum 0 (none) */
		be16(udp, 49152);
		be16(udp + 2, 4791);
		be16(udp + 4, total - 20);
		/* BTH: RC SEND Only, no padding, P_Key ffff, QP 0x000123, PSN */
		bth[0] = 0x04;
		bth[2] = 0xff; bth[3] = 0xff;
		bth[6] = 0x01; bth[7] = 0x23;
		bth[11] = (uint8_t)frameno;
		/* the ICRC after the payload stays zero */

		le32(f, (uint32_t)(1700000000 + i));
		le32(f, 0);
		le32(f, (uint32_t)(14 + total));
		le32(f, (uint32_t)(14 + total));
		fwrite(frame, 1, 14 + total, f);
	}
	if (fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
