# smc-linux: the top-level build. See README.md.
#
#   make            install missing packages, build the module and the userspace
#   make check      host unit tests, harness self-tests and the VM selftests
#   make vm-test T='socket/*'   only the VM selftests whose names match
#   make soak       the two-VM suites 5 times under 2 busy loops (RUNS=, LOOPS=, T=)
#   make demo       build only what the demo needs, then iperf3 over TCP and
#                   SMC-D in one VM, over TCP and SMC-R between two
#   make install    the tools, the preload library and the man pages
#   make check-debug  the VM suites on a KASAN/KFENCE/lockdep/kmemleak kernel
#   make style      checkpatch on kernel/, shellcheck on the scripts (also in check)
#   make deb        the Debian packages af-smc-dkms and smc-linux-tools in build/deb

BUILD ?= $(CURDIR)/build
export BUILD
KVER = $(shell scripts/kernel-version)
# The headers to build against: Debian's 6.1 (the VMs' kernel) unless
# KDIR= names another tree (make KDIR=/lib/modules/$$(uname -r)/build).
KDIR_VM = /usr/src/linux-headers-$(KVER)
KDIR ?= $(KDIR_VM)
# SMC_KERNEL=debug in the environment (not on make's command line: $(shell)
# does not see those): build against the debug kernel scripts/debug-kernel
# made (make check-debug sets it; see Documentation/vm-harness.md).
DEBUG_KERNEL_DIR = $(or $(SMC_DEBUG_KERNEL_DIR),$(CURDIR)/build/debug-kernel)
ifeq ($(SMC_KERNEL),debug)
KDIR = $(DEBUG_KERNEL_DIR)/src
endif
IMAGE = $(BUILD)/kernel-image/$(KVER)/root
CMAKE_BUILD = $(BUILD)/cmake
PREFIX ?= /usr/local

.PHONY: all deps kernel userspace guest check check-debug vm-test soak demo bench style install \
	modules_install deb clean

all: kernel userspace guest

# make builds and never installs packages (issue 23): that is make deps,
# which the README's two commands (make demo, make check) and the other
# targets that boot VMs call first. Idempotent: quick when nothing is missing.
deps:
	@scripts/install-deps

kernel:
	@test -f $(KDIR)/Makefile || { echo "make: kernel headers $(KDIR) missing (make deps)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel modules
	@mkdir -p $(BUILD)/kernel
	cp kernel/af_smc.ko $(BUILD)/kernel/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/vm/selftest/warn_module modules
	cp vm/selftest/warn_module/warn_on_load.ko vm/selftest/warn_module/corrupt_on_load.ko \
		vm/selftest/warn_module/debug_on_load.ko $(BUILD)/kernel/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/handshake modules
	cp selftests/handshake/smc_badpeer.ko selftests/handshake/smc_hostile.ko $(BUILD)/kernel/
	$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/security modules
	cp selftests/security/smc_window.ko $(BUILD)/kernel/
	@# Against the VMs' image unless KDIR came from the command line or the
	@# environment (a build for another kernel).
	@if [ "$(origin KDIR)" = file ]; then scripts/check-vermagic $(BUILD)/kernel/af_smc.ko $(IMAGE); fi

userspace:
	cmake -S . -B $(CMAKE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(CMAKE_BUILD) -j$$(nproc)

# The install tree that vm/initramfs puts at /smc in the guest.
guest: userspace
	rm -rf $(BUILD)/guest
	cmake --install $(CMAKE_BUILD) --prefix $(BUILD)/guest --strip >/dev/null

check: deps
	$(MAKE) all
	scripts/check

# The VM suites on the debug kernel. The kernel is built once into
# build/debug-kernel (kept across runs); the module, the initramfs and the
# logs go to build/debug, which shares the userspace build with build/.
# The debug kernel runs the guests about DEBUG_SCALE times slower, so every
# time limit is scaled by it: the selftests' and the module's own bounds on
# network waits (SMC_WAIT_SCALE, kernel/smc_wait.h; a power of two), and
# every volume of a case is divided by it (SMC_VOLUME_DIV, tap_volume in
# the selftests: Documentation/decisions.md). First the harness's own check
# that each detector's report fails a run (vm/selftest/run), then the VM
# suites.
# T='AREA/NAME' picks entries as in vm-test (and leaves the harness check out).
# Guests get 2 GiB: KASAN's shadow takes an eighth of the memory and its
# quarantine keeps freed objects, and with 1 GiB rxe failed to allocate
# skbs under smcr/data_2vm ("rdma_rxe: qp#18 Failed allocating skb"); with
# 2 GiB it passes (Documentation/vm-harness.md, "The debug kernel").
DEBUG_SCALE ?= 4
check-debug: deps
	$(MAKE) userspace guest
	@mkdir -p $(BUILD)/debug
	@ln -sfn $(CMAKE_BUILD) $(BUILD)/debug/cmake
	@ln -sfn $(BUILD)/guest $(BUILD)/debug/guest
	@# The debug kernel (built once) and its image where vm/run and the
	@# vermagic check look: deps does the stock one only.
	SMC_KERNEL=debug BUILD=$(BUILD)/debug scripts/install-deps
	SMC_KERNEL=debug $(MAKE) BUILD=$(BUILD)/debug SMC_WAIT_SCALE=$(DEBUG_SCALE) kernel
	$(if $(T),,SMC_KERNEL=debug BUILD=$(BUILD)/debug vm/selftest/run)
	SMC_KERNEL=debug BUILD=$(BUILD)/debug SMC_TIMEOUT_SCALE=$(DEBUG_SCALE) \
		SMC_VOLUME_DIV=$(DEBUG_SCALE) SMC_VM_MEM=2048 \
		SMC_VM_TIMEOUT=$$((3600 * $(DEBUG_SCALE))) scripts/check --vm-only $(foreach t,$(T),'$(t)')

vm-test: deps
	$(MAKE) all
	scripts/check --vm-only $(foreach t,$(T),'$(t)')

# The two-VM suites (or T=...) RUNS times under LOOPS busy loops (issue 19).
RUNS ?= 5
LOOPS ?= 2
soak: deps
	$(MAKE) all
	scripts/soak -n $(RUNS) -l $(LOOPS) $(foreach t,$(T),'$(t)')

# Only what the demo runs (issue 23): af_smc.ko, the tools, the preload
# library and the VM agent, in a tree of its own (build/demo) so that the
# full build keeps its options; BUILD_TESTING=OFF leaves out every test and
# sanitizer build. The Debian kernel image is build/'s (make deps).
DEMO = $(BUILD)/demo
demo: deps
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel modules
	@mkdir -p $(DEMO)/kernel
	cp kernel/af_smc.ko $(DEMO)/kernel/
	@scripts/check-vermagic $(DEMO)/kernel/af_smc.ko $(IMAGE)
	cmake -S . -B $(DEMO)/cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF >/dev/null
	cmake --build $(DEMO)/cmake -j$$(nproc)
	rm -rf $(DEMO)/guest
	cmake --install $(DEMO)/cmake --prefix $(DEMO)/guest --strip >/dev/null
	@ln -sfn $(BUILD)/kernel-image $(DEMO)/kernel-image
	BUILD=$(DEMO) scripts/demo

style: deps
	scripts/style

# SMC-D vs TCP in one VM, with the ratios (not part of check). S=seconds.
bench: deps
	$(MAKE) all
	scripts/bench $(S)

install: userspace
	cmake --install $(CMAKE_BUILD) --prefix $(PREFIX) --component tools

# af_smc.ko into /lib/modules/<KDIR's release>/updates, then depmod, as
# kbuild does for any external module: modprobe af_smc loads it after.
# Unsigned: Debian's headers carry no signing key (Debian signs its modules
# when it builds them), so kbuild's attempt could only fail, with SSL errors.
# Under Secure Boot the module needs a MOK signature (DKMS makes one).
modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel INSTALL_MOD_DIR=updates CONFIG_MODULE_SIG_ALL= \
		modules_install

# The Debian packages (debian/, Documentation/packaging.md), built by
# dpkg-buildpackage in a copy of the tree (the files git tracks or would
# track, so uncommitted changes are in it) so that the build leaves nothing
# in the source tree; the .debs, .buildinfo and .changes land in build/deb.
DEB = $(BUILD)/deb
deb:
	rm -rf $(DEB) && mkdir -p $(DEB)/src/smc-linux
	git ls-files -z -c -o --exclude-standard | \
		xargs -0 cp -P --parents -t $(DEB)/src/smc-linux --
	cd $(DEB)/src/smc-linux && env -u BUILD dpkg-buildpackage -b -us -uc -J$$(nproc)
	mv $(DEB)/src/*.deb $(DEB)/src/*.buildinfo $(DEB)/src/*.changes $(DEB)/
	rm -rf $(DEB)/src
	@ls $(DEB)/*.deb

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kernel clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/vm/selftest/warn_module clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/handshake clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/selftests/security clean
	rm -rf $(CMAKE_BUILD) $(BUILD)/guest $(BUILD)/kernel $(BUILD)/vm
