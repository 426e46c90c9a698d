/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A small unit-test harness: each test is a function registered in
 * unit_main.c; CHECK() records a failure and carries on so that one run
 * reports every broken expectation.
 */
#ifndef SROCE_UNIT_H
#define SROCE_UNIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern int unit_failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n",	\
				__FILE__, __LINE__, #cond);		\
			unit_failures++;				\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long _a = (long long)(a), _b = (long long)(b);	\
		if (_a != _b) {						\
			fprintf(stderr, "  %s:%d: %s == %lld, expected %s == %lld\n", \
				__FILE__, __LINE__, #a, _a, #b, _b);	\
			unit_failures++;				\
		}							\
	} while (0)

struct unit_test {
	const char *name;
	void (*fn)(void);
};

/* crc32_host.c: the byte-at-a-time CRC-32, not folded. */
uint32_t crc32_host_bytewise(uint32_t crc, const uint8_t *p, size_t len);

/* Test suites, one array per file. */
extern const struct unit_test cmd_codec_tests[];
extern const struct unit_test addr_tests[];
extern const struct unit_test psn_tests[];
extern const struct unit_test roce_hdr_tests[];
extern const struct unit_test icrc_tests[];
extern const struct unit_test qp_state_tests[];
extern const struct unit_test dcqcn_tests[];
extern const struct unit_test qos_tests[];
extern const struct unit_test pfc_tests[];

#endif
