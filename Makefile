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
# Missing Debian packages are installed by tools/deps.sh.

PREFIX   ?= /usr/local
DESTDIR  ?=
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
INCLUDES    := -Ihvm/core -Ihvm/ftvm -Itools/libxlft/include
TEST_INCLUDES := -Itests/lib -Ihvm/ftvm

CORE_SRC := $(sort $(wildcard hvm/core/*.c))
XLFT_SRC := $(sort $(wildcard tools/libxlft/*.c))
# libxlft's xen backend: in libxlft.a, linked only into dom0 programs.
XLFT_XEN_SRC := tools/libxlft/xen_config.c tools/libxlft/xen_copy.c \
                tools/libxlft/xen_ft.c tools/libxlft/xen_speed.c \
                tools/libxlft/xs_status.c
XLFT_SRC := $(filter-out $(XLFT_XEN_SRC),$(XLFT_SRC))
XEN_LIBS := -lxenlight -lxentoollog -lxenstore -lxencall \
            -lxenforeignmemory -lxenevtchn
FTVM_SRC := $(sort $(wildcard hvm/ftvm/*.c))
FTLOG_SRC := tools/ftlog/ftlog.c
FTD_SRC  := $(sort $(wildcard tools/ftd/*.c))
GUESTS   := idle cpu disk netrx nettx kvstore
UNIT_SRC := $(sort $(wildcard tests/unit/*.c tests/lib/*.c))
LIBS     := -lxxhash -lpthread -lcrypto -levent

# Two builds of the same sources: rel (the product) and san (ASan+UBSan).
rel_CFLAGS  := -O2 -g -fPIC
rel_LDFLAGS :=
san_CFLAGS  := -O1 -g -fno-omit-frame-pointer \
               -fsanitize=address,undefined -fno-sanitize-recover=all
san_LDFLAGS := -fsanitize=address,undefined

.PHONY: all deps deps-check deps-bench deps-demo check check-unit check-san \
        soak demo \
        check-ftvm check-channel check-ftd check-netgate \
        check-freestanding check-fuzz fuzz-corpus bench install clean \
        check-xen-patches
.DEFAULT_GOAL := all

all: deps $(BUILD)/lib/libftcore.a $(BUILD)/lib/libxlft.a $(BUILD)/bin/ftvm \
     $(BUILD)/bin/ftlog $(BUILD)/bin/ftd $(BUILD)/bin/xl-ft \
     $(GUESTS:%=$(BUILD)/guests/%.bin)

deps:
	@sh tools/deps.sh build
deps-check:
	@sh tools/deps.sh check
deps-bench:
	@sh tools/deps.sh bench
deps-demo:
	@sh tools/deps.sh demo

# $(1): variant name
define variant
$(BUILD)/obj/$(1)/hvm/core/%.o: hvm/core/%.c
	@mkdir -p $$(@D)
	$$(CC) $(CORE_STD) $(WARN) $$($(1)_CFLAGS) -MMD -MP -c $$< -o $$@

$(BUILD)/obj/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $(TOOL_STD) $(WARN) $(INCLUDES) \
		$$(if $$(filter tests/%,$$<),$(TEST_INCLUDES)) \
		$$($(1)_CFLAGS) -MMD -MP -c $$< -o $$@

$(1)_CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_XLFT_OBJ := $(XLFT_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_FTVM_OBJ := $(FTVM_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_FTLOG_OBJ := $(FTLOG_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
$(1)_FTD_OBJ := $(FTD_SRC:%.c=$(BUILD)/obj/$(1)/%.o)
endef
$(eval $(call variant,rel))
$(eval $(call variant,san))

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
                                       $(BUILD)/gen/xlft_ft_domctl.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(INCLUDES) -I$(BUILD)/gen $($*_CFLAGS) \
		-MMD -MP -c $< -o $@
# Drives the xen backend in the lab's dom0 (tests/xenlab/tests).
all: $(BUILD)/tests/xlft-xen
$(BUILD)/tests/xlft-xen: $(BUILD)/obj/rel/tests/xenlab/xlft-xen.o \
                         $(XLFT_XEN_OBJ) $(rel_CORE_OBJ) \
                         $(patsubst %,$(BUILD)/obj/rel/tools/libxlft/%.o,\
                           copy_hdr json xen_config_allow xen_local)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(XEN_LIBS) -lpthread

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

$(BUILD)/bin/xl-ft: $(BUILD)/obj/rel/tools/xl-ft/xl-ft.o
	@mkdir -p $(@D)
	$(CC) $^ -o $@

# Guests: freestanding i386 code, flat multiboot images (hvm/guests).
GUEST_CFLAGS := -m32 -std=gnu11 -O2 $(WARN) -ffreestanding -nostdlib \
                -fno-pic -fno-pie -fno-stack-protector -mgeneral-regs-only \
                -fno-asynchronous-unwind-tables -Ihvm/guests -Ihvm/ftvm
GUEST_RT := $(BUILD)/obj/guests/rt/setup.o $(BUILD)/obj/guests/rt/start.o \
            $(BUILD)/obj/guests/rt/rt.o
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
	$(CC) $(TOOL_STD) $(WARN) $(INCLUDES) -O2 -g $^ $(LIBS) -o $@
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
UNIT_FTVM := hvm/ftvm/pic.c tools/ftd/sync_hdr.c
$(BUILD)/tests/unit-tests: $(rel_UNIT_OBJ) $(rel_XLFT_OBJ) $(rel_CORE_OBJ) \
                           $(UNIT_FTVM:%.c=$(BUILD)/obj/rel/%.o)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ -lcunit $(LIBS)

$(BUILD)/tests/unit-tests-san: $(san_UNIT_OBJ) $(san_XLFT_OBJ) $(san_CORE_OBJ) \
                               $(UNIT_FTVM:%.c=$(BUILD)/obj/san/%.o)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@ -lcunit $(LIBS)

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
$(SAN)/bin/xl-ft: $(BUILD)/obj/san/tools/xl-ft/xl-ft.o
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@
$(SAN)/guests: $(GUESTS:%=$(BUILD)/guests/%.bin)
	@mkdir -p $(@D)
	ln -sfn ../guests $@

# --- checks -----------------------------------------------------------

check: deps-check all check-freestanding check-unit check-san check-ftvm \
       check-ftd check-netgate check-faults \
       check-channel check-fuzz check-xen-patches
	@echo "make check: all passed"

# ftvm end to end: record/replay pairs in separate processes, and logs
# that must be refused.  `make soak` runs many more pairs.
PAIRS ?= 50
check-ftvm: all $(BUILD)/tests/udpframes $(BUILD)/tests/ftvm-dom0
	$(BUILD)/bin/ftvm selftest
	sh tests/ftvm/pairs.sh $(BUILD) $(PAIRS)
	sh tests/ftvm/divergence.sh $(BUILD)
	sh tests/ftvm/net.sh $(BUILD)
	sh tests/ftvm/snapshot.sh $(BUILD)
	sh tests/ftvm/guestend.sh $(BUILD)
	sh tests/ftvm/attached.sh $(BUILD)

# ftd end to end: two hosts in network namespaces (root; 77: skipped).
check-ftd: all deps-check deps-demo $(BUILD)/tests/ftvm-dom0 \
           $(BUILD)/tests/ftd-ctl-client $(BUILD)/tests/ftd-flood
	sh tests/ftd/failover.sh $(BUILD); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
	sh tests/ftd/service.sh $(BUILD); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
	ARBITER=etcd sh tests/ftd/failover.sh $(BUILD); rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]
	ARBITER=etcd sh tests/ftd/service.sh $(BUILD); rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]
	sh tests/ftd/regress.sh $(BUILD); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
	sh tests/ftd/busy.sh $(BUILD); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
	sh tests/ftd/flood.sh $(BUILD); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]
	sh tests/ftd/rundir.sh $(BUILD); rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]

# The nemesis suite (tests/faults): the kvstore guest protected on two
# hosts under random faults, each schedule judged from the client's
# history and captures.  SEED=S SCHEDULES=1 runs schedule S again
# (KINDS=a,b: faults of those kinds only; root; 77: skipped).
SCHEDULES ?= 10
SEED ?= $(shell od -An -N2 -tu2 /dev/urandom | tr -d ' ')
.PHONY: check-faults soak-faults
$(BUILD)/tests/faultclient: tests/faults/faultclient.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) -O2 $< -o $@
check-faults: all deps-check $(BUILD)/tests/faultclient \
              $(BUILD)/tests/ftvm-dom0
	sh tests/faults/selftest.sh
	KINDS=$(KINDS) sh tests/faults/nemesis.sh $(BUILD) $(SCHEDULES) $(SEED); \
		rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]
soak-faults: SCHEDULES = 200
soak-faults: check-faults

# The network gate on real frames: namespaces, a bridge, NFQUEUE (root;
# 77: skipped, said loudly).
$(BUILD)/tests/netgate-test: tests/netgate/netgate-test.c \
                             $(BUILD)/lib/libxlft.a
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(INCLUDES) -O2 -g $^ -o $@
NETGATE_OBJ = $(patsubst %,$(BUILD)/obj/$(1)/tools/libxlft/%.o,\
                netgate nfnl nftrules nlsock pktq)
$(SAN)/tests/netgate-test: $(BUILD)/obj/san/tests/netgate/netgate-test.o \
                           $(call NETGATE_OBJ,san)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@
check-netgate: all deps-check deps-demo $(BUILD)/tests/netgate-test \
               $(SAN)/tests/netgate-test
	for b in $(BUILD) $(SAN); do \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
			sh tests/netgate/netgate.sh $$b; rc=$$?; \
		if [ $$rc = 77 ]; then \
			echo "*** check-netgate SKIPPED: not tested here ***"; \
		elif [ $$rc != 0 ]; then exit 1; fi; \
	done

# A real Xen 4.17 host under QEMU (tests/xenlab): builds the dom0 image
# if needed (cached in $(BUILD)/xenlab), then runs tests/xenlab/tests.
.PHONY: deps-xenlab check-xen
deps-xenlab:
	@sh tools/deps.sh xenlab
check-xen: all deps-xenlab
	XENLAB_OUT=$(abspath $(BUILD))/xenlab sh tests/xenlab/lab.sh check

soak: all
	sh tests/ftvm/pairs.sh $(BUILD) 1000

demo: all deps-demo $(BUILD)/tests/kvclient
	@sh tests/demo/demo.sh $(BUILD)

check-unit: deps-check $(BUILD)/tests/unit-tests
	cd tests/unit && ../../$(BUILD)/tests/unit-tests

check-san: deps-check $(BUILD)/tests/unit-tests-san $(SAN)/bin/ftvm \
           $(SAN)/bin/ftd $(SAN)/bin/xl-ft $(SAN)/tests/ftvm-dom0 \
           $(SAN)/tests/ftd-ctl-client $(SAN)/guests
	cd tests/unit && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1 ../../$(BUILD)/tests/unit-tests-san
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
		sh tests/ftvm/attached.sh $(SAN)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
		sh tests/ftd/failover.sh $(SAN); rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
		sh tests/ftd/service.sh $(SAN); rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
		sh tests/ftd/regress.sh $(SAN); rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
		sh tests/ftd/busy.sh $(SAN); rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/fuzz/lsan.supp \
		sh tests/ftd/rundir.sh $(SAN); rc=$$?; \
		[ $$rc = 0 ] || [ $$rc = 77 ]

# The logging channel end to end over TCP on loopback, also under
# ASan+UBSan.
CHAN_TEST := tests/channel/loopback.c tests/lib/records.c
$(BUILD)/tests/chan-loopback: $(CHAN_TEST:%.c=$(BUILD)/obj/rel/%.o) \
                              $(rel_XLFT_OBJ) $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LIBS)
$(BUILD)/tests/chan-loopback-san: $(CHAN_TEST:%.c=$(BUILD)/obj/san/%.o) \
                                  $(san_XLFT_OBJ) $(san_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $(san_LDFLAGS) $^ -o $@ $(LIBS)
check-channel: deps-check $(BUILD)/tests/chan-loopback \
               $(BUILD)/tests/chan-loopback-san
	timeout -k 5 300 $(BUILD)/tests/chan-loopback
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		timeout -k 5 300 $(BUILD)/tests/chan-loopback-san

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
	@sh tests/check-freestanding.sh $(FREE_OBJ)

# xen-patches/ without a Xen tree (xen-patches/verify.sh builds with one).
check-xen-patches:
	@sh tests/xen-patches-check.sh

# libFuzzer targets, run for a bounded time on the committed seeds.
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
              -fno-sanitize-recover=all $(INCLUDES) -Itests/lib
FUZZ_EXTRA_fuzz_ctl := hvm/ftvm/ctlmsg.c
FUZZ_EXTRA_fuzz_sync := tools/ftd/sync_hdr.c
$(BUILD)/fuzz/fuzz_sync: tools/ftd/sync_hdr.c tools/ftd/sync_hdr.h
# fuzz_ftvm runs the whole software HVM on its inputs.
FUZZ_EXTRA_fuzz_ftvm := $(filter-out hvm/ftvm/main.c,$(FTVM_SRC))
FUZZ_LIBS_fuzz_ftvm := -lunicorn
$(BUILD)/fuzz/fuzz_ftvm: $(GUESTS:%=$(BUILD)/guests/%.bin) \
                         $(FUZZ_EXTRA_fuzz_ftvm) hvm/ftvm/ftvm.h
# fuzz_snapshot restores the state a peer sends into the same HVM.
FUZZ_EXTRA_fuzz_snapshot := $(FUZZ_EXTRA_fuzz_ftvm)
FUZZ_LIBS_fuzz_snapshot := -lunicorn
$(BUILD)/fuzz/fuzz_snapshot: $(GUESTS:%=$(BUILD)/guests/%.bin) \
                             $(FUZZ_EXTRA_fuzz_ftvm) hvm/ftvm/ftvm.h
$(BUILD)/fuzz/%: tests/fuzz/%.c $(CORE_SRC) $(XLFT_SRC) tests/lib/records.c \
                 $(wildcard hvm/core/*.h tools/libxlft/include/*.h \
                            tools/libxlft/*.h tests/lib/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_FLAGS) -Ihvm/ftvm $< $(CORE_SRC) $(XLFT_SRC) \
		tests/lib/records.c $(FUZZ_EXTRA_$*) -o $@ $(LIBS) \
		$(FUZZ_LIBS_$*)
# The seeds are committed; this writes them again from the real encoder
# (deterministically) after a format change.  fuzz_ftvm's seeds are
# recorded runs, kept as they are.
fuzz-corpus: deps
	@mkdir -p $(BUILD)
	$(CC) $(TOOL_STD) $(WARN) $(INCLUDES) tests/fuzz/mkcorpus.c \
		$(CORE_SRC) $(XLFT_SRC) tools/ftd/sync_hdr.c -o $(BUILD)/mkcorpus \
		$(LIBS)
	rm -rf $(addprefix tests/fuzz/corpus/,fuzz_log fuzz_logfile fuzz_ctl \
		fuzz_frame fuzz_session fuzz_live fuzz_sync)
	$(BUILD)/mkcorpus tests/fuzz/corpus

check-fuzz: deps-check $(FUZZ_TARGETS:%=$(BUILD)/fuzz/%)
	@for t in $(FUZZ_TARGETS); do \
		sh tests/fuzz/run.sh $(BUILD)/fuzz/$$t tests/fuzz/corpus/$$t \
			$(FUZZ_SECONDS) || exit 1; \
	done

# --- benchmarks -------------------------------------------------------

# Against hvm/core as the hypervisor builds it (freestanding, no PIC).
$(BUILD)/bench/bench-core: tests/bench/bench_core.c \
        $(filter $(BUILD)/freestanding/x86_64/%,$(FREE_OBJ))
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) $(INCLUDES) -O2 -g -no-pie $^ -o $@

# The logging channel against plain TCP, as ftd links it.
BENCH_CHAN := tests/bench/bench_channel.c tests/lib/records.c
$(BUILD)/bench/bench-channel: $(BENCH_CHAN:%.c=$(BUILD)/obj/rel/%.o) \
                              $(rel_XLFT_OBJ) $(rel_CORE_OBJ)
	@mkdir -p $(@D)
	$(CC) $^ -o $@ $(LIBS)

$(BUILD)/bench/udp-rtt: tests/bench/udp_rtt.c
	@mkdir -p $(@D)
	$(CC) $(TOOL_STD) $(WARN) -O2 $< -o $@

bench: deps-bench all $(BUILD)/bench/bench-core $(BUILD)/tests/udpframes \
       $(BUILD)/bench/bench-channel $(BUILD)/bench/udp-rtt \
       $(BUILD)/tests/ftvm-dom0
	sh tests/bench/run-core.sh $(BUILD)/bench
	sh tests/bench/run-ftvm.sh $(BUILD)
	sh tests/bench/run-ftd.sh $(BUILD)

# --- install ----------------------------------------------------------

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
		$(DESTDIR)$(PREFIX)/include/xenft \
		$(DESTDIR)$(PREFIX)/share/xenft/guests \
		$(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/bin/ftvm $(BUILD)/bin/ftlog $(BUILD)/bin/ftd \
		$(BUILD)/bin/xl-ft \
		$(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 644 tools/ftd/ftd.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	install -m 644 hvm/ftvm/ftvm.1 tools/ftlog/ftlog.1 tools/xl-ft/xl-ft.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(BUILD)/lib/libftcore.a $(BUILD)/lib/libxlft.a \
		$(DESTDIR)$(PREFIX)/lib/
	install -m 644 hvm/core/*.h hvm/ftvm/ftvm_ctl.h tools/libxlft/include/*.h \
		$(DESTDIR)$(PREFIX)/include/xenft/
	install -m 644 $(GUESTS:%=$(BUILD)/guests/%.bin) \
		$(DESTDIR)$(PREFIX)/share/xenft/guests/

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
