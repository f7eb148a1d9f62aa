# forgesync build targets that go beyond `go build`: the native door module
# (cross-compiled with mingw-w64), the release bundle, and the C benchmark.
#
#   make dll           dist/modules/MJOLNIRLobby/dlls/forge_doors.dll + .version
#   make dist          forgesync for windows/amd64 and linux/amd64, each with
#                      modules/ beside it: dist/<os>/forgesync[.exe],
#                      dist/<os>/modules/MJOLNIRLobby/dlls/forge_doors.{dll,version}
#   make release       dist/release/: forgesync_<version>_windows_amd64.zip and
#                      forgesync_<version>_linux_amd64.tar.gz (the binary, modules/,
#                      lua/, README.md, LICENSE), forgesync_<version>_amd64.deb for
#                      hosts (systemd unit, forgesync user), SHA256SUMS and, with
#                      SIGN_KEY=<minisign secret key>, SHA256SUMS.minisig and forgesync.pub
#                      (the key's password, if any, in $$FORGESYNC_SIGN_PASSWORD);
#                      RELEASE_KEY=RW… builds the key `forgesync update` checks into the binaries;
#                      reproducible: every date is SOURCE_DATE_EPOCH (the commit's time)
#   make test-native   the portable C tests, plain and under ASan/UBSan
#   make bench-native  the C benchmark (-O2)
#
# Debian packages: gcc-mingw-w64-x86-64 (dll, dist), gcc or clang, make.

GO       ?= go
CC       ?= cc
MINGW_CC ?= x86_64-w64-mingw32-gcc
DIST     ?= dist
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
# The binary and the release names carry the version without a leading "v".
RELEASE_VERSION := $(patsubst v%,%,$(VERSION))
COMMIT   ?= $(shell git rev-parse HEAD 2>/dev/null)
# The build date is the commit's time, so that two builds are the same bytes.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
BUILD_DATE := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%dT%H:%M:%SZ)
SIGN_KEY ?=
# The release public key (the RW… line of forgesync.pub) that `forgesync
# update` checks SHA256SUMS.minisig with; a binary built without it
# refuses to update itself.
RELEASE_KEY ?=

# The game builds the release's door module accepts (its build allowlist,
# comma separated; the seed names CU4). This is the one place it is set:
# the DLL is compiled with it (FD_SUPPORTED_BUILDS) and forgesync is linked
# with it, so `forgesync status` shows what the module accepts.
SUPPORTED_BUILDS := CU4
comma := ,
FD_BUILDS := $(patsubst %,"%",$(subst $(comma), ,$(SUPPORTED_BUILDS)))
LDFLAGS := -X main.version=$(RELEASE_VERSION) -X main.commit=$(COMMIT) -X main.buildDate=$(BUILD_DATE) \
	-X github.com/mjolnir-forge/forgesync/native.supportedBuilds=$(SUPPORTED_BUILDS) \
	$(if $(RELEASE_KEY),-X github.com/mjolnir-forge/forgesync/selfupdate.releaseKey=$(RELEASE_KEY))

STRICT  := -std=c11 -Wall -Wextra -Wpedantic -Werror
LOBBY   := native/lobby
HEADER  := $(LOBBY)/forge_doors_runtime.h
MODDIR  := $(DIST)/modules/MJOLNIRLobby/dlls
DLL     := $(MODDIR)/forge_doors.dll
VERFILE := $(MODDIR)/forge_doors.version
OSES    := windows linux

# The versions come from the header, so the files cannot disagree with it.
FD_API     := $(shell sed -n 's/^.define FD_API_VERSION \([0-9][0-9]*\)$$/\1/p' $(HEADER))
FD_VERSION := $(shell sed -n 's/^.define FD_MODULE_VERSION "\([^"]*\)"$$/\1/p' $(HEADER))

.PHONY: all dll dist release test-native bench-native clean

all: dll

dll: $(DLL) $(VERFILE)

$(DLL): $(LOBBY)/forge_doors_module.c $(HEADER)
	@mkdir -p $(@D)
	$(MINGW_CC) $(STRICT) -O2 -shared -static-libgcc -s -Wl,--no-insert-timestamp -Wl,--disable-auto-image-base \
		-DFD_SUPPORTED_BUILDS='$(subst $(eval) ,$(comma) ,$(FD_BUILDS))' -o $@ $<

$(VERFILE): $(HEADER)
	@mkdir -p $(@D)
	@test -n '$(FD_API)' && test -n '$(FD_VERSION)' || { echo 'cannot read versions from $(HEADER)'; exit 1; }
	printf 'forge_doors %s api %s\n' '$(FD_VERSION)' '$(FD_API)' > $@

dist: dll
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(DIST)/windows/forgesync.exe ./cmd/forgesync
	GOOS=linux GOARCH=amd64 CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(DIST)/linux/forgesync ./cmd/forgesync
	for os in $(OSES); do \
		mkdir -p $(DIST)/$$os/modules/MJOLNIRLobby/dlls && \
		cp $(DLL) $(VERFILE) $(DIST)/$$os/modules/MJOLNIRLobby/dlls/ || exit 1; \
	done

release: dist
	rm -rf $(DIST)/release
	$(GO) run -trimpath ./cmd/mkrelease -version '$(RELEASE_VERSION)' \
		-epoch '$(SOURCE_DATE_EPOCH)' -out $(DIST)/release $(if $(SIGN_KEY),-sign-key '$(SIGN_KEY)') \
		$(foreach os,$(OSES),$(os)=$(DIST)/$(os))

test-native:
	@mkdir -p $(DIST)/native
	$(CC) $(STRICT) -g -o $(DIST)/native/forge_doors_test $(LOBBY)/forge_doors_test.c -lm
	$(DIST)/native/forge_doors_test
	$(CC) $(STRICT) -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
		-o $(DIST)/native/forge_doors_test_san $(LOBBY)/forge_doors_test.c -lm
	$(DIST)/native/forge_doors_test_san

bench-native:
	@mkdir -p $(DIST)/native
	$(CC) $(STRICT) -O2 -o $(DIST)/native/forge_doors_bench $(LOBBY)/forge_doors_bench.c -lm
	$(DIST)/native/forge_doors_bench

clean:
	rm -rf $(DIST)
