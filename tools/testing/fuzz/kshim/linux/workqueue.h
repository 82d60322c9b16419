/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: recorded work items are in kshim.h. */
#include "../kshim.h"
