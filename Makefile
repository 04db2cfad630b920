# The lab's user interface: every command a user types is a target here.
# Set-up is part of each target: a JDK (21 or later) and the pinned Maven are found or
# installed into the git-ignored .tools/ folder, so a fresh clone needs nothing by hand.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# The servers are declared once, in servers.json; this reads it with the standard library only.
CATALOGUE := PYTHONPATH=analysis python3 -m labanalysis.folder.catalogue
# Some of the catalogue's servers, comma-separated, for audit-pinning, clients and bench-vps; empty: all of them.
SERVERS ?=
# The JDKs `make audit-pinning` and `make floor` cover; `make bench` runs once per JDK only when JDKS is given.
JDKS ?= 21,25
comma := ,
BENCH_JDKS := $(strip $(if $(filter command line environment,$(origin JDKS)),$(subst $(comma), ,$(JDKS)),))
SERVER ?=
PROFILE ?= local
ONLY ?=
# Empty: the profile decides (local calibrates the highest rate every server sustains).
RATE ?=
# The shortest virtual-thread pinning JFR records in a bench, in ms.
PIN_THRESHOLD_MS ?= 20
# The run folder `make report` renders.
RUN ?= results/latest
# Other run folders whose figures the report pools with RUN's as repeats.
ALSO ?=
PORT ?= 8080
DOWNSTREAM_URL ?= http://127.0.0.1:8090
# Empty: the newest JDK of 21 or later on the machine. JDK=21 or JDK=25: exactly that one.
JDK ?=
# Every server's garbage collector in make bench and make floor: empty or zgc, the lab's; g1, the JDK's default (lab.support.Collector).
# make bench GCS=zgc,g1 runs once per collector, as JDKS runs once per JDK, then sets the first against each other.
GC ?=
GCS ?=
BENCH_GCS := $(strip $(subst $(comma), ,$(GCS)))

# Resolved afresh by each recipe; the scripts print a path and install only when needed.
JAVA_HOME_OF := JAVA_HOME="$$(setup/jdk.sh $(JDK))"
MVN := env $(JAVA_HOME_OF) "$$(setup/maven.sh)" --batch-mode --no-transfer-progress

# make bench along an axis, $(1) (JDK or GC) taking each of $(2) in turn: one run each, with its own report (and floor), then
# the first against each other one. A run in which a server failed is compared too; one refused (2 or 3) stops here.
define BENCH_EACH
runs=(); for value in $(2); do status=0; $(MAKE) --no-print-directory bench $(1)=$$value $(1)S= || status=$$?; \
  [ $$status -le 1 ] || exit $$status; runs+=("results/$$(readlink results/latest)"); done; \
for other in "$${runs[@]:1}"; do $(MAKE) --no-print-directory compare A="$${runs[0]}" B="$$other"; done
endef

# The runnable jars are rebuilt only when a main source, a pom or a declaration they carry (servers.json, run-folder.json)
# changed, so `make stub` and `make serve` in two terminals do not both run Maven; flock (where there is one) serialises
# the builds that do start together.
MAIN_SOURCES := $(shell find . -path ./.tools -prune -o -path '*/src/main/*' -type f -print) $(wildcard pom.xml */pom.xml servers.json run-folder.json)
JARS_STAMP := .tools/jars.stamp
LOCKED := $(if $(shell command -v flock),flock .tools/build.lock,)

.PHONY: help servers build test smoke bench curve bench-vps rehearse-vps report compare headline advise jetty-defect audit-pinning clients io-bench floor sweep autobahn-perf experiment-report serve stub format clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

servers: ## list the servers of servers.json, one a line: name engine model
	@$(CATALOGUE)

build: $(JARS_STAMP) ## compile and package the servers, the stub and the lab's programs into runnable jars (*/target/*.jar)

$(JARS_STAMP): $(MAIN_SOURCES)
	@mkdir -p .tools
	$(LOCKED) $(MVN) --quiet package -DskipTests
	@touch $@

test: ## run every test: unit tests, the suites that start the real servers, a smoke bench run, the analysis tests, and bench-vps across a rehearsal network
	"$$(setup/python.sh)" -m ruff format --check analysis infra/tests loadtests/probes && "$$(setup/python.sh)" -m ruff check analysis infra/tests loadtests/probes
	LAB_K6="$$(setup/k6.sh)" LAB_VEGETA="$$(setup/vegeta-steps.sh)" LAB_WRK="$$(setup/wrk.sh)" LAB_PYTHON="$$(setup/python.sh)" LAB_WSTEST="$$(setup/autobahn.sh)" LAB_HARNESS_JDK="$$(setup/jdk.sh 25)" LAB_SERVER_JDK="$$(setup/jdk.sh $(JDK))" $(MVN) verify \
		|| { .ci/failed-tests --after-failure; exit 1; }
	@.ci/failed-tests
	@# verify packaged every jar from these sources, so the suites below that call make bench-vps build nothing again.
	@mkdir -p .tools && touch $(JARS_STAMP)
	@# The analysis tests are Python alone and start no lab process, so they run beside the infra tests (whose bench-vps runs
	@# mark a pass the host's other work shared, never refuse it); their output follows the infra tests'. Both run in the
	@# background, so that Ctrl-C or a SIGTERM to make stops both at once. Each names its slowest tests (--durations), so that the
	@# time make test takes can be followed to where it goes, and each names the tests it skipped and why (-rs).
	(cd analysis && exec "$$(../setup/python.sh)" -m pytest -rs --durations=5) > .tools/analysis-tests.log 2>&1 & analysis=$$!; \
	  { setup/test-hosts.sh && exec "$$(setup/python.sh)" -m pytest -rs --durations=8 infra/tests; } & infra=$$!; \
	  trap 'kill $$analysis $$infra 2>/dev/null' EXIT INT TERM; status=0; \
	  wait $$infra || status=$$?; wait $$analysis || status=$$?; trap - EXIT; \
	  echo "--- the analysis tests (cd analysis && pytest), run beside the infra tests:"; cat .tools/analysis-tests.log; exit $$status

smoke: ## the servers' smoke check: build, start the stub and each server, and hold them to the contract
	$(MVN) verify -pl conformance -am -Dtest='*ConformanceTest' -Dsurefire.failIfNoSpecifiedTests=false

# The harness runs on JDK 25 whatever the servers run on: the newest JDK the lab supports, so that
# its JFR reader knows the format of every server's recording. The servers run on JDK 25 unless JDK=21.
# A run in which a server failed (exit code 1) still gets its report; bad input (2) and a
# preflight refusal (3) have no run to report on.
bench: build ## run every server under one k6 profile and render its report: make bench [PROFILE=local|smoke|vps] [JDK=21|25 or JDKS=21,25] [GC=zgc|g1 or GCS=zgc,g1] [ONLY=<server>[:<change>+<change>|:all],...] [RATE=1500] [K6_DASHBOARD=on] [FUTEX_HASH=kernel]
ifneq ($(and $(BENCH_JDKS),$(BENCH_GCS)),)
	@echo "make bench: give JDKS or GCS, not both: each runs the bench once per value; run one axis at a time" >&2; exit 2
else ifneq ($(BENCH_GCS),)
	$(call BENCH_EACH,GC,$(BENCH_GCS))
else ifneq ($(BENCH_JDKS),)
	$(call BENCH_EACH,JDK,$(BENCH_JDKS))
else
	@# The report splits each socket's memory with its JDK's and collector's floor, of both warmths: the floor program measures
	@# it first, once, where results/ has none (48 JVMs, half of what make floor takes for two JDKs), and says which it found.
	@$(MAKE) --no-print-directory floor JDKS="$(or $(JDK),25)" GC="$(or $(GC),zgc)" UNLESS_MEASURED=yes \
	  || echo "make bench: make floor did not finish; the report says what its split lacks"
	status=0; "$$(setup/jdk.sh 25)/bin/java" --enable-native-access=ALL-UNNAMED -jar lab/target/lab.jar --profile $(PROFILE) \
	  --server-jdk "$$(setup/jdk.sh $(or $(JDK),25))" --k6 "$$(setup/k6.sh)" --vegeta "$$(setup/vegeta-steps.sh)" --wrk "$$(setup/wrk.sh || true)" --pin-threshold-ms $(PIN_THRESHOLD_MS) \
	  $(if $(GC),--gc $(GC),) $(if $(ONLY),--servers $(ONLY),) $(if $(RATE),--json-rate $(RATE),) $(if $(K6_DASHBOARD),--k6-dashboard,) $(if $(FUTEX_HASH),--futex-hash $(FUTEX_HASH),) || status=$$?; \
	if [ $$status -le 1 ]; then $(MAKE) --no-print-directory report RUN=results/latest; fi; exit $$status
endif

# The latency-throughput curve is the bench under the curve profile: its own target, as it takes
# about 80 minutes here (docs/under-load.md).
curve: ## each server's latency-throughput curve and highest sustained rate, /json and /dashboard, sockets open: make curve [JDK=21|25] [ONLY=<server>[:<change>+<change>|:all],...]
	$(MAKE) --no-print-directory bench PROFILE=curve

# The same harness on a rented host (infra/README.md, "Run it on a Hetzner host"); infra/bench-vps.sh
# says what it does on each host. PROFILE defaults to vps here, the profile it exists for.
HOST ?=
LOADGEN ?=
bench-vps: build ## the bench on a remote host, load from others: make bench-vps HOST=root@<ip> [LOADGEN=root@10.0.0.3,...] [PROFILE=vps] [JDK=25]
	HOST="$(HOST)" LOADGEN="$(LOADGEN)" SERVERS="$(SERVERS)" JDK="$(JDK)" PIN_THRESHOLD_MS="$(PIN_THRESHOLD_MS)" \
	  PROFILE="$(if $(filter command line environment,$(origin PROFILE)),$(PROFILE),vps)" infra/bench-vps.sh

# make bench-vps across a rehearsal of its hosts on this machine (infra/rehearse-vps.sh), before a host is rented.
rehearse-vps: build ## make bench-vps across three hosts in network namespaces here, the shipped firewall in force (root): make rehearse-vps [PROFILE=smoke] [SERVERS=<server>,...]
	SERVERS="$(SERVERS)" JDK="$(JDK)" PROFILE="$(if $(filter command line environment,$(origin PROFILE)),$(PROFILE),smoke)" infra/rehearse-vps.sh

report: ## render a run folder's report.html: make report [RUN=results/<run>] [ALSO="results/<run> ..." to pool as repeats]
	@[ -f "$(RUN)/manifest.json" ] || { echo "make report: $(RUN) is not a run folder (no manifest.json); pass RUN=results/<run>" >&2; exit 2; }
	cd analysis && "$$(../setup/python.sh)" -m labanalysis.report.render "$(abspath $(RUN))" $(foreach a,$(ALSO),"$(abspath $(a))")

A ?=
B ?=
compare: ## one report comparing two run folders, figure by figure and server by server: make compare A=results/<run> B=results/<run>
	@[ -n "$(A)" ] && [ -n "$(B)" ] || { echo "make compare: name the two run folders: make compare A=results/<run> B=results/<run>" >&2; exit 2; }
	cd analysis && "$$(../setup/python.sh)" -m labanalysis.report.render --compare "$(abspath $(A))" "$(abspath $(B))"

PICTURE ?=
headline: ## a run's headline tables as Markdown, for a README or a note: make headline [RUN=results/<run>] [ALSO=...] [PICTURE=x.png], or A=... B=... to compare
	@cd analysis && "$$(../setup/python.sh)" -m labanalysis.report.headline $(if $(and $(A),$(B)),--compare "$(abspath $(A))" "$(abspath $(B))","$(abspath $(RUN))" $(if $(ALSO),--also $(foreach a,$(ALSO),"$(abspath $(a))"),) $(if $(PICTURE),--picture "$(abspath $(PICTURE))",))

# A reader's workload taken along each server's measured lines; empty variables keep the mission's shape (50,000 sockets,
# 2,000 requests a second, no wait). The newest make sweep folder, where there is one, gives what a request in flight holds.
SOCKETS ?=
WAIT_MS ?=
SWEEP ?= $(lastword $(sort $(wildcard results/*-sweep)))
advise: ## what a workload would take on each server (heap, RSS, CPU, threads, files) and the first limit it would hit: make advise [SOCKETS=50000] [RATE=2000] [WAIT_MS=100] [CONNECTIONS=0] [RUN=results/<run>] [SWEEP=results/<run>-sweep]
	@[ -f "$(RUN)/manifest.json" ] || { echo "make advise: $(RUN) is not a run folder (no manifest.json); run make bench, or pass RUN=results/<run>" >&2; exit 2; }
	@cd analysis && "$$(../setup/python.sh)" -m labanalysis.verdict.advise_command "$(abspath $(RUN))" $(if $(SOCKETS),--sockets $(SOCKETS),) \
	  $(if $(RATE),--rate $(RATE),) $(if $(WAIT_MS),--wait-ms $(WAIT_MS),) $(if $(CONNECTIONS),--connections $(CONNECTIONS),) \
	  $(if $(SWEEP),--sweep "$(abspath $(SWEEP))",)

# Jetty 12.1's buffer defect on a plain Jetty, outside the lab (reproducers/jetty-buffer-defect/README.md): each version's
# jars are resolved once into .tools/jetty-defect/, then the program runs from its source; the newest version given runs again
# with the lab's fill lock.
JETTY ?= 12.1.14,12.1.12
DEFECT_ROUNDS ?= 30000
jetty-defect: ## Jetty 12.1's defect on a plain Jetty: wrong answers to a well-formed GET after another client's bad request: make jetty-defect [JETTY=12.1.14,12.1.12] [DEFECT_ROUNDS=30000]
	@dir=reproducers/jetty-buffer-defect; jars=$(abspath .tools/jetty-defect); mkdir -p "$$jars"; java="$$(setup/jdk.sh 25)/bin/java"; \
	for v in $(subst $(comma), ,$(JETTY)); do \
	  [ -s "$$jars/$$v.classpath" ] || $(MVN) --quiet -f $$dir/pom.xml -Djetty.version=$$v dependency:build-classpath -Dmdep.outputFile="$$jars/$$v.classpath" \
	    || { echo "make jetty-defect: no Jetty $$v to be had from Maven Central; name released versions: JETTY=12.1.14,12.1.12" >&2; exit 2; }; \
	  "$$java" -cp "$$(cat "$$jars/$$v.classpath")" $$dir/JettyBufferDefect.java --rounds $(DEFECT_ROUNDS); \
	done; \
	newest=$$(echo "$(JETTY)" | tr ',' '\n' | grep '^12\.1\.' | sort -V | tail -n 1); \
	if [ -n "$$newest" ]; then "$$java" -cp "$$(cat "$$jars/$$newest.classpath")" $$dir/JettyBufferDefect.java --rounds $(DEFECT_ROUNDS) --lock; fi

# JFR's recordings are read on JDK 25 whatever JDKs the servers run on.
audit-pinning: build ## spring each pinning trap and walk the request paths on every server and JDK: make audit-pinning [SERVERS=<server>,...] [JDKS=21,25]
	"$$(setup/jdk.sh 25)/bin/java" -cp lab/target/lab.jar lab.audit.AuditMainKt $(if $(SERVERS),--servers $(SERVERS),) \
	  $(foreach j,$(subst $(comma), ,$(JDKS)),--jdk "$$(setup/jdk.sh $(j))")

# The client experiments; empty variables keep the defaults the harness declares (all clients,
# 100 and 500 calls answered after 2 s, 10 repeats; 80 KB, 7 MB, 30 MB and 128 MiB downloads).
CLIENTS ?=
REQUESTS ?=
REPEATS ?=
SIZES ?=
STUB ?=
clients: build ## threads each HTTP client blocks, and its download speed from each server: make clients [CLIENTS=retrofit,ktor-java] [REQUESTS=100,500] [REPEATS=10] [SIZES=80000,7000000] [JDK=21|25]
	status=0; "$$(setup/jdk.sh 25)/bin/java" -cp lab/target/lab.jar lab.clients.ClientsMainKt --jdk "$$(setup/jdk.sh $(or $(JDK),25))" $(if $(SERVERS),--servers $(SERVERS),) \
	  $(if $(CLIENTS),--clients $(CLIENTS),) $(if $(REQUESTS),--requests $(REQUESTS),) $(if $(REPEATS),--repeats $(REPEATS),) \
	  $(if $(SIZES),--sizes $(SIZES),) $(if $(STUB),--stub $(STUB),) || status=$$?; \
	latest="$$(ls -d results/*-clients 2>/dev/null | tail -n 1)"; \
	if [ $$status -le 1 ] && [ -n "$$latest" ]; then $(MAKE) --no-print-directory experiment-report FOLDER="$$latest"; fi; exit $$status

# The JMH IO benchmarks; empty variables keep the declared defaults (128 MiB, 3 warm-ups, 10 iterations).
IO_SIZE ?=
IO_ITERATIONS ?=
io-bench: build ## JMH: a 128 MiB file read and socket write through Ktor and plain JVM IO: make io-bench [JDK=21|25] [IO_SIZE=134217728] [IO_ITERATIONS=10]
	dir="results/$$(date +%Y%m%d-%H%M%S)-io"; status=0; \
	"$$(setup/jdk.sh $(or $(JDK),25))/bin/java" -jar io-bench/target/io-bench.jar --out "$$dir" \
	  $(if $(IO_SIZE),--size-bytes $(IO_SIZE),) $(if $(IO_ITERATIONS),--iterations $(IO_ITERATIONS),) || status=$$?; \
	if [ $$status -le 1 ] && [ -f "$$dir/io-bench.json" ]; then $(MAKE) --no-print-directory experiment-report FOLDER="$$dir"; fi; exit $$status

# Each model's own memory per parked task, with no server; empty variables keep the defaults the
# floor program declares (every model, depths 0 and 20, cold and warm, steps of 2,000 up to 8,000 tasks, 3 repeats).
MODELS ?=
DEPTHS ?=
STEPS ?=
WARMTHS ?=
floor: build ## each model's own memory per parked task, no server: make floor [JDKS=21,25] [GC=zgc|g1] [MODELS=coroutine,virtual] [DEPTHS=0,20] [WARMTHS=cold,warm] [STEPS=0,2000,4000] [REPEATS=3] [UNLESS_MEASURED=yes]
	status=0; before="$$(ls -d results/*-floor 2>/dev/null | tail -n 1)"; \
	"$$(setup/jdk.sh 25)/bin/java" -cp lab/target/lab.jar lab.floor.FloorMainKt \
	  $(foreach j,$(subst $(comma), ,$(JDKS)),--jdk "$$(setup/jdk.sh $(j))") $(if $(GC),--gc $(GC),) $(if $(MODELS),--models $(MODELS),) \
	  $(if $(DEPTHS),--depths $(DEPTHS),) $(if $(WARMTHS),--warmths $(WARMTHS),) $(if $(STEPS),--steps $(STEPS),) \
	  $(if $(REPEATS),--repeats $(REPEATS),) $(if $(UNLESS_MEASURED),--unless-measured,) || status=$$?; \
	latest="$$(ls -d results/*-floor 2>/dev/null | tail -n 1)"; \
	if [ $$status -le 1 ] && [ -n "$$latest" ] && [ "$$latest" != "$$before" ]; then $(MAKE) --no-print-directory experiment-report FOLDER="$$latest"; fi; exit $$status

# The concurrency sweep: wrk holds C requests in flight on each server, each waiting D ms; empty
# variables keep the defaults the sweep declares (delay and dashboard, C=100,1000,2000,4000,6000,
# D=1000 ms, 6 s warm-up and 10 s measured a step, 3 interleaved passes: about 55 minutes). JFR_PROFILE=on samples where
# each server's CPU goes in each step's window (profile-<workload>-<C>.* in each pass's folder; python -m
# labanalysis.sweep.cpu_profile reads them), its sampler's CPU counted in the server's.
WORKLOADS ?=
CONCURRENCY ?=
DELAY_MS ?=
PASSES ?=
JFR_PROFILE ?=
sweep: build ## C requests in flight on each server (closed loop, wrk): throughput, latency, threads, memory: make sweep [SERVERS=<server>[:<change>+<change>|:all],...] [WORKLOADS=delay,dashboard] [CONCURRENCY=100,1000] [DELAY_MS=1000] [PASSES=3] [JDK=21|25] [JFR_PROFILE=on]
	status=0; "$$(setup/jdk.sh 25)/bin/java" --enable-native-access=ALL-UNNAMED --add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED -cp lab/target/lab.jar lab.sweep.SweepMainKt \
	  --jdk "$$(setup/jdk.sh $(or $(JDK),25))" --wrk "$$(setup/wrk.sh)" $(if $(SERVERS),--servers $(SERVERS),) \
	  $(if $(WORKLOADS),--workloads $(WORKLOADS),) $(if $(CONCURRENCY),--concurrency $(CONCURRENCY),) \
	  $(if $(DELAY_MS),--delay-ms $(DELAY_MS),) $(if $(PASSES),--passes $(PASSES),) $(if $(JFR_PROFILE),--jfr-profile,) || status=$$?; \
	latest="$$(ls -d results/*-sweep 2>/dev/null | tail -n 1)"; \
	if [ $$status -le 1 ] && [ -n "$$latest" ]; then $(MAKE) --no-print-directory experiment-report FOLDER="$$latest"; fi; exit $$status

# The Autobahn testsuite's section 9 (large messages and many frames, timed by wstest) on each server alone, on CPUs of its
# own, in interleaved passes: a WebSocket echo comparison on a peer's workload. An arm is a server, or a server without some
# of the lab's changes to its engine (servers.json's engines): ARMS=ktor-coroutine,ktor-coroutine:close-linger. About 15 s
# an arm and pass, plus each server's start: some 4 minutes for the four servers and 3 passes.
ARMS ?=
CASES ?=
autobahn-perf: build ## Autobahn's section 9 timed by wstest on each server alone: make autobahn-perf [ARMS=server[:change+change],...] [CASES=9.*] [PASSES=3] [JDK=21|25]
	status=0; "$$(setup/jdk.sh 25)/bin/java" --enable-native-access=ALL-UNNAMED -cp lab/target/lab.jar lab.autobahn.AutobahnPerfMainKt \
	  --jdk "$$(setup/jdk.sh $(or $(JDK),25))" --wstest "$$(setup/autobahn.sh)" $(if $(ARMS),--arms '$(ARMS)',) \
	  $(if $(CASES),--cases '$(CASES)',) $(if $(PASSES),--passes $(PASSES),) || status=$$?; \
	latest="$$(ls -d results/*-autobahn 2>/dev/null | tail -n 1)"; \
	if [ $$status -le 1 ] && [ -n "$$latest" ]; then $(MAKE) --no-print-directory experiment-report FOLDER="$$latest"; fi; exit $$status

# Renders a clients, IO or floor folder's report.html, with the newest folder of each other kind beside it.
experiment-report:
	cd analysis && "$$(../setup/python.sh)" -m labanalysis.report.render --experiment "$(abspath $(FOLDER))"

# The catalogue's first server unless SERVER names one; read only when `make serve` runs.
SERVE_SERVER = $(or $(SERVER),$(shell $(CATALOGUE) names | cut -d, -f1))
serve: ## run one server in the foreground: make serve SERVER=<a name make servers lists> PORT=8080
	@jar="$$($(CATALOGUE) jar "$(SERVE_SERVER)" 2>&1)" || { echo "make serve: SERVER: $$jar" >&2; exit 2; }; \
	$(MAKE) --no-print-directory build && $(JAVA_HOME_OF) && exec "$$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
	  -jar "$$jar" --port $(PORT) --downstream-url $(DOWNSTREAM_URL)

# The stub listens where the servers look for it by default, unless PORT is given.
stub: build ## run the downstream stub that /dashboard calls: make stub PORT=8090
	$(JAVA_HOME_OF); exec "$$JAVA_HOME/bin/java" -jar stub/target/stub.jar \
	  --port $(if $(filter command line environment,$(origin PORT)),$(PORT),8090)

format: ## fix what the build and make test check: Kotlin formatting (ktlint), Python lint and formatting (ruff)
	$(MVN) --quiet ktlint:format
	status=0; "$$(setup/python.sh)" -m ruff check --fix analysis infra/tests loadtests/probes || status=$$?; \
	"$$(setup/python.sh)" -m ruff format analysis infra/tests loadtests/probes; exit $$status

clean: ## remove build output (keeps .tools/ and results/)
	$(MVN) --quiet clean
	rm -f $(JARS_STAMP)
