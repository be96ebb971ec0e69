// SPDX-License-Identifier: GPL-2.0
/*
 * Write every sample CLC message as the payload of one TCP segment into a
 * pcap file, so Wireshark's SMC dissector can be run over them (tshark-check).
 * Each message gets its own TCP connection (client port 40000 + index); the
 * frame number is index + 1. Usage: smc_clc_pcap OUT.pcap [--list]
 */
#include <stdio.h>
#include <stdlib.h>

#include "clc_samples.h"

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
	uint8_t frame[14 + 20 + 20 + SMC_CLC_MAX_MSG_LEN];
	struct smc_clc_msg msg;
	const char *name;
	FILE *f;
	size_t i;

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

	for (i = 0; (name = smc_clc_sample(i, &msg)) != NULL; i++) {
		uint8_t *eth = frame, *ip = frame + 14, *tcp = ip + 20;
		uint8_t *pay = tcp + 20;
		size_t len = 0, total;
		uint16_t sport = (uint16_t)(40000 + i), dport = 12345;
		enum smc_clc_err rc;

		rc = smc_clc_encode(&msg, pay, SMC_CLC_MAX_MSG_LEN, &len);
		if (rc != SMC_CLC_OK) {
			fprintf(stderr, "%s: %s\n", name, smc_clc_err_text(rc));
			return 1;
		}
		if (argc > 2)
			printf("%zu %s %zu\n", i + 1, name, len);
		memset(frame, 0, pay - frame);
		/* Ethernet: locally administered MACs, IPv4 */
		eth[0] = 0x02; eth[5] = 0x02;
		eth[6] = 0x02; eth[11] = 0x01;
		eth[12] = 0x08;
		/* IPv4 192.168.10.1 -> 192.168.10.2 (server sends accept) */
		total = 20 + 20 + len;
		ip[0] = 0x45;
		ip[2] = (uint8_t)(total >> 8);
		ip[3] = (uint8_t)total;
		ip[8] = 64;
		ip[9] = 6;
		ip[12] = 192; ip[13] = 168; ip[14] = 10; ip[15] = 1;
		ip[16] = 192; ip[17] = 168; ip[18] = 10; ip[19] = 2;
		{
			uint16_t c = ip_csum(ip, 20);
			ip[10] = (uint8_t)(c >> 8);
			ip[11] = (uint8_t)c;
		}
		tcp[0] = (uint8_t)(sport >> 8); tcp[1] = (uint8_t)sport;
		tcp[2] = (uint8_t)(dport >> 8); tcp[3] = (uint8_t)dport;
		tcp[7] = 1;		/* seq 1 */
		tcp[11] = 1;		/* ack 1 */
		tcp[12] = 5 << 4;	/* 20 byte header */
		tcp[13] = 0x18;		/* PSH ACK */
		tcp[14] = 0xff; tcp[15] = 0xff;

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
