# xenft - fault tolerance for Xen HVM guests by deterministic record/replay.
#
#   make            build everything into build/
#   make check      build and run every test (also under ASan+UBSan)
#   make demo       a guest recorded and replayed on the software HVM
#   make bench      run the benchmarks, figures in build/bench/results.json
#   make check-xen  Xen 4.17 under QEMU: the Xen integration tests (root)
#   make install    install into $(DESTDIR)$(PREFIX)
#   make clean
#
# Missing Debian packages are installed by tools/deps.sh, before any
# rule runs.

PREFIX   ?= /usr/local
DESTDIR  ?=
# Where the system looks for them, whatever PREFIX is.
UNITDIR  ?= /lib/systemd/system
INITDIR  ?= /etc/init.d
CONFDIR  ?= /etc/xen
BUILD    ?= build
CC       ?= cc
CLANG    ?= clang
FUZZ_SECONDS ?= 20

# hvm/core: freestanding C99, identical flags inside Xen and here.
CORE_STD    := -std=c99 -pedantic
CORE_FREESTANDING := -ffreestanding -nostdlib -fno-builtin -fno-pic \
                     -mgeneral-regs-only \
                     $(CORE_STD) \
                     -Wall -Wextra -Werror
TOOL_STD    := -std=gnu11
WARN        := -Wall -Wextra -Werror

# The layers, one way: hvm/core <- tools/libxlft <- hvm/ftvm, tools/ftd,
# tools/xl-ft, tools/ftlog, tools/ftdm, and hvm/devices (which needs none)
# <- hvm/ftvm, tools/ftdm
# (README, Layout).  Each directory is given the
# headers of the layers below it and nothing else, so that a wrong
# include fails to compile (make check-layers tries).  The compiler
# searches a source's own directory first, which gives each its own
# headers: libxlft's internal ones (tools/libxlft/*.h) reach no other.
# dom0 sees hvm/core through the headers whose comment says "Exported to
# dom0" (hvm/core/ABI.md), copied into CORE_EXPORT_DIR whole each time
# one changes, so that one no longer exported leaves no copy behind.
CORE_EXPORT := $(notdir $(shell grep -l '^ \* Exported to dom0' \
                                hvm/core/*.h))
CORE_EXPORT_DIR := $(BUILD)/include/ftcore
CORE_EXPORTED := $(CORE_EXPORT_DIR)/.stamp
XLFT_PUBLIC := -Itools/libxlft/include
INC_tools/libxlft := -I$(CORE_EXPORT_DIR) $(XLFT_PUBLIC)
# ftvm is a hypervisor, as Xen is: all of hvm/core; and the device core.
INC_hvm/ftvm  := -Ihvm/core -Ihvm/devices/include $(XLFT_PUBLIC)
INC_hvm/devices := -Ihvm/devices/include
INC_tools/ftd := -I$(CORE_EXPORT_DIR) $(XLFT_PUBLIC)
INC_tools/xl-ft := $(INC_tools/ftd)
INC_tools/ftlog := $(INC_tools/ftd)
# ftdm runs the device core in dom0, on libxlft's xen backend.
INC_tools/ftdm := $(INC_tools/ftd) -Ihvm/devices/include
# Tests may use anything.
INC_tests := -Itests/lib -Ihvm/core -Ihvm/devices/include -Ihvm/ftvm \
             $(XLFT_PUBLIC) \
             -Itools/libxlft -Itools/ftd -Itools/ftdm
LAYERS := hvm/core tools/libxlft hvm/devices hvm/ftvm tools/ftd tools/xl-ft \
          tools/ftlog tools/ftdm
# $(call inc,SOURCE): the include flags of SOURCE's layer (none for
# hvm/core, or a directory not named here).
inc = $(if $(filter tests/%,$(1)),$(INC_tests),\
        $(INC_$(patsubst %/,%,$(dir $(1)))))

CORE_SRC := $(sort $(wildcard hvm/core/*.c))
XLFT_SRC := $(sort $(wildcard tools/libxlft/*.c))
# libxlft's xen backend: in libxlft.a, linked only into dom0 programs.
XLFT_XEN_SRC := tools/libxlft/xen_config.c tools/libxlft/xen_copy.c \
                tools/libxlft/xen_ft.c tools/libxlft/xen_speed.c \
                tools/libxlft/xs_status.c tools/libxlft/xen_cfg_file.c
XLFT_SRC := $(filter-out $(XLFT_XEN_SRC),$(XLFT_SRC))
XEN_LIBS := -lxenlight -lxlutil -lxentoollog -lxenstore -lxencall \
            -lxenforeignmemory -lxenevtchn
VIO_SRC  := $(sort $(wildcard hvm/devices/*.c))
FTVM_SRC := $(sort $(wildcard hvm/ftvm/*.c)) $(VIO_SRC)
FTLOG_SRC := tools/ftlog/ftlog.c
FTD_SRC  := $(sort $(wildcard tools/ftd/*.c))
FTDM_SRC := $(sort $(wildcard tools/ftdm/*.c)) $(VIO_SRC)
GUESTS   := idle cpu disk netrx nettx kvstore vcheck
UNIT_SRC := $(sort $(wildcard tests/unit/*.c tests/lib/*.c))
LIBS     := -lxxhash -lpthread -lcrypto -levent

# Two builds of the same sources: rel (the product) and san (ASan+UBSan).
rel_CFLAGS  := -O2 -g -fPIC
rel_LDFLAGS :=
san_CFLAGS  := -O1 -g -fno-omit-frame-pointer \
               -fsanitize=address,undefined -fno-sanitize-recover=all
san_LDFLAGS := -fsanitize=address,undefined

.PHONY: all check check-unit check-san \
        soak demo \
        check-ftvm check-channel check-ftd check-netgate \
        check-freestanding check-fuzz fuzz-corpus bench install clean \
        check-xen-patches check-lib check-install check-layers
.DEFAULT_GOAL := all

all: $(BUILD)/lib/libftcore.a $(BUILD)/lib/libxlft.a $(BUILD)/bin/ftvm \
     $(BUILD)/bin/ftlog $(BUILD)/bin/ftd $(BUILD)/bin/xl-ft \
     $(BUILD)/bin/ftdm \
     $(GUESTS:%=$(BUILD)/guests/%.bin)

# The packages the goals need are installed while the Makefile is read,
# so that `make -jN` never compiles against headers still being
# installed, nor runs two installations at once.
DEPS_GROUPS := build \
    $(if $(filter check check-% soak%,$(MAKECMDGOALS)),check demo) \
    $(if $(filter demo,$(MAKECMDGOALS)),demo) \
    $(if $(filter bench,$(MAKECMDGOALS)),bench) \
    $(if $(filter check-xen,$(MAKECMDGOALS)),xenlab)
ifneq ($(filter-out clean,$(or $(MAKECMDGOALS),all)),)
ifneq ($(shell sh tools/deps.sh $(DEPS_GROUPS) >&2 && echo ok),ok)
$(error the Debian packages above are missing and could not be installed)
endif
endif

# $(1): variant name
define variant
$(BUILD)/obj/$(1)/hvm/core/%.o: hvm/core/%.c
	@mkdir -p $$(@D)
	$$(CC) $(CORE_STD) $(WARN) $$($(1)_CFLAGS) -MMD -MP -c $$< -o $$@

$(BUILD)/obj/$(1)/%.o: %.c | $(CORE_EXPORTED)
	@mkdir -p $$(@D)
	$$(CC) $(TOOL_STD) $(WARN) $$(call inc,$$<) \
		$$($(1)_CFLAGS) -MMD -MP -c $$< -o $$@

$(1)_CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_XLFT_OBJ := $(XLFT_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_FTVM_OBJ := $(FTVM_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_FTLOG_OBJ := $(FTLOG_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_FTD_OBJ := $(FTD_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_FTDM_OBJ := $(FTDM_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
endef
$(eval $(call variant,rel))
$(eval $(call variant,san))

# cp -p: a copy as old as its source rebuilds only what includes it.
$(CORE_EXPORTED): $(wildcard hvm/core/*.h)
	rm -rf $(CORE_EXPORT_DIR)
	mkdir -p $(CORE_EXPORT_DIR)
	cp -p $(CORE_EXPORT:%=hvm/core/%) $(CORE_EXPORT_DIR)/
	touch $@
# The copies are made by the rule above: an object that includes one is
# judged against the new copy, not the one make saw before it ran.
$(CORE_EXPORT:%=$(CORE_EXPORT_DIR)/%): $(CORE_EXPORTED) ;

$(BUILD)/lib/libftcore.a: $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/lib/libxlft.a: $(rel_XLFT_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The FT domctl's structure is taken from xen-patches, its one definition.
XLFT_XEN_OBJ := $(XLFT_XEN_SRC:%.c=$(BUILD)/obj/rel/%.o)
$(BUILD)/lib/libxlft.a: $(XLFT_XEN_OBJ)
GEN_FT_DOMCTL := tools/libxlft/gen-ft-domctl.sh xen-patches/series \
                 $(wildcard xen-patches/*.patch)
$(BUILD)/gen/xlft_ft_domctl.h: $(GEN_FT_DOMCTL)
	@mkdir -p $(@D)
	sh tools/libxlft/gen-ft-domctl.sh xen-patches $@
$(BUILD)/obj/%/tools/libxlft/xen_ft.o: tools/libxlft/xen_ft.c \
                                       $(BUILD)/gen/xlft_ft_domctl.h \
                                       | $(CORE_EXPORTED)
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(INC_tools/libxlft) -I$(BUILD)/gen \
		$($*_CFLAGS) -MMD -MP -c $< -o $@
# Drives the xen backend in the lab's dom0 (tests/xenlab/tests).
all: $(BUILD)/tests/xlft-xen
$(BUILD)/tests/xlft-xen: $(BUILD)/obj/rel/tests/xenlab/xlft-xen.o \
                         $(XLFT_XEN_OBJ) $(rel_CORE_OBJ) \
                         $(patsubst %,$(BUILD)/obj/rel/tools/libxlft/%.o,\
                           copy_hdr json xen_config_allow xen_local \
                           ack_wake runsock)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(XEN_LIBS) -lxendevicemodel -lpthread

# A paused guest's RAM and registers, hashed (the lab's replay tests).
all: $(BUILD)/tests/xen-state-hash
$(BUILD)/tests/xen-state-hash: $(BUILD)/obj/rel/tests/xenlab/xen-state-hash.o
	@mkdir -p $(@D)
	$(CC) $^ -o $@ -lxencall -lxenforeignmemory -lxxhash

# One interrupt of a paused copy's replay ring moved (the lab's
# divergence test).
all: $(BUILD)/tests/xen-ring-edit
$(BUILD)/tests/xen-ring-edit: $(BUILD)/obj/rel/tests/xenlab/xen-ring-edit.o \
                              $(BUILD)/obj/rel/tools/libxlft/xen_ft.o \
                              $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(XEN_LIBS)

$(BUILD)/bin/ftvm: $(rel_FTVM_OBJ) $(rel_XLFT_OBJ) $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ -lunicorn $(LIBS)

$(BUILD)/bin/ftlog: $(rel_FTLOG_OBJ) $(rel_XLFT_OBJ) $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LIBS)

# One ftd for both backends: it links the xen backend (backend_xen.c).
$(BUILD)/bin/ftd: $(rel_FTD_OBJ) $(rel_XLFT_OBJ) $(XLFT_XEN_OBJ) \
                  $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LIBS) $(XEN_LIBS)

# ftdm: the device core on Xen's ioreq interface.
$(BUILD)/bin/ftdm: $(rel_FTDM_OBJ) $(BUILD)/obj/rel/tools/libxlft/xen_ft.o \
                   $(patsubst %,$(BUILD)/obj/rel/tools/libxlft/%.o,\
                     gate ack_wake dm_ctl runsock) \
                   $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ -levent $(XEN_LIBS) -lxendevicemodel

# xl-ft reads ftd's JSON status with libxlft's reader.
# check and create read xl configurations with libxlutil.
XLFT_CLI_SRC := $(sort $(wildcard tools/xl-ft/*.c)) tools/libxlft/json.c \
                tools/libxlft/xen_cfg_file.c tools/libxlft/dm_spawn.c
$(BUILD)/bin/xl-ft: $(XLFT_CLI_SRC:%.c=$(BUILD)/obj/rel/%.o)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ -lxlutil -lxenlight

# Guests: freestanding i386 code, flat multiboot images (hvm/guests).
GUEST_CFLAGS := -m32 -std=gnu11 -O2 $(WARN) -ffreestanding -nostdlib \
                -fno-pic -fno-pie -fno-stack-protector -mgeneral-regs-only \
                -fno-asynchronous-unwind-tables -Ihvm/guests -Ihvm/ftvm
GUEST_RT := $(BUILD)/obj/guests/rt/setup.o $(BUILD)/obj/guests/rt/start.o \
            $(patsubst %,$(BUILD)/obj/guests/rt/%.o,rt virtio vnet vblk)
$(BUILD)/obj/guests/rt/%.o: hvm/guests/rt/%.S
	@mkdir -p $(@D)
	$(CC) -m32 -c $< -o $@
$(BUILD)/obj/guests/%.o: hvm/guests/%.c $(wildcard hvm/guests/rt/*.h) \
                         hvm/ftvm/ftvm_devices.h
	@mkdir -p $(@D)
	$(CC) $(GUEST_CFLAGS) -c $< -o $@
$(BUILD)/guests/%.bin: $(BUILD)/obj/guests/%.o $(GUEST_RT) \
                       hvm/guests/rt/guest.ld
	@mkdir -p $(@D)
	ld -m elf_i386 --no-warn-rwx-segments -T hvm/guests/rt/guest.ld \
		$(GUEST_RT) $< -o $(@:.bin=.elf)
	objcopy -O binary $(@:.bin=.elf) $@

$(BUILD)/tests/kvclient: tests/demo/kvclient.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) -O2 $< -o $@

$(BUILD)/tests/ftvm-dom0: tests/ftvm/ftvm-dom0.c $(BUILD)/lib/libxlft.a \
                         $(BUILD)/lib/libftcore.a
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(INC_tests) -O2 -g $^ $(LIBS) -o $@
# A stranger at the logging port (tests/ftd/flood.sh).
$(BUILD)/tests/ftd-flood: tests/ftd/flood.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) -O2 -g $< -o $@
# Control clients of ftd that misbehave (tests/ftd/busy.sh).
$(BUILD)/tests/ftd-ctl-client: tests/ftd/ctl-client.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) -O2 -g $< -o $@

$(BUILD)/tests/udpframes: tests/ftvm/udpframes.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) -O2 $< -o $@

# The unit tests also take ftvm's device models and ftd's decoders that
# stand alone.
UNIT_FTVM := hvm/ftvm/pic.c tools/ftd/sync_hdr.c tools/ftd/pair_meter.c \
             tools/ftdm/devstate.c tools/ftdm/ctl.c $(VIO_SRC)
$(BUILD)/tests/unit-tests: $(rel_UNIT_OBJ) $(rel_XLFT_OBJ) $(rel_CORE_OBJ) \
                           $(UNIT_FTVM:%.c=$(BUILD)/obj/rel/%.o) \
                           $(BUILD)/obj/rel/tools/libxlft/xen_cfg_file.o
	@mkdir -p $(@D)
	$(CC) $^ -o $@ -lcunit $(LIBS) -lxlutil -lxenlight

$(BUILD)/tests/unit-tests-san: $(san_UNIT_OBJ) $(san_XLFT_OBJ) \
                               $(san_CORE_OBJ) \
                               $(UNIT_FTVM:%.c=$(BUILD)/obj/san/%.o) \
                               $(BUILD)/obj/san/tools/libxlft/xen_cfg_file.o
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@ -lcunit $(LIBS) -lxlutil -lxenlight

# ftvm serve and its control client under ASan+UBSan, with the guests.
SAN := $(BUILD)/san
$(SAN)/bin/ftvm: $(san_FTVM_OBJ) $(san_XLFT_OBJ) $(san_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@ -lunicorn $(LIBS)
$(SAN)/tests/ftvm-dom0: $(BUILD)/obj/san/tests/ftvm/ftvm-dom0.o \
                       $(san_XLFT_OBJ) $(san_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@ $(LIBS)
$(SAN)/tests/ftd-ctl-client: tests/ftd/ctl-client.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(san_CFLAGS) $(san_LDFLAGS) $< -o $@
$(SAN)/bin/ftd: $(san_FTD_OBJ) $(san_XLFT_OBJ) \
                $(XLFT_XEN_SRC:%.c=$(BUILD)/obj/san/%.o) $(san_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@ $(LIBS) $(XEN_LIBS)
$(SAN)/bin/xl-ft: $(XLFT_CLI_SRC:%.c=$(BUILD)/obj/san/%.o)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@ -lxlutil -lxenlight
$(SAN)/guests: $(GUESTS:%=$(BUILD)/guests/%.bin)
	@mkdir -p $(@D)
	ln -sfn ../guests $@

# --- checks -----------------------------------------------------------

# Every test script or program a check target runs is one unit, run by
# tests/lib/run-check.sh: its output kept, its outcome (pass; fail; skip,
# exit 77, with the reason of its "SKIP:" line) in $(CHECK_DIR)/GROUP/.
# A unit that fails does not stop the others; each check target ends in
# the summary of what it ran (`make check`: one of everything), which
# names every skip and failure and fails if one failed.  The results of
# an earlier make are removed before any unit runs.
CHECK_DIR := $(BUILD)/check
RUN := sh tests/lib/run-check.sh run $(CHECK_DIR)
CHECK_GOALS := check check-lib check-unit check-san check-ftvm check-ftd \
               check-netgate check-faults soak-faults check-channel \
               check-freestanding check-fuzz check-xen-patches soak \
               check-install check-layers
ifneq ($(filter $(CHECK_GOALS),$(MAKECMDGOALS)),)
_ := $(shell rm -rf $(CHECK_DIR))
endif
# $(call summary,GROUP...): the verdict on those units, unless `make
# check` gives it at its end.
summary = $(if $(filter check,$(MAKECMDGOALS)),@true,\
            @sh tests/lib/run-check.sh summary \
            $(CHECK_DIR) $(1))
SAN_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
           LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp

check: all check-lib check-freestanding check-unit check-san \
       check-ftvm check-ftd check-netgate check-faults \
       check-channel check-fuzz check-xen-patches check-install \
       check-layers
	@sh tests/lib/run-check.sh summary $(CHECK_DIR)

# The runner itself: a failure must fail the summary.
check-lib:
	@$(RUN) lib/run-check sh tests/lib/selftest.sh
	$(call summary,lib)

# ftvm end to end: record/replay pairs in separate processes, and logs
# that must be refused.  `make soak` runs many more pairs.
PAIRS ?= 50
check-ftvm: all $(BUILD)/tests/udpframes $(BUILD)/tests/ftvm-dom0
	@$(RUN) ftvm/selftest $(BUILD)/bin/ftvm selftest
	@$(RUN) ftvm/pairs sh tests/ftvm/pairs.sh $(BUILD) $(PAIRS)
	@$(RUN) ftvm/divergence sh tests/ftvm/divergence.sh $(BUILD)
	@$(RUN) ftvm/net sh tests/ftvm/net.sh $(BUILD)
	@$(RUN) ftvm/snapshot sh tests/ftvm/snapshot.sh $(BUILD)
	@$(RUN) ftvm/guestend sh tests/ftvm/guestend.sh $(BUILD)
	@$(RUN) ftvm/virtio sh tests/ftvm/virtio.sh $(BUILD)
	@$(RUN) ftvm/attached sh tests/ftvm/attached.sh $(BUILD)
	$(call summary,ftvm)

# ftd end to end: two hosts in network namespaces (root).
check-ftd: all $(BUILD)/tests/ftvm-dom0 \
           $(BUILD)/tests/ftd-ctl-client $(BUILD)/tests/ftd-flood
	@$(RUN) ftd/failover sh tests/ftd/failover.sh $(BUILD)
	@$(RUN) ftd/service sh tests/ftd/service.sh $(BUILD)
	@ARBITER=etcd $(RUN) ftd/failover-etcd sh tests/ftd/failover.sh $(BUILD)
	@ARBITER=etcd $(RUN) ftd/service-etcd sh tests/ftd/service.sh $(BUILD)
	@$(RUN) ftd/regress sh tests/ftd/regress.sh $(BUILD)
	@$(RUN) ftd/busy sh tests/ftd/busy.sh $(BUILD)
	@$(RUN) ftd/flood sh tests/ftd/flood.sh $(BUILD)
	@$(RUN) ftd/rundir sh tests/ftd/rundir.sh $(BUILD)
	@$(RUN) ftd/identity sh tests/ftd/identity.sh $(BUILD)
	@$(RUN) ftd/status sh tests/ftd/status.sh $(BUILD)
	$(call summary,ftd)

# The nemesis suite (tests/faults): the kvstore guest protected on two
# hosts under random faults, each schedule judged from the client's
# history and captures.  SEED=S SCHEDULES=1 runs schedule S again
# (KINDS=a,b: faults of those kinds only; root).
SCHEDULES ?= 10
SEED ?= $(shell od -An -N2 -tu2 /dev/urandom | tr -d ' ')
.PHONY: check-faults soak-faults
$(BUILD)/tests/faultclient: tests/faults/faultclient.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) -O2 $< -o $@
check-faults: all $(BUILD)/tests/faultclient \
              $(BUILD)/tests/ftvm-dom0
	@$(RUN) faults/checker sh tests/faults/selftest.sh
	@KINDS=$(KINDS) $(RUN) faults/nemesis \
		sh tests/faults/nemesis.sh $(BUILD) $(SCHEDULES) $(SEED)
	$(call summary,faults)
soak-faults: SCHEDULES = 200
soak-faults: check-faults

# The network gate on real frames: namespaces, a bridge, NFQUEUE (root).
$(BUILD)/tests/netgate-test: tests/netgate/netgate-test.c \
                             $(BUILD)/lib/libxlft.a
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(INC_tests) -O2 -g $^ -o $@
NETGATE_OBJ = $(patsubst %,$(BUILD)/obj/$(1)/tools/libxlft/%.o,\
                netgate nfnl nftrules nlsock pktq)
$(SAN)/tests/netgate-test: $(BUILD)/obj/san/tests/netgate/netgate-test.o \
                           $(call NETGATE_OBJ,san)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@
check-netgate: all $(BUILD)/tests/netgate-test \
               $(SAN)/tests/netgate-test
	@$(RUN) netgate/rel sh tests/netgate/netgate.sh $(BUILD)
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		$(RUN) netgate/san sh tests/netgate/netgate.sh $(SAN)
	$(call summary,netgate)

# A real Xen 4.17 host under QEMU (tests/xenlab): builds the dom0 image
# if needed (cached in $(BUILD)/xenlab), then runs tests/xenlab/tests,
# with a summary of its own in the same form.
.PHONY: check-xen
check-xen: all
	XENLAB_OUT=$(abspath $(BUILD))/xenlab sh tests/xenlab/lab.sh check

# XEN_SRC=xen-4.17.7.tar.xz: the hypervisor patched with xen-patches is
# built from it first (again when the tarball or the series changes),
# and the lab's tests of it run too; without it they are skipped.
XEN_SRC ?=
ifneq ($(XEN_SRC),)
$(BUILD)/xenlab/xen-patched.gz: $(XEN_SRC) xen-patches/series \
                                $(wildcard xen-patches/*.patch \
                                           xen-patches/*.sh \
                                           hvm/core/*.[ch])
	sh xen-patches/from-tarball.sh $(XEN_SRC) $(BUILD)
check-xen: $(BUILD)/xenlab/xen-patched.gz
endif

soak: all
	@$(RUN) ftvm/soak sh tests/ftvm/pairs.sh $(BUILD) 1000
	$(call summary,ftvm)

demo: all $(BUILD)/tests/kvclient
	@sh tests/demo/demo.sh $(BUILD)

check-unit: $(BUILD)/tests/unit-tests
	@$(RUN) unit/cunit sh -c 'cd tests/unit && \
		exec ../../$(BUILD)/tests/unit-tests'
	$(call summary,unit)

check-san: $(BUILD)/tests/unit-tests-san $(SAN)/bin/ftvm \
           $(SAN)/bin/ftd $(SAN)/bin/xl-ft $(SAN)/tests/ftvm-dom0 \
           $(SAN)/tests/ftd-ctl-client $(SAN)/guests
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1 \
		$(RUN) san/cunit sh -c 'cd tests/unit && \
		exec ../../$(BUILD)/tests/unit-tests-san'
	@$(SAN_ENV) $(RUN) san/ftvm-attached sh tests/ftvm/attached.sh $(SAN)
	@$(SAN_ENV) $(RUN) san/ftd-failover sh tests/ftd/failover.sh $(SAN)
	@$(SAN_ENV) $(RUN) san/ftd-service sh tests/ftd/service.sh $(SAN)
	@$(SAN_ENV) $(RUN) san/ftd-regress sh tests/ftd/regress.sh $(SAN)
	@$(SAN_ENV) $(RUN) san/ftd-busy sh tests/ftd/busy.sh $(SAN)
	@$(SAN_ENV) $(RUN) san/ftd-rundir sh tests/ftd/rundir.sh $(SAN)
	@$(SAN_ENV) $(RUN) san/ftd-identity sh tests/ftd/identity.sh $(SAN)
	@$(SAN_ENV) $(RUN) san/ftd-status sh tests/ftd/status.sh $(SAN)
	$(call summary,san)

# The logging channel end to end over TCP on loopback, also under
# ASan+UBSan.
CHAN_TEST := tests/channel/loopback.c tests/lib/records.c \
             tests/lib/old_hello.c
$(BUILD)/tests/chan-loopback: $(CHAN_TEST:%.c=$(BUILD)/obj/rel/%.o) \
                              $(rel_XLFT_OBJ) $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LIBS)
$(BUILD)/tests/chan-loopback-san: $(CHAN_TEST:%.c=$(BUILD)/obj/san/%.o) \
                                  $(san_XLFT_OBJ) $(san_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@ $(LIBS)
check-channel: $(BUILD)/tests/chan-loopback \
               $(BUILD)/tests/chan-loopback-san
	@$(RUN) channel/rel timeout -k 5 300 $(BUILD)/tests/chan-loopback
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		$(RUN) channel/san timeout -k 5 300 \
		$(BUILD)/tests/chan-loopback-san
	$(call summary,channel)

# hvm/core must build unchanged as freestanding code for both x86 widths.
FREE_OBJ := $(foreach a,x86_64 i386,\
              $(CORE_SRC:hvm/core/%.c=$(BUILD)/freestanding/$(a)/%.o))
$(BUILD)/freestanding/x86_64/%.o: hvm/core/%.c $(wildcard hvm/core/*.h)
	@mkdir -p $(@D)
	$(CC) -m64 $(CORE_FREESTANDING) -O2 -c $< -o $@
$(BUILD)/freestanding/i386/%.o: hvm/core/%.c $(wildcard hvm/core/*.h)
	@mkdir -p $(@D)
	$(CC) -m32 $(CORE_FREESTANDING) -O2 -c $< -o $@
check-freestanding: $(FREE_OBJ)
	@$(RUN) freestanding/core sh tests/check-freestanding.sh $(FREE_OBJ)
	$(call summary,freestanding)

# The layers hold (tests/layers): with each layer's compiler and flags,
# a probe including a header the layer may not use fails to compile,
# one including what it may compiles.
LAYER_CC = $(CC) $(if $(filter hvm/core,$(1)),$(CORE_STD),$(TOOL_STD)) \
           $(WARN) $(INC_$(1))
check-layers: $(CORE_EXPORTED)
	@$(RUN) layers/includes sh tests/layers/check.sh \
		$(foreach l,$(LAYERS),"$(l):$(strip $(call LAYER_CC,$(l)))")
	$(call summary,layers)

# xen-patches/ without a Xen tree (xen-patches/verify.sh builds with one).
check-xen-patches:
	@$(RUN) xen-patches/series sh tests/xen-patches-check.sh
	$(call summary,xen-patches)

# libFuzzer targets, run for a bounded time on the committed seeds.
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
# TESTUTIL_ABORT: a failed CHECK is a crash, whose input libFuzzer keeps.
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=all $(INC_tests) \
              -DTESTUTIL_ABORT
FUZZ_EXTRA_fuzz_sync := tools/ftd/sync_hdr.c
$(BUILD)/fuzz/fuzz_sync: tools/ftd/sync_hdr.c tools/ftd/sync_hdr.h
# fuzz_ftvm runs the whole software HVM on its inputs.
FUZZ_EXTRA_fuzz_ftvm := $(filter-out hvm/ftvm/main.c,$(FTVM_SRC))
FUZZ_LIBS_fuzz_ftvm := -lunicorn
$(BUILD)/fuzz/fuzz_ftvm: $(GUESTS:%=$(BUILD)/guests/%.bin) \
                         $(FUZZ_EXTRA_fuzz_ftvm) hvm/ftvm/ftvm.h
# fuzz_virtio drives the device core as a guest and its host would.
FUZZ_EXTRA_fuzz_virtio := $(VIO_SRC) tests/lib/fakeram.c
$(BUILD)/fuzz/fuzz_virtio: $(FUZZ_EXTRA_fuzz_virtio) tests/lib/fakeram.h \
                           $(wildcard hvm/devices/*.h hvm/devices/include/*.h)
# fuzz_devstate loads the device state a peer sends into ftdm's devices.
FUZZ_EXTRA_fuzz_devstate := $(VIO_SRC) tools/ftdm/devstate.c \
                            tests/lib/fakeram.c
$(BUILD)/fuzz/fuzz_devstate: $(FUZZ_EXTRA_fuzz_devstate) \
                             tools/ftdm/devstate.h tests/lib/fakeram.h \
                             $(wildcard hvm/devices/*.h \
                                        hvm/devices/include/*.h)
# fuzz_snapshot restores the state a peer sends into the same HVM.
FUZZ_EXTRA_fuzz_snapshot := $(FUZZ_EXTRA_fuzz_ftvm)
FUZZ_LIBS_fuzz_snapshot := -lunicorn
$(BUILD)/fuzz/fuzz_snapshot: $(GUESTS:%=$(BUILD)/guests/%.bin) \
                             $(FUZZ_EXTRA_fuzz_ftvm) hvm/ftvm/ftvm.h
$(BUILD)/fuzz/%: tests/fuzz/%.c $(CORE_SRC) $(XLFT_SRC) tests/lib/records.c \
                 $(wildcard hvm/core/*.h tools/libxlft/include/*.h \
                            tools/libxlft/*.h tests/lib/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) $< $(CORE_SRC) $(XLFT_SRC) \
		tests/lib/records.c $(FUZZ_EXTRA_$*) -o $@ $(LIBS) \
		$(FUZZ_LIBS_$*)
# The seeds are committed; this writes them again from the real encoder
# (deterministically) after a format change, and check-fuzz fails while
# the committed ones are not what it writes.  fuzz_ftvm's seeds are
# recorded runs, kept as they are.
GEN_CORPORA := fuzz_log fuzz_logfile fuzz_ctl fuzz_frame fuzz_session \
               fuzz_live fuzz_sync fuzz_virtio
MKCORPUS_SRC := tests/fuzz/mkcorpus.c tools/ftd/sync_hdr.c \
                tests/lib/old_hello.c
$(BUILD)/mkcorpus: $(MKCORPUS_SRC) $(CORE_SRC) $(XLFT_SRC) \
                   $(wildcard hvm/core/*.h tools/libxlft/include/*.h \
                              tools/libxlft/*.h tools/ftd/sync_hdr.h \
                              tests/lib/*.h)
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(INC_tests) $(MKCORPUS_SRC) \
		$(CORE_SRC) $(XLFT_SRC) -o $@ $(LIBS)
fuzz-corpus: $(BUILD)/mkcorpus
	rm -rf $(addprefix tests/fuzz/corpus/,$(GEN_CORPORA))
	$(BUILD)/mkcorpus tests/fuzz/corpus

check-fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%) $(BUILD)/mkcorpus
	@$(RUN) fuzz/seeds sh tests/fuzz/seeds.sh $(BUILD)/mkcorpus \
		$(GEN_CORPORA)
	@for t in $(FUZZ_TARGETS); do \
		$(RUN) fuzz/$$t sh tests/fuzz/run.sh $(BUILD)/fuzz/$$t \
			tests/fuzz/corpus/$$t $(FUZZ_SECONDS); \
	done
	$(call summary,fuzz)

# --- benchmarks -------------------------------------------------------

# Against hvm/core as the hypervisor builds it (freestanding, no PIC).
$(BUILD)/bench/bench-core: tests/bench/bench_core.c \
        $(filter $(BUILD)/freestanding/x86_64/%,$(FREE_OBJ))
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(INC_tests) -O2 -g -no-pie $^ -o $@

# The logging channel against plain TCP, as ftd links it; the calls that
# seal, open and copy are wrapped, to time them (bench_channel.c).
BENCH_CHAN := tests/bench/bench_channel.c tests/lib/records.c
BENCH_WRAP := EVP_EncryptUpdate EVP_DecryptUpdate memcpy memmove \
              evbuffer_add evbuffer_remove
$(BUILD)/bench/bench-channel: $(BENCH_CHAN:%.c=$(BUILD)/obj/rel/%.o) \
                              $(rel_XLFT_OBJ) $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(BENCH_WRAP:%=-Wl,--wrap=%) $(LIBS)

$(BUILD)/bench/udp-rtt: tests/bench/udp_rtt.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) -Itests/lib -O2 $< -o $@

bench: all $(BUILD)/bench/bench-core $(BUILD)/tests/udpframes \
       $(BUILD)/bench/bench-channel $(BUILD)/bench/udp-rtt \
       $(BUILD)/tests/ftvm-dom0
	sh tests/bench/run-core.sh $(BUILD)/bench
	sh tests/bench/run-ftvm.sh $(BUILD)
	sh tests/bench/run-ftd.sh $(BUILD)
	sh tests/bench/plots.sh $(BUILD)/bench tests/bench/plots

# --- install ----------------------------------------------------------

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/include/xenft \
		$(DESTDIR)$(PREFIX)/share/xenft/guests \
		$(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/bin/ftvm $(BUILD)/bin/ftlog $(BUILD)/bin/ftd \
		$(BUILD)/bin/xl-ft $(BUILD)/bin/ftdm \
		$(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 644 tools/ftd/ftd.8 tools/ftdm/ftdm.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 644 hvm/ftvm/ftvm.1 tools/ftlog/ftlog.1 tools/xl-ft/xl-ft.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(BUILD)/lib/libftcore.a $(BUILD)/lib/libxlft.a \
		$(DESTDIR)$(PREFIX)/lib/
	@# Public headers only: libxlft's, and hvm/core's exported to dom0.
	install -m 644 $(CORE_EXPORT:%=hvm/core/%) tools/libxlft/include/*.h \
		$(DESTDIR)$(PREFIX)/include/xenft/
	install -m 644 $(GUESTS:%=$(BUILD)/guests/%.bin) \
		$(DESTDIR)$(PREFIX)/share/xenft/guests/
	install -d $(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(INITDIR) $(DESTDIR)$(CONFDIR)
	install -m 644 config/ft.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|' config/ftd.service \
		>$(DESTDIR)$(UNITDIR)/ftd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/ftd.service
	sed 's|@BINDIR@|$(PREFIX)/bin|' config/ftd.init \
		>$(DESTDIR)$(INITDIR)/ftd
	chmod 755 $(DESTDIR)$(INITDIR)/ftd
	@# The host's own settings stay as they are.
	@if [ -e $(DESTDIR)$(CONFDIR)/ft.conf ]; then \
		echo "kept $(DESTDIR)$(CONFDIR)/ft.conf (not overwritten)"; \
	else \
		sed 's|/usr/local/bin/|$(PREFIX)/bin/|' config/ft.conf \
			>$(DESTDIR)$(CONFDIR)/ft.conf && \
		chmod 644 $(DESTDIR)$(CONFDIR)/ft.conf; \
	fi

# make install into a scratch DESTDIR: the layout, the man pages.
check-install: all
	@MAKE="$(MAKE)" $(RUN) install/layout sh tests/install/layout.sh $(BUILD)
	$(call summary,install)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
