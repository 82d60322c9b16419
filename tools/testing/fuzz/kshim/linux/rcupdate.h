/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: RCU read-side nesting is counted in kshim.h. */
#include "../kshim.h"
