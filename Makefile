# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of siw_lite.ko and of the rdma-core provider.
#
#   make                 module + provider
#   make KDIR=<dir>      build against another kernel build directory
#   make W=1 C=1         extra warnings and sparse on the module
#   make check           host-side checks (unit tests, provider ABI)
#   make checkpatch      checkpatch --strict on every source file
#   make install         module into /lib/modules/<ver>/updates, provider
#                        into libibverbs' provider directory

# The host kernel is not a Debian kernel: build against the newest
# installed Debian headers unless told otherwise.
KDIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))
KVER ?= $(patsubst linux-headers-%,%,$(notdir $(KDIR)))
CHECKPATCH ?= /var/cache/siw_lite/linux-source-6.1/scripts/checkpatch.pl

PWD := $(shell pwd)

.PHONY: all module provider check checkpatch install clean

all: module provider

module:
	@test -d "$(KDIR)" || { echo "no kernel build dir: install linux-headers-amd64 or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) modules

provider:
	$(MAKE) -C tools/provider

check: provider
	$(MAKE) -C tools/provider check
	@if [ -f selftests/unit/Makefile ]; then $(MAKE) -C selftests/unit run; fi

checkpatch:
	@test -x $(CHECKPATCH) || scripts/fetch-checkpatch.sh
	$(CHECKPATCH) --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		-f $$(git ls-files -- 'drivers/*.[ch]' 'include/*.h' 'tools/*.[ch]' 'selftests/*.[ch]')

install: all
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)
	$(MAKE) -C tools/provider install

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean
	$(MAKE) -C tools/provider clean
