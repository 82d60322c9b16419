# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of siw_lite.ko and of the rdma-core provider.
#
#   make                 module, provider and the verbs and ring test programs
#   make module provider what a user needs (and all that make install
#                        builds): kernel headers and libibverbs-dev only
#   make KDIR=<dir>      build against another kernel build directory
#   make W=1 C=1         extra warnings and sparse on the module
#   make check           host-side checks (unit tests, provider ABI, a
#                        short fuzz run of the wire parsers)
#   make checkpatch      checkpatch --strict on every source file (the
#                        kernel part is also run by make check)
#   make install         module into /lib/modules/<ver>/updates, provider
#                        into libibverbs' provider directory, siw_lite(7)
#                        into $(DESTDIR)/usr/share/man/man7

# The kernel to build for: the running one when its headers are installed,
# else the newest installed Debian headers (a build host, or a machine
# that has just installed a new kernel); module says which.
ifeq ($(origin KDIR),undefined)
KDIR := $(wildcard /lib/modules/$(shell uname -r)/build)
ifeq ($(KDIR),)
KDIR := $(lastword $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V))
KDIR_WHY := no headers for the running kernel $(shell uname -r): building for $(KDIR)
endif
endif
KVER ?= $(or $(patsubst /lib/modules/%/build,%,$(filter /lib/modules/%/build,$(KDIR))),\
	     $(patsubst linux-headers-%,%,$(notdir $(KDIR))))
# Seconds per libFuzzer target in make check (a short smoke run; the long
# run is documented in tools/testing/fuzz/Makefile).
FUZZ_SECONDS ?= 10
CHECKPATCH ?= /var/cache/siw_lite/linux-source-6.1/scripts/checkpatch.pl

PWD := $(shell pwd)

.PHONY: all module provider verbs_test ringtest hostile hostile_user lifecycle check \
	checkpatch checkpatch-kernel install clean

all: module provider verbs_test ringtest hostile hostile_user lifecycle

module:
	@test -d "$(KDIR)" || { echo "no kernel build dir: install linux-headers-$$(uname -r) (or linux-headers-amd64) or set KDIR" >&2; exit 1; }
	$(if $(KDIR_WHY),@echo "siw_lite: $(KDIR_WHY)")
	$(MAKE) -C $(KDIR) M=$(PWD) modules

provider:
	$(MAKE) -C tools/provider

verbs_test:
	$(MAKE) -C tools/testing/verbs_test

ringtest:
	$(MAKE) -C tools/testing/ringtest

lifecycle:
	$(MAKE) -C tools/testing/lifecycle

hostile_user:
	$(MAKE) -C tools/testing/hostile_user

hostile:
	$(MAKE) -C tools/testing/hostile

check: provider checkpatch-kernel
	$(MAKE) -C tools/provider check
	@if [ -f selftests/unit/Makefile ]; then $(MAKE) -C selftests/unit run; fi
	/usr/bin/python3 -B tools/testing/wirecheck/test_wirecheck.py
	scripts/check-docs.sh
	$(MAKE) -C tools/testing/fuzz smoke SMOKE_SECONDS=$(FUZZ_SECONDS)

# Kernel code must be checkpatch --strict clean. Userspace code is checked
# without the rules that only make sense in the kernel (negative errno
# returns, BIT(), __maybe_unused, libFuzzer's CamelCase entry point).
CHECKPATCH_FLAGS := --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG
CHECKPATCH_USER_IGNORE := USE_NEGATIVE_ERRNO,PREFER_DEFINED_ATTRIBUTE_MACRO,BIT_MACRO,CAMELCASE

checkpatch-kernel:
	@test -x $(CHECKPATCH) || scripts/fetch-checkpatch.sh
	$(CHECKPATCH) $(CHECKPATCH_FLAGS) \
		-f $$(git ls-files -- 'drivers/*.[ch]' 'include/*.h')

checkpatch: checkpatch-kernel
	$(CHECKPATCH) $(CHECKPATCH_FLAGS) --ignore $(CHECKPATCH_USER_IGNORE) \
		-f $$(git ls-files -- 'tools/*.[ch]' 'selftests/*.[ch]')

install: module provider
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)
	$(MAKE) -C tools/provider install
	install -D -m 0644 Documentation/siw_lite.7 $(DESTDIR)/usr/share/man/man7/siw_lite.7

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean
	$(MAKE) -C tools/provider clean
	$(MAKE) -C tools/testing/verbs_test clean
	$(MAKE) -C tools/testing/ringtest clean
	$(MAKE) -C tools/testing/lifecycle clean
	$(MAKE) -C tools/testing/hostile_user clean
	$(MAKE) -C tools/testing/hostile clean

# ---------------------------------------------------------------------------
# DKMS, without a Debian package (the siw-lite-dkms package does the same
# from debian/). Run as root.
#
#   make dkms-install [KVER=<ver>]  copy the module sources (only what the
#                       module build needs) to /usr/src/siw-lite-<version>/,
#                       then dkms add, build and install for KVER (by default
#                       the kernel "make install" uses: the running one when
#                       its headers are installed)
#   make dkms-remove    dkms remove siw-lite/<version> --all, and delete
#                       /usr/src/siw-lite-<version>/
#
# <version> is the one in VERSION; dkms.conf gets it in place of its
# #MODULE_VERSION# placeholder.
DKMS_NAME := siw-lite
DKMS_VERSION := $(strip $(shell cat VERSION 2>/dev/null))
DKMS_SRC := /usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
DKMS_FILES := Kbuild VERSION LICENSE $(wildcard LICENSES/*) \
	drivers/siw_lite/Kbuild \
	$(filter-out %.mod.c,$(wildcard drivers/siw_lite/*.[ch])) \
	include/uapi/rdma/siw_lite-abi.h

.PHONY: dkms-install dkms-remove dkms-source

# The module sources alone in $(DKMS_SRC) (debian/rules uses it too).
dkms-source:
	install -d $(DKMS_SRC)
	cp --parents $(DKMS_FILES) $(DKMS_SRC)/

dkms-install: dkms-remove
	@test -n "$(DKMS_VERSION)" || { echo "no version in VERSION" >&2; exit 1; }
	$(MAKE) dkms-source
	sed 's/#MODULE_VERSION#/$(DKMS_VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf
	dkms add -m $(DKMS_NAME) -v $(DKMS_VERSION)
	dkms build -m $(DKMS_NAME) -v $(DKMS_VERSION) -k $(KVER)
	dkms install -m $(DKMS_NAME) -v $(DKMS_VERSION) -k $(KVER)

dkms-remove:
	@test -n "$(DKMS_VERSION)" || { echo "no version in VERSION" >&2; exit 1; }
	if [ -n "$$(dkms status -m $(DKMS_NAME) -v $(DKMS_VERSION))" ]; then \
		dkms remove -m $(DKMS_NAME) -v $(DKMS_VERSION) --all; \
	fi
	rm -rf $(DKMS_SRC)
