# SPDX-License-Identifier: GPL-2.0
#
# mrc: out-of-tree build of mrc.ko and its userspace.
#
#   make                 mrc.ko, the tools, the unit tests and selftests
#   make check           install what is missing, build, run every test
#   make check-debug     the selftests on a KASAN/lockdep/kmemleak kernel
#   make debug-kernel    build (once, cached) that kernel
#   make demo            install what is missing, boot a VM, show mrc
#   make bench           the benchmarks in a VM, results under
#                        Documentation/benchmarks/ (QUICK=1: a short run)
#   make W=1 / make C=1  extra warnings / sparse, as for any kernel module
#   make style           checkpatch --strict over the module's sources
#   make clean           back to the tree as checked out

# The VM boots the newest installed Debian kernel: build against it unless
# the running kernel has its own build tree.
KVER ?= $(shell tools/vm/kver 2>/dev/null)
ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
KDIR ?= /lib/modules/$(shell uname -r)/build
else
KDIR ?= /lib/modules/$(KVER)/build
endif
# kselftest headers and checkpatch.pl come from Debian's linux-source-6.1.
KSRC ?= /usr/src/linux-source-6.1
export KSRC

CHECKPATCH ?= $(KSRC)/scripts/checkpatch.pl
STYLE_FILES := $(wildcard net/mrc/*.c net/mrc/*.h include/mrc/*.h uapi/linux/*.h)

all: module tools unit selftests

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C tools/mrc
	$(MAKE) -C tools/mrcperf
	$(MAKE) -C tools/bench

unit:
	$(MAKE) -C tools/unit

selftests:
	$(MAKE) -C selftests

# Runs the unit tests on this machine; the selftests need the VM (check).
unit-run: unit
	$(MAKE) -C tools/unit run

check:
	tools/check.sh

check-debug:
	tools/check-debug.sh

debug-kernel:
	tools/vm/debug-kernel.sh

demo:
	tools/demo.sh

# Measures, passes or fails nothing: not part of check.
bench:
	tools/bench/bench.sh

style:
	$(CHECKPATCH) --strict --no-tree --terse -f $(STYLE_FILES)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C tools/mrc clean
	$(MAKE) -C tools/mrcperf clean
	$(MAKE) -C tools/bench clean
	$(MAKE) -C tools/unit clean
	-$(MAKE) -C selftests clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/harness clean
	rm -rf tools/vm/.build

.PHONY: all module tools unit selftests unit-run check check-debug \
	debug-kernel demo bench style clean
