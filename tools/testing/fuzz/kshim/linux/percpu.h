/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: one CPU: this_cpu_add() is in kshim.h. */
#include "../kshim.h"
