// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Print "<ibdev> <provider> <transport>" for every device libibverbs
 * matched to a provider.  Reading the provider name goes through
 * verbs_device.ops as declared in pabi34.h, so this also checks that
 * declaration against the real libibverbs.
 */
#include <stdio.h>

#include "../pabi34.h"

int main(void)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct verbs_device *vdev = (struct verbs_device *)list[i];

		printf("%s %s %s\n", ibv_get_device_name(list[i]),
		       vdev->ops->name,
		       list[i]->transport_type == IBV_TRANSPORT_IWARP ?
				"iwarp" : "other");
	}
	ibv_free_device_list(list);
	return 0;
}
