/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The one fuzz target shared by the libFuzzer harness and the standalone
 * driver. Input: one selector byte, then the bytes under test.
 *   selector % 4 == 0: a transport packet (BTH .. ICRC) for
 *                      sroce_roce_parse();
 *   selector % 4 == 1, 2, 3: an IPv4 / IPv6 / GRH packet (L3 header ..
 *                      ICRC) for the ICRC functions, whose transport part
 *                      is then parsed too;
 *   selector % 8 == 4 (before the above): a MAC Control body (opcode ..)
 *                      for sroce_pause_parse(), then the same bytes as
 *                      operations on a PFC receive buffer.
 * Any broken invariant aborts; sanitizers catch the rest.
 */
#ifndef SROCE_FUZZ_TARGET_H
#define SROCE_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* What the inputs reached, for the standalone driver's summary. */
struct sroce_fuzz_stats {
	unsigned long long parsed;	/* transport packets accepted */
	unsigned long long per_kind[16];	/* ... by enum sroce_op_kind */
	unsigned long long icrc_computed;	/* L3 packets with an ICRC */
	unsigned long long icrc_matched;	/* ... whose stored ICRC is right */
	unsigned long long pauses_parsed;	/* PFC and PAUSE bodies accepted */
	unsigned long long buf_ops;	/* PFC receive buffer operations */
};

extern struct sroce_fuzz_stats sroce_fuzz_stats;

void sroce_fuzz_one(const uint8_t *data, size_t size);

#endif
