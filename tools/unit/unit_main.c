// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Runs every registered test and prints one result line CI can parse:
 * "unit: N passed, M failed". Exit status is non-zero on any failure.
 */
#include <stdio.h>
#include <string.h>

#include "unit.h"

int unit_failures;

static const struct unit_test *const suites[] = {
	cmd_codec_tests,
	addr_tests,
	psn_tests,
	roce_hdr_tests,
	icrc_tests,
	qp_state_tests,
	dcqcn_tests,
	qos_tests,
	pfc_tests,
};

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int passed = 0, failed = 0, s;

	for (s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		const struct unit_test *t;

		for (t = suites[s]; t->name; t++) {
			int before = unit_failures;

			if (filter && !strstr(t->name, filter))
				continue;
			t->fn();
			if (unit_failures == before) {
				passed++;
				printf("ok %s\n", t->name);
			} else {
				failed++;
				printf("not ok %s\n", t->name);
			}
		}
	}
	printf("unit: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
