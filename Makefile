# mod_travel. The two commands: `make run` (the demo stack) and `make test`
# (everything). Both install what is missing first.
SHELL := /bin/bash
APXS ?= apxs
B := build

CORE_SRC    := $(wildcard mod_travel/core/*.c)
DOMAIN_SRC  := $(wildcard mod_travel/account/*.c mod_travel/flight/*.c mod_travel/flight/suppliers/*.c mod_travel/hotel/*.c mod_travel/hotel/suppliers/*.c \
                          mod_travel/payment/*.c mod_travel/webhook/*.c mod_travel/watch/*.c \
                          mod_travel/gateway/*.c mod_travel/dashboard/*.c \
                          mod_travel/lifecycle/*.c)
GLUE_SRC    := $(wildcard mod_travel/httpd/glue_*.c)
MODULE_SRC  := mod_travel/httpd/mod_travel.c mod_travel/httpd/config.c mod_travel/httpd/workers.c \
               mod_travel/httpd/ratelimit.c mod_travel/httpd/metrics.c \
               mod_travel/httpd/socache.c mod_travel/httpd/search_cache.c \
               mod_travel/httpd/tenants.c mod_travel/httpd/dashboard.c \
               mod_travel/httpd/supplier_limits.c
# The sandbox: shared pieces in sandbox/, one folder per kind of API
# (air/, hotel/, pay/, stays/); sandbox/ctl/ is its migration tool, not the module.
SANDBOX_SRC := $(wildcard mod_travel/sandbox/*.c mod_travel/sandbox/air/*.c \
                          mod_travel/sandbox/hotel/*.c mod_travel/sandbox/pay/*.c \
                          mod_travel/sandbox/stays/*.c)
# The sandbox minus its httpd module file: linked into unit tests too.
SBX_LIB_SRC := $(filter-out mod_travel/sandbox/mod_travel_sandbox.c,$(SANDBOX_SRC))
CLI_SRC     := $(wildcard mod_travel/cli/*.c)
LIB_SRC     := $(CORE_SRC) $(DOMAIN_SRC)
MIGRATIONS  := $(sort $(wildcard sql/*.sql))
SBX_MIGRATIONS := $(sort $(wildcard sql/sandbox/*.sql))
SBX_CTL_SRC := $(wildcard mod_travel/sandbox/ctl/*.c)

UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(wildcard tests/unit/test_*.c))
DB_TESTS   := $(patsubst tests/db/%.c,$(B)/tests/db/%,$(wildcard tests/db/test_*.c))
E2E_TESTS  := $(patsubst tests/e2e/%.c,$(B)/tests/e2e/%,$(wildcard tests/e2e/test_*.c))

# Evaluated only when compiling, after the install step has run.
DEP_CFLAGS = $(shell apr-1-config --cppflags --includes) $(shell apu-1-config --includes) \
             -I$(shell $(APXS) -q INCLUDEDIR) -I$(shell pg_config --includedir 2>/dev/null || echo /usr/include/postgresql)
DEP_LIBS   = $(shell apr-1-config --link-ld --libs) $(shell apu-1-config --link-ld --libs)
WARN       := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS     := -std=gnu11 -O2 -g -fPIC -fvisibility=hidden -pthread $(WARN) -Imod_travel -I$(B)/gen
SANITIZE   := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LIBS       := -ljansson -lcurl -ldeflate -lcrypto -lpq -lpthread -lm

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
aobj = $(patsubst %.c,$(B)/asan/%.o,$(1))

.PHONY: all deps build run start stop test test-pgbouncer test-httpd-asan conformance unit test-unit test-stack clean bench install chaos chaos-failover docs fuzz fuzz-smoke fuzz-binaries
all: build

deps:
	@scripts/install-deps.sh

build: deps
	@$(MAKE) --no-print-directory -j2 modules bin/travelctl bin/sandboxctl

modules: $(B)/mod_travel.so $(B)/mod_travel_sandbox.so

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(DEP_CFLAGS) -MMD -MP -c $< -o $@

$(B)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC-ASAN $<"
	@$(CC) $(CFLAGS) $(SANITIZE) $(DEP_CFLAGS) -MMD -MP -c $< -o $@

$(B)/gen/migrations.c: tools/embed-sql.sh $(MIGRATIONS)
	@mkdir -p $(dir $@)
	@tools/embed-sql.sh $@ $(MIGRATIONS)

$(B)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(DEP_CFLAGS) -c $< -o $@

$(B)/gen/sandbox_migrations.c: tools/embed-sql.sh $(SBX_MIGRATIONS)
	@mkdir -p $(dir $@)
	@tools/embed-sql.sh $@ --symbol sbx_migrations $(SBX_MIGRATIONS)

# docs/openapi.yaml, compiled in: GET /v1/openapi.yaml serves the document
# the running build implements.
$(B)/gen/openapi.c: tools/embed-text.sh docs/openapi.yaml
	@mkdir -p $(dir $@)
	@tools/embed-text.sh $@ trv_openapi_yaml docs/openapi.yaml

$(B)/asan/gen/openapi.o: $(B)/gen/openapi.c
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS) $(SANITIZE) $(DEP_CFLAGS) -c $< -o $@

$(B)/libtravel.a: $(call obj,$(LIB_SRC)) $(B)/obj/gen/openapi.o
	@rm -f $@; ar rcs $@ $^

$(B)/asan/libtravel.a: $(call aobj,$(LIB_SRC)) $(B)/asan/gen/openapi.o
	@rm -f $@; ar rcs $@ $^

$(B)/libsandbox.a: $(call obj,$(SBX_LIB_SRC))
	@rm -f $@; ar rcs $@ $^

$(B)/asan/libsandbox.a: $(call aobj,$(SBX_LIB_SRC))
	@rm -f $@; ar rcs $@ $^

# The modules are replaced by rename, never rewritten in place: a running
# httpd keeps the old file mapped (`make start` then reloads it gracefully).
# apxs links the shared objects (libtool warns that the objects are not
# libtool objects: they are position independent, which is all it needs).
$(B)/mod_travel.so: $(call obj,$(LIB_SRC) $(GLUE_SRC) $(MODULE_SRC)) $(B)/obj/gen/openapi.o
	@echo "  APXS    $@"
	@$(APXS) -c -o $(B)/mod_travel.la $^ $(LIBS) >$(B)/apxs-travel.log 2>&1 || { cat $(B)/apxs-travel.log; exit 1; }
	@cp $(B)/.libs/mod_travel.so $@.tmp && mv -f $@.tmp $@

$(B)/mod_travel_sandbox.so: $(call obj,$(CORE_SRC) $(GLUE_SRC) $(SANDBOX_SRC))
	@echo "  APXS    $@"
	@$(APXS) -c -o $(B)/mod_travel_sandbox.la $^ $(LIBS) >$(B)/apxs-sandbox.log 2>&1 || { cat $(B)/apxs-sandbox.log; exit 1; }
	@cp $(B)/.libs/mod_travel_sandbox.so $@.tmp && mv -f $@.tmp $@

bin/travelctl: $(call obj,$(CLI_SRC)) $(B)/obj/gen/migrations.o $(B)/libtravel.a
	@mkdir -p bin
	@echo "  LINK    $@"
	@$(CC) -pthread -o $@ $^ $(DEP_LIBS) $(LIBS)

# The sandbox's migration tool (the dev/test stacks run it after travelctl).
SBX_CTL_OBJ = $(call obj,$(SBX_CTL_SRC)) $(B)/obj/mod_travel/cli/migrate.o \
              $(B)/obj/gen/sandbox_migrations.o
bin/sandboxctl: $(SBX_CTL_OBJ) $(B)/libtravel.a
	@mkdir -p bin
	@echo "  LINK    $@"
	@$(CC) -pthread -o $@ $^ $(DEP_LIBS) $(LIBS)

# ---- make install ----
# The modules go where apxs says (LIBEXECDIR), with their a2enmod files in
# httpd's mods-available (SYSCONFDIR); travelctl and the sandbox's data
# under PREFIX. DESTDIR is a staging root: every file lands under it and
# nothing outside it is touched, while the paths written into the
# installed files are the final ones (without DESTDIR). SANDBOX=no leaves
# the test-mode module out. An edited travel.conf is never overwritten:
# the new one is put beside it as travel.conf.dist.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share/mod_travel
SANDBOX    ?= yes
LIBEXECDIR  = $(shell $(APXS) -q LIBEXECDIR)
SYSCONFDIR  = $(shell $(APXS) -q SYSCONFDIR)

# A staged install (DESTDIR, as packaging does) does not run the package
# step: nothing outside DESTDIR changes, not even the system's packages.
install: $(if $(DESTDIR),,deps)
	@$(MAKE) --no-print-directory -j2 modules bin/travelctl bin/sandboxctl
	@DESTDIR="$(DESTDIR)" APXS="$(APXS)" LIBEXECDIR="$(LIBEXECDIR)" SYSCONFDIR="$(SYSCONFDIR)" \
	  BINDIR="$(BINDIR)" DATADIR="$(DATADIR)" SANDBOX="$(SANDBOX)" B="$(B)" scripts/install.sh

# ---- tests ----
TEST_LIBS = -lcmocka -lyaml $(DEP_LIBS) $(LIBS)

$(B)/tests/unit/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(B)/libsandbox.a $(B)/libtravel.a
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(CC) $(CFLAGS) $(DEP_CFLAGS) -o $@ $< $(B)/libsandbox.a $(B)/libtravel.a $(TEST_LIBS)

$(B)/tests/unit-asan/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(B)/asan/libsandbox.a $(B)/asan/libtravel.a
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(CC) $(CFLAGS) $(SANITIZE) $(DEP_CFLAGS) -o $@ $< $(B)/asan/libsandbox.a $(B)/asan/libtravel.a $(TEST_LIBS)

DB_TEST_OBJ = $(B)/obj/mod_travel/cli/migrate.o $(B)/obj/mod_travel/cli/migrate_product.o \
              $(B)/obj/gen/migrations.o \
              $(B)/obj/mod_travel/sandbox/ctl/sbx_migrate.o $(B)/obj/gen/sandbox_migrations.o
$(B)/tests/db/%: tests/db/%.c tests/db/dbtest.h $(B)/libtravel.a $(DB_TEST_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(CC) $(CFLAGS) $(DEP_CFLAGS) -o $@ $< $(DB_TEST_OBJ) $(B)/libtravel.a $(TEST_LIBS)

# e2e tests may also call the library directly (the HTTP client, adapters).
$(B)/tests/e2e/%: tests/e2e/%.c tests/e2e/e2e.h $(B)/obj/tests/e2e/e2e.o $(B)/libtravel.a $(wildcard tests/e2e/*.h)
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(CC) $(CFLAGS) $(DEP_CFLAGS) -o $@ $< $(B)/obj/tests/e2e/e2e.o $(B)/libtravel.a $(TEST_LIBS)

# The test runs' resolver (tests/resolver/hosts_only.c), preloaded into every
# process the test scripts start so no lookup of a made-up name reaches the
# system resolver; never linked into mod_travel.
TEST_RESOLVER := $(B)/tests/libhosts_only.so
$(TEST_RESOLVER): tests/resolver/hosts_only.c
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(CC) -std=gnu11 -O2 -g -fPIC -shared $(WARN) -o $@ $< -ldl

# The conformance kit (tests/conformance/: conformance.c runs it, flight.c
# and hotel.c hold the checks): a protocol's adapter against any server
# speaking it (docs/suppliers.md).
CONFORMANCE := $(B)/tests/conformance/conformance
CONFORMANCE_SRC := $(wildcard tests/conformance/*.c)
$(CONFORMANCE): $(CONFORMANCE_SRC) tests/conformance/kit.h $(B)/libtravel.a
	@mkdir -p $(dir $@)
	@echo "  LINK    $@"
	@$(CC) $(CFLAGS) $(DEP_CFLAGS) -o $@ $(CONFORMANCE_SRC) $(B)/libtravel.a $(TEST_LIBS)

test-binaries: $(UNIT_TESTS) $(patsubst $(B)/tests/unit/%,$(B)/tests/unit-asan/%,$(UNIT_TESTS)) $(DB_TESTS) $(E2E_TESTS) $(TEST_RESOLVER) $(CONFORMANCE)

# The unit tests alone, plain and under AddressSanitizer + UBSan.
unit: deps
	@$(MAKE) --no-print-directory -j2 test-binaries
	@tests/run-unit.sh $(B)
	@$(MAKE) --no-print-directory fuzz-smoke

# The receiver-side check of webhook signatures with the standardwebhooks
# npm package (tests/e2e/webhook-verifier); skipped when npm is missing.
WEBHOOK_VERIFIER := tests/e2e/webhook-verifier/node_modules/standardwebhooks/package.json
$(WEBHOOK_VERIFIER): tests/e2e/webhook-verifier/package.json tests/e2e/webhook-verifier/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (cd tests/e2e/webhook-verifier && npm ci --no-audit --no-fund --silent) \
	    || echo "npm ci failed: the standardwebhooks cross-check will be skipped"; \
	else echo "npm not found: the standardwebhooks cross-check will be skipped"; fi

# The receiver-side check of watcher event signatures with Stripe's own
# verifier (tests/e2e/watcher-verifier); skipped when npm is missing.
WATCHER_VERIFIER := tests/e2e/watcher-verifier/node_modules/stripe/package.json
$(WATCHER_VERIFIER): tests/e2e/watcher-verifier/package.json tests/e2e/watcher-verifier/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (cd tests/e2e/watcher-verifier && npm ci --no-audit --no-fund --silent) \
	    || echo "npm ci failed: the stripe cross-check will be skipped"; \
	else echo "npm not found: the stripe cross-check will be skipped"; fi

# Duffel's own client library and TypeScript (tests/e2e/duffel-client),
# driving the sandbox's SUPPLIER_A in test_duffel_client; skipped when npm
# is missing.
DUFFEL_CLIENT := tests/e2e/duffel-client/node_modules/@duffel/api/package.json
$(DUFFEL_CLIENT): tests/e2e/duffel-client/package.json tests/e2e/duffel-client/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (cd tests/e2e/duffel-client && npm ci --no-audit --no-fund --silent) \
	    || echo "npm ci failed: the Duffel client check will be skipped"; \
	else echo "npm not found: the Duffel client check will be skipped"; fi

# LiteAPI's own Node client driving the sandbox's liteapi protocol
# (tests/e2e/liteapi-client, tests/e2e/test_liteapi_client.c); skipped
# when npm is missing.
LITEAPI_CLIENT := tests/e2e/liteapi-client/node_modules/liteapi-node-sdk/package.json
$(LITEAPI_CLIENT): tests/e2e/liteapi-client/package.json tests/e2e/liteapi-client/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (cd tests/e2e/liteapi-client && npm ci --no-audit --no-fund --silent) \
	    || echo "npm ci failed: the liteapi-node-sdk flow will be skipped"; \
	else echo "npm not found: the liteapi-node-sdk flow will be skipped"; fi

# The OpenAPI checker (tests/openapi/check.mjs: validators from npm);
# skipped when npm is missing.
OPENAPI_CHECKER := tests/openapi/node_modules/@seriousme/openapi-schema-validator/package.json
$(OPENAPI_CHECKER): tests/openapi/package.json tests/openapi/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (cd tests/openapi && npm ci --no-audit --no-fund --silent) \
	    || echo "npm ci failed: the OpenAPI checks will be skipped"; \
	else echo "npm not found: the OpenAPI checks will be skipped"; fi

# The dashboard's browser test drives Debian's chromium with puppeteer-core
# (tests/e2e/dashboard-browser); without the package that test fails (it is
# skipped only when chromium is missing).
DASHBOARD_BROWSER := tests/e2e/dashboard-browser/node_modules/puppeteer-core/package.json
$(DASHBOARD_BROWSER): tests/e2e/dashboard-browser/package.json tests/e2e/dashboard-browser/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (cd tests/e2e/dashboard-browser && npm ci --no-audit --no-fund --silent) \
	    || echo "npm ci failed: the dashboard's browser test will fail"; \
	else echo "npm not found: the dashboard's browser test will fail"; fi

# The npm packages the stack tests drive (each test skips with a notice
# where npm is missing): one list for every target that runs them.
STACK_NODE_TOOLS = $(WEBHOOK_VERIFIER) $(WATCHER_VERIFIER) $(OPENAPI_CHECKER) \
                   $(DASHBOARD_BROWSER) $(DUFFEL_CLIENT) $(LITEAPI_CLIENT)

# Everything: unit, the OpenAPI file, then db and e2e against a throwaway
# PostgreSQL cluster and httpd on free ports (so it passes while `make run`
# is up); the e2e tests' /v1 exchanges are then checked against the spec.
test: deps
	@$(MAKE) --no-print-directory -j2 modules bin/travelctl bin/sandboxctl test-binaries
	@$(MAKE) --no-print-directory $(STACK_NODE_TOOLS)
	@tests/run-unit.sh $(B)
	@$(MAKE) --no-print-directory fuzz-smoke
	@tests/openapi/check.sh
	@tests/run-stack-tests.sh $(B)

# `make conformance PROTOCOL=duffel SUPPLIER_URL=https://api.duffel.com
# SUPPLIER_KEY_FILE=...`: the adapter's contract checks against any server
# speaking the protocol (docs/suppliers.md, "Conformance kit"). Without
# SUPPLIER_URL, against a throwaway sandbox started as the test stack
# starts it; without PROTOCOL, every protocol.
conformance: deps
	@$(MAKE) --no-print-directory -j2 modules bin/travelctl bin/sandboxctl $(CONFORMANCE)
	@PROTOCOL="$(PROTOCOL)" SUPPLIER_URL="$(SUPPLIER_URL)" scripts/conformance.sh $(B)

# The db and e2e tests again with every mod_travel instance of the stack
# behind a PgBouncer in transaction pooling (TravelDBMode pooled; the
# Debian package pgbouncer): docs/operations.md, "Behind PgBouncer".
test-pgbouncer: deps
	@$(MAKE) --no-print-directory -j2 modules bin/travelctl bin/sandboxctl test-binaries
	@$(MAKE) --no-print-directory $(STACK_NODE_TOOLS)
	@TRAVEL_TEST_PGBOUNCER=1 tests/run-stack-tests.sh $(B)

# The db and e2e tests again with both httpd modules built with
# AddressSanitizer into $(HA) and its runtime preloaded into httpd: a heap
# error in a child is then a report naming the line, not a rare "malloc():
# corrupted" abort (docs/operations.md, "Memory errors in httpd"). -O1: gcc's
# maybe-uninitialized is noisy there, so that one warning is not an error.
HA := $(B)/httpd-asan
test-httpd-asan: deps
	@$(MAKE) --no-print-directory -j2 bin/travelctl bin/sandboxctl test-binaries
	@$(MAKE) --no-print-directory $(STACK_NODE_TOOLS)
	@$(MAKE) --no-print-directory -j2 B=$(HA) LIBS="$(LIBS) -fsanitize=address" \
	  CFLAGS="$(subst -O2,-O1,$(subst -I$(B)/gen,-I$(HA)/gen,$(CFLAGS))) -Wno-maybe-uninitialized -fsanitize=address -fno-omit-frame-pointer" \
	  $(HA)/mod_travel.so $(HA)/mod_travel_sandbox.so
	@TRAVEL_HTTPD_ASAN=$(abspath $(HA)) tests/run-stack-tests.sh $(B)

# ---- fuzzing (clang + libFuzzer; tests/fuzz, docs/operations.md) ----
# The library is compiled a second time with clang, instrumented for
# libFuzzer and under AddressSanitizer + UBSan, into $(FZ); each
# tests/fuzz/fuzz_<name>.c links against that copy. Every target is linked
# with the DNS hook (tests/fuzz/no_dns.c): no fuzzer input reaches the
# system resolver.
FUZZ_CC     ?= clang
FZ          := $(B)/fuzz
FUZZ_CFLAGS := -std=gnu11 -O1 -g -fPIC -pthread $(WARN) -Imod_travel -I$(B)/gen \
               -fno-omit-frame-pointer -fsanitize=address,undefined \
               -fno-sanitize-recover=undefined
FUZZ_NAMES  := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS   := $(patsubst %,$(FZ)/fuzz_%,$(FUZZ_NAMES))
fobj = $(patsubst %.c,$(FZ)/obj/%.o,$(1))
FUZZ_HOOK   := $(FZ)/obj/tests/fuzz/no_dns.o $(FZ)/obj/tests/fuzz/fake_db.o
# tests/fuzz/fake_db.c: a database without libpq for the handlers' reads.
FUZZ_WRAP   := -Wl,--wrap=apr_sockaddr_info_get -Wl,--wrap=trv_db_open \
               -Wl,--wrap=trv_db_select -Wl,--wrap=trv_db_exec -Wl,--wrap=trv_db_begin
.SECONDARY: $(FUZZ_HOOK)

$(FZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC-FUZZ $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEP_CFLAGS) -MMD -MP -c $< -o $@

# The generated sources (the OpenAPI text the module serves) are compiled
# by the same rule from build/gen/.
$(FZ)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	@echo "  CC-FUZZ $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEP_CFLAGS) -c $< -o $@

$(FZ)/libtravel.a: $(call fobj,$(LIB_SRC)) $(FZ)/obj/gen/openapi.o
	@rm -f $@; ar rcs $@ $^

$(FZ)/libsandbox.a: $(call fobj,$(SBX_LIB_SRC))
	@rm -f $@; ar rcs $@ $^

$(FZ)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_HOOK) $(FZ)/libsandbox.a $(FZ)/libtravel.a
	@echo "  LINK    $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(DEP_CFLAGS) -MMD -MP -MF $@.d -o $@ $< \
	  $(FUZZ_HOOK) $(FZ)/libsandbox.a $(FZ)/libtravel.a \
	  $(FUZZ_WRAP) $(DEP_LIBS) $(LIBS)

fuzz-binaries: $(FUZZ_BINS)

# `make fuzz`: every target for FUZZ_SECONDS (default 300) each, or
# FUZZ_RUNS executions each; FUZZ_TARGETS="money url" picks some. Prints
# per target the executions and crashes; a crash's input is kept under
# build/fuzz/crashes/<target>/. Not part of `make test`, which runs each
# target for a few seconds (fuzz-smoke).
fuzz: deps
	@tests/fuzz/can-build.sh $(FUZZ_CC) || { echo "fuzz: $(FUZZ_CC) with libFuzzer is not usable (scripts/install-deps.sh installs clang and libclang-rt-14-dev)" >&2; exit 1; }
	@$(MAKE) --no-print-directory -j2 fuzz-binaries
	@tests/fuzz/run.sh $(B) full $(FUZZ_TARGETS)

fuzz-smoke:
	@if tests/fuzz/can-build.sh $(FUZZ_CC); then \
	  $(MAKE) --no-print-directory -j2 fuzz-binaries && tests/fuzz/run.sh $(B) smoke; \
	else echo "fuzz: SKIPPED: $(FUZZ_CC) with libFuzzer is not usable here (scripts/install-deps.sh installs clang and libclang-rt-14-dev)"; fi

# The Node gateway tests/bench/search.sh compares the search path against
# (tests/bench/search-peer, pg from npm); without npm that comparison is
# skipped, said so by the script.
SEARCH_PEER := tests/bench/search-peer/node_modules/pg/package.json
$(SEARCH_PEER): tests/bench/search-peer/package.json tests/bench/search-peer/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  (cd tests/bench/search-peer && npm ci --no-audit --no-fund --silent) \
	    || echo "npm ci failed: the search bench's Node comparison will be skipped"; \
	else echo "npm not found: the search bench's Node comparison will be skipped"; fi

# Benchmarks on throwaway stacks: API throughput against a Node gateway doing
# the same work (tests/bench/api.sh BOOKINGS SECONDS), the search path beside
# its Node peer (tests/bench/search.sh SECONDS), and webhook deliveries per
# second to the local inbox (tests/bench/webhooks.sh EVENTS INSTANCES).
bench: build
	@scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory $(SEARCH_PEER)
	@tests/bench/run.sh

# The chaos soak (tests/chaos/soak.sh [BOOKINGS] [EVENTS], default 1000 and
# 1000): bookings and webhook events on a throwaway stack while httpd
# children are killed, httpd restarts gracefully and PostgreSQL restarts,
# then the invariants (nothing lost, nothing charged twice, every booking
# truthful). Minutes long: not part of `make test`. Then the db and e2e
# tests behind PgBouncer (test-pgbouncer: the whole suite a second time,
# too long for `make test`).
chaos: build
	@scripts/install-deps.sh chaos
	@$(MAKE) --no-print-directory $(TEST_RESOLVER)
	@tests/chaos/soak.sh
	@$(MAKE) --no-print-directory test-pgbouncer

# The failover soak (CHAOS_MODE=failover tests/chaos/soak.sh 200 400): a
# streaming standby beside the cluster, the instances on a multi-host
# conninfo, the primary stopped mid-soak and the standby promoted 5 s later;
# the same invariants, the seconds of 503s, and no 500 (docs/operations.md).
chaos-failover: build
	@scripts/install-deps.sh chaos
	@$(MAKE) --no-print-directory $(TEST_RESOLVER)
	@CHAOS_MODE=failover tests/chaos/soak.sh 200 400

# The API reference as one offline HTML page, from docs/openapi.yaml
# (Redocly's CLI from npm, tools/reference; docs/operations.md).
docs: $(B)/docs/api.html

$(B)/docs/api.html: docs/openapi.yaml tools/reference/package.json tools/reference/package-lock.json \
                    tools/reference/check-offline.mjs tools/reference/samples.mjs \
                    tools/reference/add-samples.mjs scripts/build-docs.sh
	@scripts/build-docs.sh $@

# ---- the development stack (var/) ----
run: build
	@scripts/stack.sh run var

start: build
	@scripts/stack.sh start var

stop:
	@scripts/stack.sh stop var

clean:
	rm -rf $(B) bin

-include $(shell find $(B) -name '*.d' 2>/dev/null)
