/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: struct list_head is in kshim.h. */
#include "../kshim.h"
