# The lab's user interface: every command a user types is a target here.
# Set-up is part of each target: the JDK and Maven are found or installed into .tools/.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

SERVER ?= coroutine
PORT ?= 8080
DOWNSTREAM_URL ?= http://127.0.0.1:8090
SERVERS := coroutine vthread platform

# Each recipe resolves these afresh; both scripts print a path and install only when needed.
JAVA_HOME_OF := JAVA_HOME="$$(setup/jdk.sh)"
MVN := $(JAVA_HOME_OF) "$$(setup/maven.sh)" --batch-mode --no-transfer-progress

.PHONY: help build test serve stub bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

build: ## compile and package the servers and the stub (runnable jars under */target/)
	$(MVN) -q package -DskipTests

test: ## run every test: unit tests, then conformance, thread-model and cancellation suites on real servers
	$(MVN) verify

serve: build ## run one server in the foreground: make serve SERVER=coroutine|vthread|platform PORT=8080
	@case " $(SERVERS) " in *" $(SERVER) "*) ;; *) echo "SERVER must be one of: $(SERVERS) (got '$(SERVER)')" >&2; exit 2;; esac
	$(JAVA_HOME_OF); exec "$$JAVA_HOME/bin/java" -jar $(SERVER)-server/target/$(SERVER)-server.jar \
	  --port $(PORT) --downstream-url $(DOWNSTREAM_URL)

stub: build ## run the downstream stub that /dashboard calls: make stub PORT=8090
	$(JAVA_HOME_OF); exec "$$JAVA_HOME/bin/java" -jar stub/target/stub.jar --port $(PORT)

clean: ## remove build output (keeps .tools/ and results/)
	$(MVN) -q clean
