# staffer - a KEDA external scaler for GPU inference fleets.
#
#   make            build build/staffer
#   make test       install what is missing, build, run every test
#   make demo       install what is missing, build, run the live demo
#   make bench      the decision-quality benchmark (bench/)
#   make bench-service  the service benchmark: load, latency, memory
#                   (bench/service.py + bench/load/; BENCH_QUICK=1: short)
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
LIB_SRC  = src/model.c src/erlang.c src/smooth.c src/meta.c src/config.c \
           src/prom.c src/show.c src/csv.c src/log.c src/secret.c src/slurp.c src/fprint.c src/stab.c src/sheap.c src/mcache.c src/certs.c src/http.c src/awscred.c src/stats.c src/procstat.c src/httpd.c src/fetch.c src/scaler.c src/pb.c \
           src/rpc.c src/report.c src/calc.c src/explain.c src/serve.c src/forecast.c src/decide.c \
           src/simrng.c src/simheap.c src/simroute.c src/perf.c src/trace.c \
           src/simprom.c src/hpa.c src/keda.c src/demand.c src/policy.c \
           src/sim.c src/simplot.c src/simulate.c src/tunesearch.c src/tunehist.c src/tune.c \
           src/sched.c src/tz.c src/ydoc.c src/trigsel.c src/lint.c src/peak.c src/promql.c \
           src/feedback.c \
           src/version.c src/health.c src/crd.c
MAIN_SRC = src/main.c

CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) $(PKG_CFLAGS) -Isrc -I$(GEN) $(CFLAGS)

ifeq ($(V),1)
Q =
else
Q = @
endif

.PHONY: all deps test unit integration demo bench bench-service clean lint valgrind py FORCE
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

# ---- the version (scripts/version.sh: git describe, else the chart's
# appVersion + "-dev"; `make STAFFER_VERSION=1.2.3 STAFFER_REVISION=abc`
# sets it where there is no git, as the Dockerfile does).  The header is
# rewritten only when the version changes, so only version.o rebuilds.
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
	@echo "  CC       $<"
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

$(B)/obj/%.pb-c.o: $(GEN)/%.pb-c.c $(GEN_HDR) | $(B)/obj
	@echo "  CC       $<"
	$(Q)$(CC) $(CSTD) $(OPT) $(PKG_CFLAGS) -I$(GEN) -c -o $@ $<

$(B)/libstaffer.a: $(OBJ)
	@echo "  AR       $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/staffer: $(B)/obj/main.o $(B)/libstaffer.a
	@echo "  LINK     $@"
	$(Q)$(CC) $(OPT) -o $@ $^ $(LIBS)

$(B)/obj:
	@mkdir -p $@

# ---- sanitizer build (unit tests and a sanitized server) -------------------
SOBJ     = $(LIB_SRC:src/%.c=$(B)/asan/%.o) $(GEN_SRC:$(GEN)/%.c=$(B)/asan/%.o) \
           $(B)/asan/crd-gen.o

$(B)/asan/%.o: src/%.c $(GEN_HDR) | $(B)/asan
	@echo "  CC-SAN   $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -MMD -MP -c -o $@ $<

$(B)/asan/%.pb-c.o: $(GEN)/%.pb-c.c $(GEN_HDR) | $(B)/asan
	$(Q)$(CC) $(CSTD) $(OPT) $(SAN) $(PKG_CFLAGS) -I$(GEN) -c -o $@ $<

$(B)/asan/libstaffer.a: $(SOBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/staffer-asan: $(B)/asan/main.o $(B)/asan/libstaffer.a
	@echo "  LINK     $@"
	$(Q)$(CC) $(OPT) $(SAN) -o $@ $^ $(LIBS)

$(B)/asan:
	@mkdir -p $@

# ---- unit tests (cmocka), built with ASan/UBSan ---------------------------
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

$(B)/tests/%: tests/unit/%.c $(B)/asan/libstaffer.a
	@mkdir -p $(B)/tests
	@echo "  CC-TEST  $<"
	$(Q)$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $< $(B)/asan/libstaffer.a $(LIBS) -lcmocka

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

$(B)/staffer-load: $(LOAD_OBJ) $(B)/libstaffer.a
	@echo "  LINK     $@"
	$(Q)$(CC) $(OPT) -o $@ $^ $(LIBS)

$(B)/staffer-load-asan: $(LOAD_SOBJ) $(B)/asan/libstaffer.a
	@echo "  LINK     $@"
	$(Q)$(CC) $(OPT) $(SAN) -o $@ $^ $(LIBS)

$(B)/load $(B)/load-asan:
	@mkdir -p $@

# ---- commands --------------------------------------------------------------
deps:
	@scripts/deps.sh

unit: $(UNIT_BIN)
	@tests/run-unit.sh $(UNIT_BIN)

integration: $(B)/staffer $(B)/staffer-asan py
	@tests/integration/run.sh

test: deps
	@$(MAKE) --no-print-directory all py $(B)/staffer-asan $(UNIT_BIN) \
		$(B)/staffer-load-asan
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

valgrind: $(B)/staffer
	@tests/integration/valgrind.sh

# The example ScaledObjects, checked the way a user checks theirs.
lint: $(B)/staffer
	@$(B)/staffer lint scaledobjects/*.yaml

clean:
	rm -rf $(B)

-include $(wildcard $(B)/obj/*.d $(B)/asan/*.d $(B)/load/*.d \
	$(B)/load-asan/*.d)
