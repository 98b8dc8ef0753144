# staffer - a KEDA external scaler for GPU inference fleets.
#
#   make            build build/staffer
#   make test       install what is missing, build, run every test
#   make demo       install what is missing, build, run the live demo
#   make bench      the decision-quality benchmark (bench/)
#   make bench-service  the service benchmark: load, latency, memory, and
#                   what staffer costs a real Prometheus
#                   (bench/service.py + bench/load/; BENCH_QUICK=1: short)
#   make image      the OCI image of build/staffer, without a container
#                   engine (scripts/image.sh: umoci, skopeo) into dist/
#   make chart-package  the chart as `helm package` lays it out, and
#                   index.yaml, into dist/ (scripts/chart-package.py)
#   make release    dist/ from scratch: the image built as VERSION, the
#                   chart, SHA256SUMS and an SBOM (docs/install.md)
#   make V=1        show full commands

CC      ?= cc
CSTD     = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN     = -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wno-unused-parameter
OPT     ?= -O2 -g
PKGS     = grpc libprotobuf-c libcurl libcjson yaml-0.1 libmicrohttpd libcrypto
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS     = -lgrpc -lgpr -lprotobuf-c -lcurl -lcjson -lyaml -lmicrohttpd -lcrypto -lpthread -lm
SAN      = -fsanitize=address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=undefined

B        = build
GEN      = $(B)/gen
PROTOS   = externalscaler health
GEN_SRC  = $(PROTOS:%=$(GEN)/%.pb-c.c)
GEN_HDR  = $(PROTOS:%=$(GEN)/%.pb-c.h)

# The library: everything but main.c, so unit tests link the same code.
# By layer, each using only the ones above it (README.md's layout table):
# the pure decision model: no I/O, no logging, no global state; its
# public headers are include/staffer/, and it is build/libstaffer-model.a
MODEL_SRC = src/model.c src/erlang.c src/smooth.c src/forecast.c src/peak.c \
           src/safety.c src/pool.c \
           src/feedback.c
# metadata and one decision from it, and the text helpers every layer shares
CORE_SRC = src/arr.c src/num.c src/kname.c src/near.c src/mono.c src/meta.c src/decide.c src/sched.c src/tz.c src/promql.c \
           src/show.c src/csv.c src/slurp.c src/utf8.c src/log.c src/version.c \
           src/jsonnul.c
# the service: backends, the decision per trigger, KEDA's gRPC, /metrics
SVC_SRC  = src/config.c src/prom.c src/secret.c src/fprint.c src/stab.c \
           src/sheap.c src/mcache.c src/series.c src/memtrim.c \
           src/certs.c src/http.c src/awscred.c src/stats.c src/procstat.c \
           src/budget.c src/memlimit.c \
           src/httpd.c src/fetch.c src/scaler.c src/pb.c src/rpc.c \
           src/serve.c src/health.c src/declog.c
# the tools: calc, explain, lint and what they read (YAML, the CRD, history)
TOOL_SRC = src/opt.c src/report.c src/calc.c src/explain.c src/ydoc.c \
           src/ycheck.c src/gostd.c src/trigsel.c src/lint.c src/lintpool.c \
           src/crd.c src/tunehist.c src/ask.c
# the closed-loop simulator (src/sim/) and the subcommands that drive it
SIM_SRC  = src/sim/simrng.c src/sim/simheap.c src/sim/simroute.c \
           src/sim/clients.c src/sim/simsort.c \
           src/sim/perf.c src/sim/trace.c src/sim/simprom.c src/sim/hpa.c \
           src/sim/keda.c src/sim/demand.c src/sim/policy.c src/sim/sim.c \
           src/sim/simplot.c src/sim/simulate.c src/sim/tunesearch.c \
           src/sim/tune.c src/sim/split.c src/sim/splitpol.c src/sim/simcold.c \
           src/sim/simpool.c src/sim/simtraffic.c src/sim/splitcmd.c
LIB_SRC  = $(CORE_SRC) $(SVC_SRC) $(TOOL_SRC) $(SIM_SRC)
MAIN_SRC = src/main.c

# The model's own headers are found as the rest of src/ finds its own
# ("model.h"); a program outside uses -Iinclude and <staffer/model.h>.
INC      = -Iinclude/staffer -Isrc -I$(GEN)
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) $(PKG_CFLAGS) $(INC) $(CFLAGS)

ifeq ($(V),1)
Q =
else
Q = @
endif

.PHONY: all deps test unit integration demo bench bench-service bench-split clean lint valgrind fuzz py FORCE \
	image chart-package release
# Keep the generated protobuf-c sources: they are inputs, not leftovers.
.SECONDARY:
all: $(B)/staffer

# Python message classes for the test and demo clients (python3-grpcio peers).
PY_GEN   = $(PROTOS:%=$(B)/py/%_pb2.py)
py: $(PY_GEN)
$(B)/py/%_pb2.py: proto/%.proto
	@mkdir -p $(B)/py
	@echo "  PROTOC   $<"
	$(Q)protoc --proto_path=proto --python_out=$(B)/py $<

# ---- generated protobuf-c code -------------------------------------------
$(GEN)/%.pb-c.c $(GEN)/%.pb-c.h: proto/%.proto
	@mkdir -p $(GEN)
	@echo "  PROTOC-C $<"
	$(Q)protoc-c --proto_path=proto --c_out=$(GEN) $<

# ---- the version (scripts/version.sh: the VERSION file, as is at a commit
# tagged vVERSION, else VERSION-dev+gSHORT; `make STAFFER_VERSION=1.2.3
# STAFFER_REVISION=abc` sets it, as `make release` and the Dockerfile do).
# The header is rewritten only when the version changes, so only version.o
# rebuilds.
export STAFFER_VERSION STAFFER_REVISION
$(GEN)/version-gen.h: FORCE
	@mkdir -p $(GEN)
	$(Q)scripts/version.sh --header $@
FORCE:
$(B)/obj/version.o $(B)/asan/version.o: $(GEN)/version-gen.h

# ---- KEDA's ScaledObject CRD, embedded for `staffer lint` (src/crd.h)
CRD_YAML = third_party/keda/keda.sh_scaledobjects.yaml
$(GEN)/crd-gen.c: $(CRD_YAML) scripts/embed.sh
	@mkdir -p $(GEN)
	@echo "  EMBED    $<"
	$(Q)scripts/embed.sh crd_scaledobject $< >$@.tmp && mv $@.tmp $@
$(B)/obj/crd-gen.o: $(GEN)/crd-gen.c src/crd.h | $(B)/obj
	@echo "  CC       $<"
	$(Q)$(CC) $(CFLAGS_ALL) -c -o $@ $<
$(B)/asan/crd-gen.o: $(GEN)/crd-gen.c src/crd.h | $(B)/asan
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -c -o $@ $<

# ---- normal build ----------------------------------------------------------
OBJ      = $(LIB_SRC:src/%.c=$(B)/obj/%.o) $(GEN_SRC:$(GEN)/%.c=$(B)/obj/%.o) \
           $(B)/obj/crd-gen.o

$(B)/obj/%.o: src/%.c $(GEN_HDR) | $(B)/obj
	@mkdir -p $(@D)
	@echo "  CC       $<"
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(B)/obj/%.pb-c.o: $(GEN)/%.pb-c.c $(GEN_HDR) | $(B)/obj
	@echo "  CC       $<"
	$(Q)$(CC) $(CSTD) $(OPT) $(PKG_CFLAGS) -I$(GEN) -c -o $@ $<

# The model sees only its public headers and no package: the boundary
# is the compiler's to check, not a convention.
MODEL_OBJ  = $(MODEL_SRC:src/%.c=$(B)/obj/%.o)
MODEL_SOBJ = $(MODEL_SRC:src/%.c=$(B)/asan/%.o)
$(MODEL_OBJ) $(MODEL_SOBJ): PKG_CFLAGS =
$(MODEL_OBJ) $(MODEL_SOBJ): INC = -Iinclude/staffer

$(B)/libstaffer-model.a: $(MODEL_OBJ)
	@echo "  AR       $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/libstaffer.a: $(OBJ)
	@echo "  AR       $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/staffer: $(B)/obj/main.o $(B)/libstaffer.a $(B)/libstaffer-model.a
	@echo "  LINK     $@"
	$(Q)$(CC) $(OPT) -o $@ $^ $(LIBS)

$(B)/obj:
	@mkdir -p $@

# ---- sanitizer build (unit tests and a sanitized server) -------------------
SOBJ     = $(LIB_SRC:src/%.c=$(B)/asan/%.o) $(GEN_SRC:$(GEN)/%.c=$(B)/asan/%.o) \
           $(B)/asan/crd-gen.o

$(B)/asan/%.o: src/%.c $(GEN_HDR) | $(B)/asan
	@mkdir -p $(@D)
	@echo "  CC-SAN   $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -MMD -MP -c -o $@ $<

$(B)/asan/%.pb-c.o: $(GEN)/%.pb-c.c $(GEN_HDR) | $(B)/asan
	$(Q)$(CC) $(CSTD) $(OPT) $(SAN) $(PKG_CFLAGS) -I$(GEN) -c -o $@ $<

$(B)/asan/libstaffer-model.a: $(MODEL_SOBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/asan/libstaffer.a: $(SOBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/staffer-asan: $(B)/asan/main.o $(B)/asan/libstaffer.a \
		$(B)/asan/libstaffer-model.a
	@echo "  LINK     $@"
	$(Q)$(CC) $(OPT) $(SAN) -o $@ $^ $(LIBS)

$(B)/asan:
	@mkdir -p $@

# ---- unit tests (cmocka), built with ASan/UBSan ---------------------------
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

$(B)/tests/%: tests/unit/%.c tests/unit/check.h $(B)/asan/libstaffer.a \
		$(B)/asan/libstaffer-model.a
	@mkdir -p $(B)/tests
	@echo "  CC-TEST  $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $< $(B)/asan/libstaffer.a \
		$(B)/asan/libstaffer-model.a $(LIBS) -lcmocka

# The fuzz suite: its harness and targets by area in tests/unit/fuzz/.
FUZZ_SRC = $(wildcard tests/unit/fuzz/*.c)
$(B)/tests/test_fuzz: tests/unit/test_fuzz.c $(FUZZ_SRC) tests/unit/fuzz/fuzz.h \
		$(B)/asan/libstaffer.a $(B)/asan/libstaffer-model.a
	@mkdir -p $(B)/tests
	@echo "  CC-TEST  $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $< $(FUZZ_SRC) \
		$(B)/asan/libstaffer.a $(B)/asan/libstaffer-model.a $(LIBS) \
		-lcmocka

# The integration tests' check of range answers kept and extended against
# full fetches on a real Prometheus (tests/integration/rangecheck.c,
# test_range.py), sanitized like the unit tests.
$(B)/tests/rangecheck: tests/integration/rangecheck.c $(B)/asan/libstaffer.a \
		$(B)/asan/libstaffer-model.a
	@mkdir -p $(B)/tests
	@echo "  CC-TEST  $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $< $(B)/asan/libstaffer.a \
		$(B)/asan/libstaffer-model.a $(LIBS)

# ... and of a derived range when the backend misbehaves (derivecheck.c,
# against scripted_prom.py).
$(B)/tests/derivecheck: tests/integration/derivecheck.c \
		$(B)/asan/libstaffer.a $(B)/asan/libstaffer-model.a
	@mkdir -p $(B)/tests
	@echo "  CC-TEST  $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $< $(B)/asan/libstaffer.a \
		$(B)/asan/libstaffer-model.a $(LIBS)

# ---- the model as a library (include/staffer/, docs/library.md): one
# program that sees only include/ and links only the model and libm.
$(B)/example/model: tests/example/model.c $(B)/libstaffer-model.a \
		$(wildcard include/staffer/*.h)
	@mkdir -p $(B)/example
	@echo "  CC       $<"
	$(Q)$(CC) $(CSTD) $(WARN) $(OPT) -Iinclude -o $@ $< \
		$(B)/libstaffer-model.a -lm

# ---- the service benchmark's load client (bench/load/, docs/service-bench.md):
# gRPC core's C API, linked like the server against the same library; the
# sanitizer build is what `make test` smoke-tests.
LOAD_SRC = $(wildcard bench/load/*.c)
LOAD_OBJ = $(LOAD_SRC:bench/load/%.c=$(B)/load/%.o)
LOAD_SOBJ = $(LOAD_SRC:bench/load/%.c=$(B)/load-asan/%.o)

$(B)/load/%.o: bench/load/%.c $(GEN_HDR) | $(B)/load
	@echo "  CC       $<"
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(B)/load-asan/%.o: bench/load/%.c $(GEN_HDR) | $(B)/load-asan
	@echo "  CC-SAN   $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -MMD -MP -c -o $@ $<

$(B)/staffer-load: $(LOAD_OBJ) $(B)/libstaffer.a $(B)/libstaffer-model.a
	@echo "  LINK     $@"
	$(Q)$(CC) $(OPT) -o $@ $^ $(LIBS)

$(B)/staffer-load-asan: $(LOAD_SOBJ) $(B)/asan/libstaffer.a \
		$(B)/asan/libstaffer-model.a
	@echo "  LINK     $@"
	$(Q)$(CC) $(OPT) $(SAN) -o $@ $^ $(LIBS)

$(B)/load $(B)/load-asan:
	@mkdir -p $@

# ---- commands --------------------------------------------------------------
deps:
	@scripts/deps.sh

unit: $(UNIT_BIN)
	@tests/run-unit.sh $(UNIT_BIN)

integration: $(B)/staffer $(B)/staffer-asan $(B)/staffer-load \
		$(B)/tests/rangecheck $(B)/tests/derivecheck py
	@tests/integration/run.sh

test: deps
	@$(MAKE) --no-print-directory all py $(B)/staffer-asan $(UNIT_BIN) \
		$(B)/staffer-load $(B)/staffer-load-asan $(B)/example/model \
		$(B)/tests/rangecheck $(B)/tests/derivecheck
	@tests/run-all.sh

demo: deps
	@$(MAKE) --no-print-directory all py
	@demo/run.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@bench/run.sh

bench-service: deps
	@$(MAKE) --no-print-directory all $(B)/staffer-load
	@/usr/bin/python3 bench/service.py

bench-split: deps
	@$(MAKE) --no-print-directory all
	@python3 bench/split.py

# ---- the release (docs/install.md): image, chart package, dist/ -----------
# `make image` packs build/staffer as it is (a development build says
# VERSION-dev+g...); `make release` builds the binary as VERSION in its own
# build directory, so build/ keeps its objects, and writes dist/ afresh.
# -ffile-prefix-map keeps the clone's path out of the binary (its build ID
# hashes the debug info): the same commit gives the same image anywhere.
DIST     = dist
REL      = $(B)/release

image: deps
	@$(MAKE) --no-print-directory $(B)/staffer
	@scripts/image.sh $(B)/staffer $(B)/image $(DIST)

chart-package: deps
	@/usr/bin/python3 scripts/chart-package.py $(DIST)

release: deps
	@scripts/version.sh --check
	@test -n "$(DIST)" && rm -rf "$(DIST)"
	@set -- $$(scripts/version.sh --release) && \
		$(MAKE) --no-print-directory B=$(REL) STAFFER_VERSION="$$1" \
		STAFFER_REVISION="$$2" OPT="$(OPT) -ffile-prefix-map=$(CURDIR)=." \
		$(REL)/staffer
	@scripts/image.sh $(REL)/staffer $(REL)/image $(DIST)
	@/usr/bin/python3 scripts/chart-package.py $(DIST)
	@cd $(DIST) && sha256sum $$(ls | grep -vx SHA256SUMS) >SHA256SUMS
	@echo "release: $(DIST)/"; ls -l $(DIST)

valgrind: $(B)/staffer
	@tests/integration/valgrind.sh

# A long run of the fuzz suite on a seed no run has used (tests/README.md):
# `make test` runs few iterations on the fixed seed; run this nightly.
# FUZZ_SEED, FUZZ_ITERS and FUZZ_ONLY pass through.
fuzz: $(B)/tests/test_fuzz
	@seed=$${FUZZ_SEED:-0x$$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')}; \
		echo "fuzz: FUZZ_SEED=$$seed FUZZ_ITERS=$${FUZZ_ITERS:-200000}"; \
		FUZZ_SEED=$$seed FUZZ_ITERS=$${FUZZ_ITERS:-200000} \
		$(B)/tests/test_fuzz

# The example ScaledObjects, checked the way a user checks theirs.
lint: $(B)/staffer
	@$(B)/staffer lint scaledobjects/*.yaml

clean:
	rm -rf $(B)

-include $(wildcard $(B)/obj/*.d $(B)/asan/*.d $(B)/obj/*/*.d \
	$(B)/asan/*/*.d $(B)/load/*.d \
	$(B)/load-asan/*.d)
