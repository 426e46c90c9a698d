// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* libFuzzer entry point (clang -fsanitize=fuzzer); see fuzz_target.h. */
#include "fuzz_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sroce_fuzz_one(data, size);
	return 0;
}
