# Agentry — build, generate, test and run.
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
HELM ?= $(LOCALBIN)/helm
CONTROLLER_TOOLS_VERSION ?= v0.23.0
HELM_VERSION ?= v3.22.0
GO_TEST_FLAGS ?= -count=1
export PATH := $(LOCALBIN):$(PATH)

.PHONY: all
all: build

##@ Development

.PHONY: generate
generate: controller-gen ## Generate deepcopy code.
	$(CONTROLLER_GEN) object paths="./api/..."

.PHONY: manifests
manifests: controller-gen ## Generate CRDs and RBAC from markers.
	$(CONTROLLER_GEN) rbac:roleName=agentry-operator crd:allowDangerousTypes=false paths="./api/..." paths="./controllers/..." \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	rm -f charts/agentry/crds/*.yaml && cp config/crd/bases/*.yaml charts/agentry/crds/

.PHONY: fmt
fmt:
	gofmt -w $$(git ls-files '*.go')

.PHONY: vet
vet:
	go vet ./...

.PHONY: build
build: ## Build bin/agentry.
	CGO_ENABLED=0 go build -o $(LOCALBIN)/agentry .

.PHONY: dev
dev: ## Run every sample agent locally on :4111 (scripted model unless OPENAI_API_KEY is set).
	go run . dev

##@ Test

.PHONY: test
test: ## Everything CI runs: generated code check, vet, unit, integration and conformance tests.
	hack/test.sh

.PHONY: test-go
test-go:
	go test $(GO_TEST_FLAGS) ./...

.PHONY: verify-generated
verify-generated: generate manifests
	@git diff --exit-code -- api config charts/agentry/crds || { echo "generated files are stale: run 'make generate manifests' and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- api config charts/agentry/crds)" || { git status --porcelain -- api config charts/agentry/crds; echo "untracked generated files: run 'make generate manifests' and commit"; exit 1; }

.PHONY: bench
bench: ## Benchmarks that print numbers.
	hack/bench.sh

##@ Tools

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN)
$(CONTROLLER_GEN):
	GOBIN=$(LOCALBIN) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)

.PHONY: helm
helm: $(HELM)
$(HELM):
	GOBIN=$(LOCALBIN) go install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

.PHONY: help
help:
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
