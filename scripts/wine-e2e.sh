#!/usr/bin/env bash
# wine-e2e.sh: forgesync's Windows build, end to end, under wine (Debian's
# wine64, wine 8), as a Windows player would use it. .ci/run runs it; under
# CI=true a missing tool fails it, elsewhere it skips.
#
# Covered: scan, pack and sync of zip, 7z and tar.zst packs, byte-identical
# to the Linux build; the daemon installing a dropped archive
# (ReadDirectoryChangesW) and answering status and packs over the TCP API
# (wine has no AF_UNIX); two syncs at once (LockFileEx); a file held with
# share mode 0 by a holder program (deploy stages .forgesync-pending,
# publication retries, nothing corrupt); the mods path spelled in another
# case (nothing deleted); paths with spaces and non-ASCII; a config with
# CRLF line ends and a BOM; an upgrade while a .pak is held (the old version
# stays whole, exit 2, the archive waits in drop, the next sync upgrades); a
# read-only (attrib +r) .pak forgesync placed, cleared on upgrade and removal;
# a drive root, %ProgramData% or the profiles folder as state or socket
# folder refused, a state folder holding other files left as it was;
# `forgesync update` replacing the running forgesync.exe (renamed aside to
# forgesync.exe.old, removed at the next start) and rolling it back.
#
# Not covered, because wine cannot show them: AF_UNIX and the socket
# folder's ACL (wine 8 accepts SetNamedSecurityInfo but reads back its
# default ACL; daemon/acl_windows_test.go checks it on a real Windows), UAC,
# and a service's start (installing and removing one is covered). Go's
# unit tests do not run under wine: wine 8 fails os.RemoveAll on a folder
# holding files (the "unlinkat" of Go 1.25+), so every t.TempDir cleanup
# fails there; forgesync's own removals fall back to removing file by
# file (atomicfile.RemoveAll), which wine handles. The few Windows-only
# tests that make their own folders do run (the last step).
#
# Go >= 1.22 needs ProcessPrng from bcryptprimitives.dll, which wine 8
# lacks: a test-only stand-in (scripts/wine/bcryptprimitives.c, forwarding
# to RtlGenRandom) goes into the throw-away WINEPREFIX. It is never shipped.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

need() {
  for t in "$@"; do
    if ! command -v "$t" >/dev/null 2>&1; then
      if [ "${CI:-}" = true ]; then
        echo "wine-e2e: tool $t is missing in CI (add it to .ci/run)" >&2
        exit 1
      fi
      echo "wine-e2e: SKIP: $t not installed"
      exit 0
    fi
  done
}
need wine wineserver wineboot x86_64-w64-mingw32-gcc go zip 7z tar zstd cmp
if command -v wine64 >/dev/null 2>&1; then WINE=wine64; else WINE=wine; fi

start=$(date +%s)
work=$(mktemp -d /tmp/forgesync-wine.XXXXXX)
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEARCH=win64
cleanup() {
  wineserver -k >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "wine-e2e: FAIL: $*" >&2; exit 1; }
step() { echo "== wine-e2e: $* ($(($(date +%s) - start))s)"; }

# winpath turns a Unix path into the Z: path wine maps it to.
winpath() { printf 'Z:%s' "${1//\//\\}"; }

# wait_for runs a command until it succeeds or the deadline (seconds) ends.
wait_for() {
  local deadline=$(($(date +%s) + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# held: waits for the holder started last (pid $holder) to hold its file.
# Starting a wine process can take long on a loaded machine (a CI run
# once waited over 20 s), so it waits up to a minute and says whether the
# holder is still starting or has exited.
held() {
  wait_for 60 test -e "$work/ready" && return 0
  if kill -0 "$holder" 2>/dev/null; then
    echo "wine-e2e: the holder is still running after 60 s without holding the file" >&2
  else
    local st=0; wait "$holder" || st=$?
    echo "wine-e2e: the holder exited with status $st" >&2
  fi
  return 1
}

step "build"
bin="$work/bin"
mkdir -p "$bin"
GOOS=windows GOARCH=amd64 go build -o "$bin/forgesync.exe" ./cmd/forgesync
go build -o "$bin/forgesync" ./cmd/forgesync
x86_64-w64-mingw32-gcc -O2 -shared -o "$bin/bcryptprimitives.dll" scripts/wine/bcryptprimitives.c -ladvapi32
x86_64-w64-mingw32-gcc -O2 -municode -o "$bin/holder.exe" scripts/wine/holder.c

step "prefix"
# A persistent wineserver: one that exits between two programs races the
# next one's start ("recvmsg: Connection reset by peer").
mkdir -p "$WINEPREFIX"
wineserver -p
wineboot -i >/dev/null 2>&1 || true
sys32="$WINEPREFIX/drive_c/windows/system32"
[ -d "$sys32" ] || fail "wineboot made no prefix at $WINEPREFIX"
cp "$bin/bcryptprimitives.dll" "$sys32/"
fs() { $WINE "$bin/forgesync.exe" "$@"; }

# Every game root has a space and non-ASCII letters in its path.
root="$work/Steam Library/Forge Ünïcødé"
packsrc="$work/src"
mkdir -p "$root" "$packsrc"
cp -r cmd/forgesync/examples/foundry-wide "$packsrc/foundry-wide"
cp -r cmd/forgesync/examples/glass-works "$packsrc/glass-works"
cp -r cmd/forgesync/examples/lockout-gates "$packsrc/lockout-gates"

# lay_out ROOT CONFIG_PATH CRLF [API_PORT]: the game folders and a config;
# the Windows one has a BOM and CRLF line ends, as Notepad writes them.
lay_out() {
  local r=$1 cfg=$2 win=$3 port=${4:-} rescan=${5:-2s}
  mkdir -p "$r/Game/Mods" "$r/Game/Paks" "$r/bundle/MJOLNIRLobby/dlls"
  for m in MJOLNIRForge:0.4.0 MJOLNIRLobby:0.19.2 MJOLNIRLevelLoader:0.9.8; do
    mkdir -p "$r/Game/Mods/${m%%:*}"
    printf '%s\n' "${m#*:}" > "$r/Game/Mods/${m%%:*}/version.txt"
  done
  printf 'module v1\n' > "$r/bundle/MJOLNIRLobby/dlls/forge_doors.dll"
  printf 'forge_doors 1.0.0 api 1\n' > "$r/bundle/MJOLNIRLobby/dlls/forge_doors.version"
  local mods=$r/Game/Mods paks=$r/Game/Paks state=$r/state bundle=$r/bundle
  if [ "$win" = 1 ]; then
    mods=$(winpath "$mods"); paks=$(winpath "$paks"); state=$(winpath "$state"); bundle=$(winpath "$bundle")
  fi
  {
    printf '\xef\xbb\xbf# forgesync test config\n[paths]\n'
    printf "mods = '%s'\npaks = '%s'\nstate = '%s'\n" "$mods" "$paks" "$state"
    printf "[deploy]\nmodules = '%s'\n" "$bundle"
    printf '[watch]\nsettle = "200ms"\nrescan = "%s"\n' "$rescan"
    if [ -n "$port" ]; then printf '[api]\nlisten = "127.0.0.1:%s"\n' "$port"; fi
  } > "$cfg.lf"
  if [ "$win" = 1 ]; then sed 's/$/\r/' "$cfg.lf" > "$cfg"; else sed '1s/^\xef\xbb\xbf//' "$cfg.lf" > "$cfg"; fi
  rm "$cfg.lf"
}

inv_files="installed.json lifts.txt doors.txt installed.txt"
same_inventory() { # same_inventory MODS_A MODS_B
  for f in $inv_files; do
    cmp -s "$1/MJOLNIRForgePacks/$f" "$2/MJOLNIRForgePacks/$f" || { echo "differs: $f"; return 1; }
  done
}

step "pack and scan: the Windows packer writes the Linux packer's bytes"
arch="$work/archives"
mkdir -p "$arch"
"$bin/forgesync" pack "$packsrc/foundry-wide" -o "$arch/linux.zip" >/dev/null
fs pack "$(winpath "$packsrc/foundry-wide")" -o "$(winpath "$arch/foundry-wide.zip")" >/dev/null || fail "pack under wine"
cmp "$arch/linux.zip" "$arch/foundry-wide.zip" || fail "pack under wine differs from Linux"
(cd "$packsrc/glass-works" && 7z a -bd -bso0 "$arch/glass works.7z" . >/dev/null)
(cd "$packsrc" && tar --zstd -cf "$arch/lockout-gates.tar.zst" lockout-gates)
for a in "foundry-wide.zip" "glass works.7z" "lockout-gates.tar.zst"; do
  lin=$("$bin/forgesync" scan --json "$arch/$a")
  win=$(fs scan --json "$(winpath "$arch/$a")" | tr -d '\r') || fail "scan $a under wine"
  # The reports name the file by its path; compare everything else.
  [ "$(printf '%s' "$lin" | grep -v '"source"\|"path"')" = "$(printf '%s' "$win" | grep -v '"source"\|"path"')" ] ||
    fail "scan $a: Windows and Linux disagree"
done

step "sync: zip, 7z and tar.zst, byte-identical to Linux; CRLF + BOM config"
lin="$work/linux-root"
lay_out "$lin" "$work/linux.toml" 0
lay_out "$root" "$root/forgesync.toml" 1
mkdir -p "$lin/Game/Mods/MJOLNIRForgePacks/drop" "$root/Game/Mods/MJOLNIRForgePacks/drop"
cp "$arch"/* "$lin/Game/Mods/MJOLNIRForgePacks/drop/"
cp "$arch"/* "$root/Game/Mods/MJOLNIRForgePacks/drop/"
rm "$lin/Game/Mods/MJOLNIRForgePacks/drop/linux.zip" "$root/Game/Mods/MJOLNIRForgePacks/drop/linux.zip"
# desktop.ini, as Explorer drops it, is ignored, not rejected.
printf '[.ShellClassInfo]\r\n' > "$root/Game/Mods/MJOLNIRForgePacks/drop/desktop.ini"
"$bin/forgesync" sync --config "$work/linux.toml" >/dev/null || fail "Linux sync"
cfg=$(winpath "$root/forgesync.toml")
fs sync --config "$cfg" > "$work/sync1.out" || { cat "$work/sync1.out"; fail "sync under wine"; }
same_inventory "$lin/Game/Mods" "$root/Game/Mods" || fail "inventory under wine differs from Linux"
grep -q foundry-wide "$root/Game/Mods/MJOLNIRForgePacks/installed.txt" || fail "installed.txt lacks foundry-wide"
[ ! -e "$root/Game/Mods/MJOLNIRForgePacks/drop/rejected" ] || fail "something was rejected: $(ls "$root/Game/Mods/MJOLNIRForgePacks/drop/rejected")"
[ -f "$root/Game/Mods/MJOLNIRForgePacks/drop/desktop.ini" ] || fail "desktop.ini was claimed"
scripts="$root/Game/Mods/MJOLNIRLevelLoader/Scripts"
dll="$root/Game/Mods/MJOLNIRLobby/dlls/forge_doors.dll"
n_scripts=$(ls "$scripts" | wc -l)
[ "$n_scripts" -gt 0 ] && [ -f "$dll" ] || fail "scripts ($n_scripts) or the module were not deployed"

step "the mods folder spelled in another case deletes nothing"
upper=$(winpath "$root/Game/MODS" | tr 'a-z' 'A-Z')
sed "s|^mods = .*|mods = '${upper//\\/\\\\}'\r|" "$root/forgesync.toml" > "$root/upper.toml"
grep -q "GAME" "$root/upper.toml" || fail "upper.toml does not spell the mods folder in upper case"
fs sync --config "$(winpath "$root/upper.toml")" > "$work/sync-upper.out" || { cat "$work/sync-upper.out"; fail "sync with MODS"; }
[ "$(ls "$scripts" | wc -l)" = "$n_scripts" ] && [ -f "$dll" ] || fail "a spelling deleted deployed files: $(ls "$scripts" | wc -l) scripts, dll $(ls "$dll" 2>&1)"
fs sync --config "$cfg" >/dev/null || fail "sync after the upper-case one"
[ "$(ls "$scripts" | wc -l)" = "$n_scripts" ] && [ -f "$dll" ] || fail "switching spellings back deleted deployed files"

step "two syncs at once (LockFileEx)"
# The same pack dropped again: one sync claims it ("already installed"),
# the other waits for the state lock or says who holds it.
"$bin/forgesync" pack "$packsrc/foundry-wide" -o "$root/Game/Mods/MJOLNIRForgePacks/drop/again.zip" >/dev/null
set +e
fs sync --config "$cfg" > "$work/a.out" 2>&1 & pa=$!
fs sync --config "$cfg" > "$work/b.out" 2>&1 & pb=$!
wait $pa; ra=$?; wait $pb; rb=$?
set -e
for r in "$ra:$work/a.out" "$rb:$work/b.out"; do
  code=${r%%:*} out=${r#*:}
  if [ "$code" != 0 ] && ! grep -qi "lock\|held by\|pid" "$out"; then
    cat "$out"; fail "a concurrent sync failed otherwise than on the lock (exit $code)"
  fi
done
same_inventory "$lin/Game/Mods" "$root/Game/Mods" || fail "two syncs at once changed the inventory"
[ ! -e "$root/Game/Mods/MJOLNIRForgePacks/drop/again.zip" ] || fail "neither sync claimed again.zip"
grep -q "already-installed" "$work/a.out" "$work/b.out" || { cat "$work/a.out" "$work/b.out"; fail "no sync reported again.zip already installed"; }

step "a module held with share mode 0: deploy stages .forgesync-pending"
printf 'module v2\n' > "$root/bundle/MJOLNIRLobby/dlls/forge_doors.dll"
rm -f "$work/ready" "$work/release"
$WINE "$bin/holder.exe" "$(winpath "$dll")" "$(winpath "$work/ready")" "$(winpath "$work/release")" 60000 & holder=$!
held || fail "the holder did not take the module"
fs sync --config "$cfg" > "$work/held.out" 2>&1 || { cat "$work/held.out"; fail "sync with the module held (exit $?)"; }
grep -q "staged-locked" "$work/held.out" || { cat "$work/held.out"; fail "no staged-locked warning"; }
[ "$(grep -c "staged-locked" "$work/held.out")" = 1 ] || { cat "$work/held.out"; fail "the warning was printed more than once"; }
grep -q "module v2" "$dll.forgesync-pending" || fail "the pending file does not hold v2"
touch "$work/release"; wait $holder
fs sync --config "$cfg" > "$work/released.out" 2>&1 || { cat "$work/released.out"; fail "sync after release"; }
grep -q "module v2" "$dll" || fail "the pending module was not swapped in"
[ ! -e "$dll.forgesync-pending" ] || fail "the pending file is still there"

step "inventory held with share mode 0: start-up does not fail; publication retries"
inv="$root/Game/Mods/MJOLNIRForgePacks/installed.txt"
fs disable foundry-wide --config "$cfg" >/dev/null || fail "disable"
rm -f "$work/ready" "$work/release"
# Held past the 5 s retry: the enable is committed, publication waits.
$WINE "$bin/holder.exe" "$(winpath "$inv")" "$(winpath "$work/ready")" "$(winpath "$work/release")" 60000 & holder=$!
held || fail "the holder did not take installed.txt"
set +e
fs enable foundry-wide --config "$cfg" > "$work/enable.out" 2>&1; code=$?
set -e
# Committed, not yet seen by the game: a fault that waits (exit 2).
[ "$code" = 2 ] || { cat "$work/enable.out"; fail "enable with installed.txt held exited $code; want 2"; }
grep -q "not published yet" "$work/enable.out" || { cat "$work/enable.out"; fail "enable did not say the inventory waits"; }
fs packs --config "$cfg" > "$work/packs.out" 2>&1 || { cat "$work/packs.out"; fail "packs with installed.txt held"; }
touch "$work/release"; wait $holder
# Held for a moment (a scanner): the retry waits it out.
rm -f "$work/ready" "$work/release"
$WINE "$bin/holder.exe" "$(winpath "$inv")" "$(winpath "$work/ready")" "$(winpath "$work/release")" 1500 & holder=$!
held || fail "the holder did not take installed.txt"
fs sync --config "$cfg" > "$work/retry.out" 2>&1 || { cat "$work/retry.out"; fail "sync with installed.txt held for a moment"; }
wait $holder
# The enable's publication was still owed: this sync published it by
# waiting out the 1.5 s hold, not by giving up.
grep -q "published .*installed.txt" "$work/retry.out" || { cat "$work/retry.out"; fail "the sync did not publish installed.txt"; }
! grep -q "not published yet" "$work/retry.out" || { cat "$work/retry.out"; fail "the sync gave up instead of retrying"; }
same_inventory "$lin/Game/Mods" "$root/Game/Mods" || fail "the inventory is not whole after the holds"

step "daemon: TCP API, a dropped archive installed, status and packs"
port=$((20000 + RANDOM % 20000))
droot="$work/daemon root ü"
# A rescan period longer than the wait below: the install must come from
# the watcher (ReadDirectoryChangesW), not from the safety-net rescan.
lay_out "$droot" "$droot/forgesync.toml" 1 "$port" 10m
dcfg=$(winpath "$droot/forgesync.toml")
fs daemon --config "$dcfg" > "$work/daemon.log" 2>&1 & daemon=$!
wait_for 60 test -s "$droot/state/api-key" || { cat "$work/daemon.log"; fail "the daemon made no API key"; }
wait_for 30 fs status --config "$dcfg" || { cat "$work/daemon.log"; fail "status over the TCP API"; }
key=$(tr -d '\r\n' < "$droot/state/api-key")
http() { # http KEY HOST: status line of GET /v1/status
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf 'GET /v1/status HTTP/1.0\r\nHost: %s\r\nX-API-Key: %s\r\n\r\n' "$2" "$1" >&3
  head -1 <&3 | tr -d '\r'
  exec 3<&-
}
[ "$(http "" "127.0.0.1:$port")" = "HTTP/1.0 401 Unauthorized" ] || fail "no key: want 401, got $(http "" "127.0.0.1:$port")"
[ "$(http "$key" "evil.example:$port")" = "HTTP/1.0 403 Forbidden" ] || fail "a rebound Host was not refused"
[ "$(http "$key" "127.0.0.1:$port")" = "HTTP/1.0 200 OK" ] || fail "the key was refused"
cp "$arch/glass works.7z" "$droot/Game/Mods/MJOLNIRForgePacks/drop/"
wait_for 60 grep -q glass-works "$droot/Game/Mods/MJOLNIRForgePacks/installed.txt" ||
  { cat "$work/daemon.log"; fail "the daemon did not install the dropped archive"; }
fs packs --config "$dcfg" > "$work/dpacks.out" || fail "packs over the TCP API"
grep -q glass-works "$work/dpacks.out" || fail "packs does not list glass-works"
fs status --config "$dcfg" > "$work/dstatus.out" || fail "status over the TCP API"
grep -q "packs: 1 installed" "$work/dstatus.out" || { cat "$work/dstatus.out"; fail "status does not count the pack"; }
kill "$daemon" 2>/dev/null || true
wait "$daemon" 2>/dev/null || true

# ---- issue 20: a held file is a fault, not a verdict; read-only targets ----
step "an upgrade while the game holds a .pak: old version whole, exit 2, archive waits"
gw="$root/Game/Paks/MJOLNIRForge/glass-works"
gdrop="$root/Game/Mods/MJOLNIRForgePacks/drop"
[ -f "$gw/Surfaces.ucas" ] && [ -f "$gw/Surfaces.utoc" ] || fail "glass-works content is not installed: $(ls "$gw" 2>&1)"
cp -r "$packsrc/glass-works" "$packsrc/glass-works-2"
sed -i 's/"version": "2.0.0"/"version": "2.1.0"/' "$packsrc/glass-works-2/forgepack.json"
"$bin/forgesync" pack "$packsrc/glass-works-2" -o "$gdrop/glass-works-2.1.0.zip" >/dev/null
# The first file is not held: were it replaced, it would be another file
# (a rename keeps the inode; a restored backup is the original).
ucas_inode=$(stat -c %i "$gw/Surfaces.ucas")
rm -f "$work/ready" "$work/release"
$WINE "$bin/holder.exe" "$(winpath "$gw/Surfaces.utoc")" "$(winpath "$work/ready")" "$(winpath "$work/release")" 60000 & holder=$!
held || fail "the holder did not take Surfaces.utoc"
set +e
fs sync --config "$cfg" > "$work/upgrade-held.out" 2>&1; code=$?
set -e
[ "$code" = 2 ] || { cat "$work/upgrade-held.out"; fail "sync with a .pak held exited $code; want 2"; }
grep -q "glass-works-2.1.0.zip: waiting" "$work/upgrade-held.out" &&
  grep -q "Surfaces.utoc is held by another program" "$work/upgrade-held.out" &&
  grep -q "the archive waits in drop" "$work/upgrade-held.out" || { cat "$work/upgrade-held.out"; fail "sync did not say the file is held and the archive waits"; }
[ -f "$gdrop/glass-works-2.1.0.zip" ] || fail "the archive does not wait in drop"
[ ! -e "$gdrop/rejected/glass-works-2.1.0.zip" ] || fail "the archive was rejected"
[ "$(stat -c %i "$gw/Surfaces.ucas")" = "$ucas_inode" ] || fail "Surfaces.ucas was replaced: mixed versions"
[ "$(ls -A "$gw" | sort | tr '\n' ' ')" = "Surfaces.ucas Surfaces.utoc " ] || fail "the pack folder holds $(ls -A "$gw")"
grep -q '"2.0.0"' "$root/Game/Mods/MJOLNIRForgePacks/installed.json" || fail "installed.json no longer names glass-works 2.0.0"
touch "$work/release"; wait $holder
fs sync --config "$cfg" > "$work/upgrade-released.out" 2>&1 || { cat "$work/upgrade-released.out"; fail "sync after the .pak was released"; }
grep -q "glass-works-2.1.0.zip: upgraded glass-works 2.1.0 (was 2.0.0)" "$work/upgrade-released.out" || { cat "$work/upgrade-released.out"; fail "the upgrade did not complete once released"; }
[ ! -e "$gdrop/glass-works-2.1.0.zip" ] || fail "the archive is still in drop"

step "a read-only (attrib +r) .pak forgesync placed: an upgrade clears it and succeeds at once"
# A rename over a read-only file is denied as over a held one
# (ERROR_ACCESS_DENIED); forgesync owns this file, so it clears the
# attribute instead of waiting for a game that holds nothing.
$WINE attrib +r "$(winpath "$gw/Surfaces.ucas")" >/dev/null 2>&1 || true
[ ! -w "$gw/Surfaces.ucas" ] || chmod a-w "$gw/Surfaces.ucas" # wine maps +r to the write bits
sed -i 's/"version": "2.1.0"/"version": "2.2.0"/' "$packsrc/glass-works-2/forgepack.json"
"$bin/forgesync" pack "$packsrc/glass-works-2" -o "$gdrop/glass-works-2.2.0.zip" >/dev/null
t0=$(date +%s)
fs sync --config "$cfg" > "$work/upgrade-ro.out" 2>&1 || { cat "$work/upgrade-ro.out"; fail "sync over a read-only .pak"; }
grep -q "glass-works-2.2.0.zip: upgraded glass-works 2.2.0 (was 2.1.0)" "$work/upgrade-ro.out" || { cat "$work/upgrade-ro.out"; fail "the upgrade over a read-only .pak did not complete"; }
[ $(($(date +%s) - t0)) -lt 5 ] || fail "the upgrade waited on a read-only file as if it were held"
$WINE attrib +r "$(winpath "$gw/Surfaces.ucas")" >/dev/null 2>&1 || true
[ ! -w "$gw/Surfaces.ucas" ] || chmod a-w "$gw/Surfaces.ucas"
fs remove glass-works --config "$cfg" > "$work/remove-ro.out" 2>&1 || { cat "$work/remove-ro.out"; fail "remove with a read-only .pak"; }
! grep -qi "could not\|held\|read-only" "$work/remove-ro.out" || { cat "$work/remove-ro.out"; fail "remove left the read-only file"; }
[ ! -e "$gw" ] || fail "the pack folder is still there: $(ls -A "$gw")"
# ---- end of issue 20 ----

# --- issue 20 §4: never change a folder forgesync does not own ----------
# A state or socket folder that is a drive root or a shared folder is
# refused with the reason and the fix, before anything is written there;
# a pre-existing folder holding other files is used as it is. Wine cannot
# show ACLs (see the top), so what is checked is the refusal, its message,
# and that the daemon runs in, and leaves alone, a folder with other files.
step "a drive root or a shared folder as state or socket folder is refused"
oroot="$work/own folders"
mkdir -p "$oroot/Game/Mods/MJOLNIRForgePacks/drop" "$oroot/Game/Paks"
own_cfg() { # own_cfg FILE STATE [SOCKET] [API_PORT]: a config of oroot's game
  {
    printf "[paths]\nmods = '%s'\npaks = '%s'\nstate = '%s'\n" "$(winpath "$oroot/Game/Mods")" "$(winpath "$oroot/Game/Paks")" "$2"
    if [ -n "${3:-}" ]; then printf "socket = '%s'\n" "$3"; fi
    printf '[deploy]\nlua = false\nnative = false\n'
    if [ -n "${4:-}" ]; then printf '[api]\nlisten = "127.0.0.1:%s"\n' "$4"; fi
  } > "$1"
}
own_refused() { # own_refused NAME WANT: the daemon of config NAME exits 2 saying WANT and the fix
  local rc=0
  fs daemon --config "$(winpath "$oroot/$1.toml")" > "$work/$1.out" 2>&1 || rc=$?
  [ "$rc" = 2 ] && grep -q "$2" "$work/$1.out" && grep -q "a folder of its own" "$work/$1.out" ||
    { cat "$work/$1.out"; fail "$1: not refused with \"$2\" and the fix (exit $rc)"; }
}
own_cfg "$oroot/root-state.toml" 'C:\'
own_refused root-state "root of a drive"
[ ! -e "$WINEPREFIX/drive_c/forgesync.sock" ] && [ ! -e "$WINEPREFIX/drive_c/api-key" ] || fail "the refused daemon wrote into C:\\"
own_cfg "$oroot/shared-socket.toml" "$(winpath "$oroot/state")" 'C:\ProgramData\forgesync.sock'
own_refused shared-socket "other programs share"
own_cfg "$oroot/profile-state.toml" 'C:\users'
own_refused profile-state "other programs share"

step "a state folder holding other files is used and left as it was"
mkdir -p "$oroot/shared state"
printf 'keep me\n' > "$oroot/shared state/notes.txt"
port2=$((20000 + RANDOM % 20000))
own_cfg "$oroot/filled.toml" "$(winpath "$oroot/shared state")" "" "$port2"
fcfg=$(winpath "$oroot/filled.toml")
fs daemon --config "$fcfg" > "$work/filled.log" 2>&1 & odaemon=$!
wait_for 60 fs status --config "$fcfg" || { cat "$work/filled.log"; fail "the daemon did not start in a state folder holding other files"; }
kill "$odaemon" 2>/dev/null || true
wait "$odaemon" 2>/dev/null || true
[ "$(cat "$oroot/shared state/notes.txt")" = "keep me" ] || fail "the other file in the state folder changed"

# ---- issue 35 §1-4: a name's case, a held file during a set, one wait --
step "a case-only rename (content/Map.pak -> content/MAP.pak) upgrades and rolls back whole"
# Windows takes Map.pak and MAP.pak for one file: the upgrade used to place
# MAP.pak and then delete it as the old version's Map.pak.
case_pack() { # case_pack DIR VERSION NAME BYTES: a pack case-pack with content/NAME
  rm -rf "$1"; cp -r cmd/forgesync/examples/foundry-wide "$1"
  sed -i "s/foundry-wide/case-pack/g; s/\"version\": \"1.4.0\"/\"version\": \"$2\"/" "$1/forgepack.json"
  mkdir -p "$1/content"; printf '%s' "$4" > "$1/content/$3"
}
cpaks="$root/Game/Paks/MJOLNIRForge/case-pack"
case_has() { # case_has BYTES: the pack folder holds one file, a .pak of any case, with BYTES
  [ "$(ls -A "$cpaks" | wc -l)" = 1 ] && [ "$(cat "$cpaks"/*)" = "$1" ]
}
case_pack "$packsrc/case-1" 1.0.0 Map.pak "map one"
case_pack "$packsrc/case-2" 2.0.0 MAP.pak "map two"
"$bin/forgesync" pack "$packsrc/case-1" -o "$gdrop/case-1.zip" >/dev/null
fs sync --config "$cfg" > "$work/case1.out" 2>&1 || { cat "$work/case1.out"; fail "sync of case-pack 1.0.0"; }
case_has "map one" || fail "case-pack 1.0.0 not in place: $(ls -A "$cpaks" 2>&1)"
"$bin/forgesync" pack "$packsrc/case-2" -o "$gdrop/case-2.zip" >/dev/null
fs sync --config "$cfg" > "$work/case2.out" 2>&1 || { cat "$work/case2.out"; fail "sync of case-pack 2.0.0"; }
grep -q "upgraded case-pack 2.0.0" "$work/case2.out" || { cat "$work/case2.out"; fail "case-pack was not upgraded"; }
case_has "map two" || fail "after the upgrade to MAP.pak the pack folder holds: $(ls -A "$cpaks" 2>&1)"
fs rollback --config "$cfg" > "$work/case-rb.out" 2>&1 || { cat "$work/case-rb.out"; fail "rollback to case-pack 1.0.0"; }
case_has "map one" || fail "after the rollback to Map.pak the pack folder holds: $(ls -A "$cpaks" 2>&1)"

step "a set meeting a .pak the game holds changes nothing, leaves no journal, and stops nothing else"
# The set: case-pack 3.0.0, exported by a Linux host.
sroot="$work/set host"
lay_out "$sroot" "$work/sethost.toml" 0
mkdir -p "$sroot/Game/Mods/MJOLNIRForgePacks/drop"
case_pack "$packsrc/case-3" 3.0.0 Map.pak "map three"
"$bin/forgesync" pack "$packsrc/case-3" -o "$sroot/Game/Mods/MJOLNIRForgePacks/drop/case-3.zip" >/dev/null
"$bin/forgesync" sync --config "$work/sethost.toml" >/dev/null || fail "the set host's sync"
"$bin/forgesync" export "$work/set3" --config "$work/sethost.toml" >/dev/null || fail "the set host's export"
set3=$(winpath "$work/set3")
rm -f "$work/ready" "$work/release"
$WINE "$bin/holder.exe" "$(winpath "$cpaks/Map.pak")" "$(winpath "$work/ready")" "$(winpath "$work/release")" 120000 & holder=$!
held || fail "the holder did not take Map.pak"
set +e
fs sync --set "$set3" --config "$cfg" > "$work/set-held.out" 2>&1; code=$?
set -e
[ "$code" = 2 ] && grep -q "the set was not applied: .*Map.pak is held by another program (the game?); close it" "$work/set-held.out" ||
  { cat "$work/set-held.out"; fail "sync --set with Map.pak held (exit $code): want 2, saying which file is held"; }
! grep -q "forgesync-tmp" "$work/set-held.out" || { cat "$work/set-held.out"; fail "the message names a temp file"; }
! grep -q pending_set "$root/state/packs.json" || fail "the set stayed journaled"
case_has "map one" || fail "the held set changed the pack folder: $(ls -A "$cpaks" 2>&1)"
t0=$(date +%s)
fs packs --config "$cfg" > "$work/packs-held.out" 2>&1 || { cat "$work/packs-held.out"; fail "packs with Map.pak held"; }
[ $(($(date +%s) - t0)) -lt 4 ] || fail "packs waited on the held file"
set +e
fs rollback --config "$cfg" > "$work/rb-held.out" 2>&1; code=$?
set -e
[ "$code" = 2 ] && grep -qi "the rollback was not done: .*map.pak is held" "$work/rb-held.out" ||
  { cat "$work/rb-held.out"; fail "rollback with Map.pak held (exit $code): want 2, saying it was not done"; }
port3=$((20000 + RANDOM % 20000))
{ cat "$root/forgesync.toml"; printf '[api]\r\nlisten = "127.0.0.1:%s"\r\n' "$port3"; } > "$root/api.toml"
acfg=$(winpath "$root/api.toml")
fs daemon --config "$acfg" > "$work/held-daemon.log" 2>&1 & hdaemon=$!
wait_for 60 fs status --config "$acfg" || { cat "$work/held-daemon.log"; fail "the daemon did not start with Map.pak held"; }
fs status --config "$acfg" > "$work/held-status.out" 2>&1 || true
! grep -q ": error," "$work/held-status.out" || { cat "$work/held-status.out"; fail "status says error with Map.pak held"; }
# A signal to the wine launcher does not reach the Windows process, which
# would hold the state's lock: it is ended as Windows ends it.
$WINE taskkill /F /IM forgesync.exe >/dev/null 2>&1 || true
kill "$hdaemon" 2>/dev/null || true; wait "$hdaemon" 2>/dev/null || true
touch "$work/release"; wait $holder
wait_for 60 fs sync --config "$cfg" || fail "sync after Map.pak was released: $(fs sync --config "$cfg" 2>&1)"
case_has "map one" || fail "the refused rollback was done behind the user's back: $(cat "$cpaks"/*)"

step "installed.txt held: one sync --set waits once, says it once, and does not claim the set is live"
rm -f "$work/ready" "$work/release"
$WINE "$bin/holder.exe" "$(winpath "$inv")" "$(winpath "$work/ready")" "$(winpath "$work/release")" 120000 & holder=$!
held || fail "the holder did not take installed.txt"
t0=$(date +%s)
set +e
fs sync --set "$set3" --config "$cfg" > "$work/set-inv.out" 2>&1; code=$?
set -e
took=$(($(date +%s) - t0))
[ "$code" = 2 ] || { cat "$work/set-inv.out"; fail "sync --set with installed.txt held exited $code; want 2 (the inventory waits)"; }
# One wait in all (the old code waited 5 s in the start-up's read, its
# publication and the set's): every later try fails at once ("in 0s").
[ "$(grep -cE "tries in [^0]" "$work/set-inv.out")" = 1 ] ||
  { cat "$work/set-inv.out"; fail "sync --set with installed.txt held waited more than once (${took}s in all)"; }
[ "$(grep -c "^waiting: inventory not published yet" "$work/set-inv.out")" = 1 ] && [ "$(grep -c 'msg="inventory not published yet' "$work/set-inv.out")" -le 1 ] ||
  { cat "$work/set-inv.out"; fail "want the unpublished inventory said once (and logged once)"; }
! grep -q "now equals the set" "$work/set-inv.out" || { cat "$work/set-inv.out"; fail "sync --set claims the machine equals the set while installed.txt waits"; }
case_has "map three" || fail "the set's content is not in place"
touch "$work/release"; wait $holder
fs sync --config "$cfg" > "$work/set-inv-after.out" 2>&1 || { cat "$work/set-inv-after.out"; fail "sync after installed.txt was released"; }
grep -q "case-pack.*3.0.0" "$inv" || fail "installed.txt does not name case-pack 3.0.0 once released"
# ---- end of issue 35 §1-4 ----------------------------------------------

step "the Windows-only tests of issue 20 §3 and §4 that make their own folders"
# They avoid t.TempDir, whose cleanup wine cannot run (see the top).
for t in "daemon:TestSecureFolderNoACL|TestSecureFolderLeavesOthers|TestServiceLogHeldByViewer" \
         "installer/intake:TestIsolationUnconfinedChildNeverRuns|TestConfine|TestChildCreationFlags|TestChildPriority|TestWarmChildClosed" "watch:TestWatcherLongDropPath" \
         "sets/lan:TestServedFileRenames"; do
  pkg=${t%%:*} exe=${t%%:*}; exe=${exe//\//-}
  GOOS=windows GOARCH=amd64 go test -c -o "$bin/$exe.test.exe" "./$pkg"
  $WINE "$bin/$exe.test.exe" -test.v -test.run "^(${t#*:})\$" > "$work/$exe.test.out" 2>&1 ||
    { cat "$work/$exe.test.out"; fail "Windows tests of $pkg under wine"; }
  names=${t#*:}
  [ "$(grep -c '^--- PASS' "$work/$exe.test.out")" = "$(($(tr -cd '|' <<< "$names" | wc -c) + 1))" ] ||
    { cat "$work/$exe.test.out"; fail "Windows tests of $pkg: not every one of $names ran and passed"; }
done
# --- end of issue 20 §4 ---------------------------------------------------

# ---- issue 35 items 13-15 and 17: setup, its service and keygen on Windows ----
# setup and keygen as a Windows player types them: a folder PowerShell 5.1
# tab-completed ("…\Mods\", the quote read as escaped) through cmd; the
# machine service installed by setup --machine --service in wine's
# service manager and removed by setup --undo (wine starts no Go service:
# its services.exe runs the program outside session 0, which Go takes for
# a terminal, so the start fails and the service is installed, stopped);
# keygen's sign command pasted into cmd.
step "setup: --service without --machine refused before anything is written"
sroot="$work/setup game"
sbundle="$work/setup bundle" # the unzipped release: forgesync.exe, modules/ beside it
mkdir -p "$sroot/Game/Mods/MJOLNIRForge" "$sroot/Game/Paks" "$sbundle/modules/MJOLNIRLobby/dlls"
printf '0.5.0\n' > "$sroot/Game/Mods/MJOLNIRForge/version.txt"
printf 'module v1\n' > "$sbundle/modules/MJOLNIRLobby/dlls/forge_doors.dll"
printf 'forge_doors 1.0.0 api 1\n' > "$sbundle/modules/MJOLNIRLobby/dlls/forge_doors.version"
cp "$bin/forgesync.exe" "$sbundle/"
sfs() { $WINE "$sbundle/forgesync.exe" "$@"; }
unixpath() { local p=${1#C:\\}; printf '%s/drive_c/%s' "$WINEPREFIX" "${p//\\//}"; } # C:\x\y → the prefix's file
smods=$(winpath "$sroot/Game/Mods") spaks=$(winpath "$sroot/Game/Paks") sstate=$(winpath "$sroot/state")
rc=0; sfs setup --service --mods "$smods" --paks "$spaks" --state "$sstate" > "$work/svc-user.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "setup --machine --service" "$work/svc-user.out" || { cat "$work/svc-user.out"; fail "setup --service without --machine: exit $rc"; }
[ ! -e "$sroot/state" ] && [ ! -e "$sroot/Game/Mods/MJOLNIRForgePacks" ] && ! grep -q "^wrote" "$work/svc-user.out" ||
  fail "the refused setup --service wrote: $(ls -A "$sroot" "$sroot/Game/Mods")"

step "setup: a tab-completed folder (\"…\\Mods\\\") typed in cmd is read as meant"
printf '@echo off\r\n"%s" setup --mods "%s\\" --paks "%s\\" --state "%s"\r\nexit /b %%errorlevel%%\r\n' \
  "$(winpath "$sbundle/forgesync.exe")" "$smods" "$spaks" "$sstate" > "$work/setup-quote.bat"
rc=0; $WINE cmd /c "$(winpath "$work/setup-quote.bat")" > "$work/setup-quote.out" 2>&1 || rc=$?
tr -d '\r' < "$work/setup-quote.out" > "$work/setup-quote.txt"
[ "$rc" = 0 ] && grep -q "^drop packs into $(printf '%s' "$smods" | sed 's/\\/\\\\/g')\\\\MJOLNIRForgePacks\\\\drop$" "$work/setup-quote.txt" ||
  { cat "$work/setup-quote.txt"; fail "setup with --mods \"…\\Mods\\\" through cmd: exit $rc"; }
ucfg=$(sed -n 's/^wrote \(.*forgesync\.toml\)$/\1/p' "$work/setup-quote.txt")
[ -n "$ucfg" ] && grep -q "^paks = '$(printf '%s' "$spaks" | sed 's/\\/\\\\/g')'" "$(unixpath "$ucfg")" ||
  { cat "$work/setup-quote.txt" "$(unixpath "$ucfg")"; fail "the config setup wrote does not name the Paks folder as meant"; }

step "setup registered forgesync:// links in HKCU\\Software\\Classes\\forgesync (the real registry)"
$WINE reg query 'HKCU\Software\Classes\forgesync' /v 'URL Protocol' > "$work/reg-proto.out" 2>&1 ||
  { cat "$work/setup-quote.txt" "$work/reg-proto.out"; fail "setup wrote no URL Protocol value under HKCU\\Software\\Classes\\forgesync"; }
$WINE reg query 'HKCU\Software\Classes\forgesync\shell\open\command' /ve > "$work/reg-cmd.out" 2>&1 &&
  tr -d '\r' < "$work/reg-cmd.out" | grep -qF "forgesync.exe\" open-link \"%1\"" ||
  { cat "$work/reg-cmd.out"; fail "the forgesync:// command is not forgesync.exe open-link \"%1\""; }

step "setup --machine refuses while the user's config would shadow it; --undo"
rc=0; sfs setup --machine --mods "$smods" --paks "$spaks" --state "$sstate-m" > "$work/shadow.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "is found before the machine's config" "$work/shadow.out" || { cat "$work/shadow.out"; fail "setup --machine under a user config: exit $rc"; }
[ ! -e "$WINEPREFIX/drive_c/ProgramData/forgesync/forgesync.toml" ] && [ ! -e "$sroot/state-m" ] || fail "the refused setup --machine wrote"
sfs setup --undo > "$work/undo-user.out" 2>&1 || { cat "$work/undo-user.out"; fail "setup --undo of the user's setup"; }
[ ! -e "$(unixpath "$ucfg")" ] || fail "setup --undo left $ucfg"
! $WINE reg query 'HKCU\Software\Classes\forgesync' > "$work/reg-undo.out" 2>&1 ||
  { cat "$work/undo-user.out" "$work/reg-undo.out"; fail "setup --undo left HKCU\\Software\\Classes\\forgesync"; }

step "uninstall: setup, a pack synced (content, Lua scripts, module deployed), uninstall --yes: the game as before setup"
gametree() { (cd "$1" && find . -printf '%y %m %p\n' | sort && find . -type f -exec sha256sum {} + | sort); }
gametree "$sroot" > "$work/before-setup.tree"
sfs setup --mods "$smods" --paks "$spaks" --state "$sstate" > "$work/u-setup.out" 2>&1 || { cat "$work/u-setup.out"; fail "setup before uninstall"; }
"$bin/forgesync" pack "$packsrc/foundry-wide" -o "$sroot/Game/Mods/MJOLNIRForgePacks/drop/fw.zip" >/dev/null
sfs sync > "$work/u-sync.out" 2>&1 || { cat "$work/u-sync.out"; fail "sync before uninstall"; }
[ -f "$sroot/Game/Mods/MJOLNIRLobby/dlls/forge_doors.dll" ] || { cat "$work/u-sync.out"; fail "sync deployed no module before uninstall"; }
rc=0; sfs status > "$work/u-status.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "no daemon running: this is the state on disk" "$work/u-status.out" && grep -q "packs: 1 installed, 1 enabled" "$work/u-status.out" ||
  { cat "$work/u-status.out"; fail "status without a daemon (the state read under a shared LockFileEx): exit $rc"; }
rc=0; sfs uninstall < /dev/null > "$work/u-refused.out" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "uninstall --yes" "$work/u-refused.out" || { cat "$work/u-refused.out"; fail "uninstall without a terminal or --yes: exit $rc"; }
sfs uninstall --yes > "$work/u.out" 2>&1 || { cat "$work/u.out"; fail "uninstall --yes"; }
gametree "$sroot" > "$work/after-uninstall.tree"
diff "$work/before-setup.tree" "$work/after-uninstall.tree" || { cat "$work/u.out"; fail "after uninstall the game differs from before setup"; }

step "setup --machine --service installs the service; setup --undo --machine removes it"
# wineboot -i and the first program each start a services.exe in a new
# prefix; a service one creates the other does not know, and a client may
# reach either. A restarted wineserver runs one, which reads the registry.
wineserver -k; wineserver -p
rc=0; sfs setup --machine --service --mods "$smods" --paks "$spaks" --state "$sstate" > "$work/svc.out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { [ "$rc" = 2 ] && grep -q "the service is not running" "$work/svc.out"; } || { cat "$work/svc.out"; fail "setup --machine --service: exit $rc"; }
grep -q 'HKLM\\SYSTEM\\CurrentControlSet\\Services\\forgesync' "$work/svc.out" || { cat "$work/svc.out"; fail "setup --machine --service named no service entry"; }
grep -q '"service"' "$sroot/state/setup.json" || fail "setup's record does not hold the service: $(cat "$sroot/state/setup.json")"
[ "$(sfs service status --machine | tr -d '\r')" != "not installed" ] || fail "the service setup installed is not installed"
sfs setup --undo --machine > "$work/svc-undo.out" 2>&1 || { cat "$work/svc-undo.out"; fail "setup --undo --machine"; }
grep -q "service forgesync: uninstall done" "$work/svc-undo.out" || { cat "$work/svc-undo.out"; fail "setup --undo did not say it removed the service"; }
[ "$(sfs service status --machine | tr -d '\r')" = "not installed" ] || fail "setup --undo left the service installed"
[ ! -e "$WINEPREFIX/drive_c/ProgramData/forgesync/forgesync.toml" ] || fail "setup --undo left the machine's config"

step "keygen: the sign command it prints runs pasted into cmd; the password variable in cmd's and PowerShell's syntax"
keys="$work/my keys"
sfs keygen -o "$(winpath "$keys")" --no-password > "$work/keygen.out" || fail "keygen under wine"
signline=$(tr -d '\r' < "$work/keygen.out" | sed -n 's/^Sign a set with: //p')
[ "${signline#.\\forgesync.exe export DIR --sign \"}" != "$signline" ] || { cat "$work/keygen.out"; fail "keygen printed no one-line sign command with the key quoted"; }
# The config's own path in the .bat must be ASCII (cmd reads a .bat in the OEM code page).
cp "$root/forgesync.toml" "$work/export.toml"
printf '@echo off\r\ncd /d "%s"\r\n%s %s %s --config %s\r\nexit /b %%errorlevel%%\r\n' "$(winpath "$sbundle")" \
  "${signline%% DIR *}" "$(winpath "$work/signed")" "${signline#* DIR }" "$(winpath "$work/export.toml")" > "$work/sign.bat"
$WINE cmd /c "$(winpath "$work/sign.bat")" > "$work/sign.out" 2>&1 || { cat "$work/sign.out"; fail "the printed sign command failed in cmd"; }
[ -s "$work/signed/forgepacks.lock.minisig" ] || { cat "$work/sign.out"; fail "the printed sign command signed nothing"; }
rc=0; FORGESYNC_SIGN_PASSWORD= sfs keygen -o "$(winpath "$work/no keys")" < /dev/null > "$work/keygen-nopass.out" 2>&1 || rc=$?
grep -qF "(PowerShell: \$env:FORGESYNC_SIGN_PASSWORD = '…'; cmd: set FORGESYNC_SIGN_PASSWORD=…)" "$work/keygen-nopass.out" ||
  { cat "$work/keygen-nopass.out"; fail "keygen did not name the password variable in the Windows shells' syntax (exit $rc)"; }
# ---- end of issue 35 items 13-15 and 17 ----

step "update: the running forgesync.exe is replaced by a signed release from a feed, and rolled back"
# Two builds with a test release key (1.0.0 installed, 1.1.0 released), the
# release folder by the real mkrelease, served over HTTP on loopback.
upd="$work/update"
mkdir -p "$upd/dist/modules/MJOLNIRLobby/dlls" "$upd/inst/modules/MJOLNIRLobby/dlls"
"$bin/forgesync" keygen -o "$upd/key" --no-password > /dev/null || fail "keygen for the release key"
pub=$(sed -n 2p "$upd/key/forgesync.pub")
keyvar=github.com/mjolnir-forge/forgesync/selfupdate.releaseKey
GOOS=windows GOARCH=amd64 go build -ldflags "-X main.version=1.0.0 -X $keyvar=$pub" -o "$upd/inst/forgesync.exe" ./cmd/forgesync
GOOS=windows GOARCH=amd64 go build -ldflags "-X main.version=1.1.0 -X $keyvar=$pub" -o "$upd/dist/forgesync.exe" ./cmd/forgesync
for d in dist inst; do
  printf 'module %s\n' "$d" > "$upd/$d/modules/MJOLNIRLobby/dlls/forge_doors.dll"
  printf 'forge_doors 1.0.0 api 1\n' > "$upd/$d/modules/MJOLNIRLobby/dlls/forge_doors.version"
done
go run ./cmd/mkrelease -version 1.1.0 -epoch 1764000000 -out "$upd/feed" -sign-key "$upd/key/forgesync.key" "windows=$upd/dist" > /dev/null ||
  fail "mkrelease of the test release"
uport=$((20000 + RANDOM % 20000))
python3 -m http.server --bind 127.0.0.1 --directory "$upd/feed" "$uport" > /dev/null 2>&1 &
feedpid=$!
wait_for 30 curl -fsS "http://127.0.0.1:$uport/SHA256SUMS" || fail "the feed server did not start"
printf '[update]\r\nfeed = "http://127.0.0.1:%s/"\r\n' "$uport" > "$upd/f.toml"
ufs() { $WINE "$upd/inst/forgesync.exe" "$@" --config "$(winpath "$upd/f.toml")"; }
ufs update --yes > "$work/update.out" 2>&1 || { cat "$work/update.out"; fail "update under wine"; }
grep -q "updated forgesync 1.0.0 → 1.1.0" "$work/update.out" || { cat "$work/update.out"; fail "update did not say 1.0.0 → 1.1.0"; }
cmp -s "$upd/inst/forgesync.exe" "$upd/dist/forgesync.exe" || fail "forgesync.exe is not the release's after the update"
grep -q "module dist" "$upd/inst/modules/MJOLNIRLobby/dlls/forge_doors.dll" || fail "modules/ is not the release's after the update"
[ -e "$upd/inst/forgesync.exe.old" ] || fail "the running forgesync.exe was not renamed aside to forgesync.exe.old"
ufs version | grep -q "^forgesync 1.1.0 " || fail "the next run is not 1.1.0: $(ufs version)"
[ ! -e "$upd/inst/forgesync.exe.old" ] || fail "the next start left forgesync.exe.old"
ufs update --rollback --yes > "$work/rollback.out" 2>&1 || { cat "$work/rollback.out"; fail "update --rollback under wine"; }
ufs version | grep -q "^forgesync 1.0.0 " || fail "after the rollback the next run is not 1.0.0: $(ufs version)"
grep -q "module inst" "$upd/inst/modules/MJOLNIRLobby/dlls/forge_doors.dll" || fail "modules/ is not the old one after the rollback"
kill "$feedpid"; wait "$feedpid" 2>/dev/null || true

elapsed=$(($(date +%s) - start))
echo "wine-e2e: PASS in ${elapsed}s"
[ "$elapsed" -lt 180 ] || fail "took ${elapsed}s; the budget is 3 minutes"
