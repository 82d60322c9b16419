/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: spinlock_t and its rank checks are in kshim.h. */
#include "../kshim.h"
