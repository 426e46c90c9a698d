// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* from_timer() became timer_container_of() (6.16). */
#include <linux/timer.h>

#ifndef timer_container_of
#error "no timer_container_of()"
#endif
