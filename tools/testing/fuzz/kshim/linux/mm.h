/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: PAGE_SIZE and struct page are in kshim.h. */
#include "../kshim.h"
