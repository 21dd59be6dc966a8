#!/usr/bin/env bash
# Install everything the build and the tests need, on a Debian machine that has only Rust
# (rustup), Node.js (>= 20 with npm) and apt. Idempotent: each step checks first and is skipped
# when its tool is already there, so a second run takes about a second.
#
#   1. rustup target wasm32-unknown-unknown (+ rustfmt, clippy, rust-src components)
#   2. wasm-bindgen CLI, exactly the version Cargo.toml pins (wasm-bindgen = "=X.Y.Z")
#   3. chromium + chromium-driver from apt, only if /usr/bin/chromium or /usr/bin/chromedriver is missing;
#      firefox-esr, webkit2gtk-driver, xvfb and xauth from apt, each only if missing (the page
#      tests' other engines);
#      binaryen from apt (wasm-split, which release builds cut the core in two with; npm's binaryen
#      has none), only if wasm-split is missing
#   4. npm ci in the repository root, only if node_modules is missing or older than package-lock.json
#
# Environment: SKIP_APT=1 skips step 3 (e.g. when a browser and wasm-split are provided another way).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

say() { printf 'deps: %s\n' "$*"; }
die() { printf 'deps: error: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
SUMMARY=()
timed() { # timed "label" command...
  local label=$1; shift
  local t0; t0=$(now)
  "$@"
  local t1; t1=$(now)
  SUMMARY+=("$(printf '%-34s %6.1f s' "$label" "$(awk "BEGIN{print $t1 - $t0}")")")
}

command -v cargo >/dev/null || die "cargo not found: install Rust with rustup (https://rustup.rs)"
command -v node >/dev/null || die "node not found: install Node.js 20.19+ or 22.12+"
command -v npm >/dev/null || die "npm not found: install Node.js 20.19+ or 22.12+ with npm"
# What Vite (and the DOM-emulation tests' process.getBuiltinModule) need.
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 22 || (a === 22 && b >= 12) || (a === 20 && b >= 19) ? 0 : 1)' ||
  die "Node.js 20.19+ or 22.12+ needed, found $(node --version)"

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else die "need root for: $*"
  fi
}

# 1. Rust target and components ------------------------------------------------------------------
rust_target() {
  if command -v rustup >/dev/null; then
    if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
      say "wasm32-unknown-unknown target: present"
    else
      say "adding rustup target wasm32-unknown-unknown"
      rustup target add wasm32-unknown-unknown
    fi
    local missing=()
    cargo fmt --version >/dev/null 2>&1 || missing+=(rustfmt)
    cargo clippy --version >/dev/null 2>&1 || missing+=(clippy)
    if [ ${#missing[@]} -gt 0 ]; then
      say "adding rustup components ${missing[*]}"
      rustup component add "${missing[@]}"
    fi
    # The standard library's sources: release builds compile std with the crate
    # (scripts/build.mjs). Without them the build links the prebuilt std, with a warning, and
    # the wasm modules are 7-11 % larger: a failure here does not stop the install.
    if [ ! -f "$(rustc --print sysroot)/lib/rustlib/src/rust/library/Cargo.lock" ]; then
      say "adding rustup component rust-src"
      rustup component add rust-src || say "warning: could not add rust-src; release builds will link the prebuilt std"
    fi
  else
    say "warning: rustup not found; assuming the wasm32-unknown-unknown std is installed"
  fi
}
timed "rust target + components" rust_target

# 2. wasm-bindgen CLI matching the crate's pin ---------------------------------------------------
wasm_bindgen_cli() {
  local want
  want=$(sed -nE 's/^[[:space:]]*wasm-bindgen[[:space:]]*=[[:space:]]*"=?[[:space:]]*([0-9][^"]*)".*/\1/p' Cargo.toml | head -n1)
  if [ -z "$want" ]; then
    want=$(sed -nE 's/^[[:space:]]*wasm-bindgen[[:space:]]*=.*version[[:space:]]*=[[:space:]]*"=?[[:space:]]*([0-9][^"]*)".*/\1/p' Cargo.toml | head -n1)
  fi
  [ -n "$want" ] || die "could not read the wasm-bindgen version from Cargo.toml"
  local have=""
  if command -v wasm-bindgen >/dev/null; then
    have=$(wasm-bindgen --version | awk '{print $2}')
  fi
  if [ "$have" = "$want" ]; then
    say "wasm-bindgen CLI $want: present"
  else
    say "installing wasm-bindgen-cli $want (found: ${have:-none}); takes ~3 minutes"
    # No --locked: the CLI's lock file names a crate version the registry here lacks.
    cargo install wasm-bindgen-cli --version "$want"
    hash -r
    have=$(wasm-bindgen --version | awk '{print $2}')
    [ "$have" = "$want" ] || die "wasm-bindgen on PATH is $have, wanted $want (is ~/.cargo/bin first on PATH?)"
  fi
}
timed "wasm-bindgen CLI" wasm_bindgen_cli

# 3. Chromium and chromedriver -------------------------------------------------------------------
chromium_apt() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    say "chromium + chromedriver: present"
  elif [ "${SKIP_APT:-}" = 1 ]; then
    say "chromium or chromedriver missing, SKIP_APT=1: not installing"
  else
    say "installing chromium + chromium-driver with apt (~35 s)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver
  fi
}
timed "chromium (apt)" chromium_apt

# The other engines: tests/page/firefox.test.mjs runs the package in Firefox ESR (puppeteer-core
# drives it over WebDriver BiDi; no driver binary needed), tests/page/webkit.test.mjs in WebKitGTK's
# MiniBrowser through its WebKitWebDriver, on a virtual display (xvfb-run).
engines_apt() {
  local missing=()
  [ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)
  [ -x /usr/bin/WebKitWebDriver ] || missing+=(webkit2gtk-driver)
  [ -x /usr/bin/xvfb-run ] || missing+=(xvfb)
  command -v xauth >/dev/null || missing+=(xauth)
  if [ ${#missing[@]} -eq 0 ]; then
    say "firefox-esr, webkit2gtk-driver, xvfb: present"
  elif [ "${SKIP_APT:-}" = 1 ]; then
    say "${missing[*]} missing, SKIP_APT=1: not installing"
  else
    say "installing ${missing[*]} with apt (~1 min)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}" ||
      { as_root env DEBIAN_FRONTEND=noninteractive apt-get update && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; }
  fi
}
timed "firefox-esr + webkit (apt)" engines_apt

binaryen_apt() {
  if command -v wasm-split >/dev/null; then
    say "wasm-split (binaryen): present"
  elif [ "${SKIP_APT:-}" = 1 ]; then
    say "wasm-split missing, SKIP_APT=1: not installing (release builds need it)"
  else
    say "installing binaryen with apt (wasm-split)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y binaryen ||
      { as_root env DEBIAN_FRONTEND=noninteractive apt-get update && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y binaryen; }
  fi
}
timed "binaryen (apt)" binaryen_apt

# 4. npm packages --------------------------------------------------------------------------------
npm_packages() {
  local stamp=node_modules/.deps-stamp
  if [ -f "$stamp" ] && [ ! package.json -nt "$stamp" ] &&
     { [ ! -f package-lock.json ] || [ ! package-lock.json -nt "$stamp" ]; }; then
    say "node_modules: up to date"
    return
  fi
  if [ -f package-lock.json ]; then
    say "npm ci"
    # The lock holds only the platform packages the registry serves here (the bundlers'
    # optional native builds for other systems are absent from it), and npm ci refuses a lock
    # without them. npm install --no-save then installs the same locked versions and leaves
    # package-lock.json as it is.
    if ! npm ci --no-audit --no-fund; then
      say "npm ci refused the lock; npm install --no-save with the same lock"
      npm install --no-audit --no-fund --no-save
    fi
  else
    say "npm install (no package-lock.json yet)"
    npm install --no-audit --no-fund
  fi
  touch "$stamp"
}
timed "npm packages" npm_packages

[ -x node_modules/.bin/wasm-opt ] || die "node_modules/.bin/wasm-opt missing after npm install"

say "done:"
for line in "${SUMMARY[@]}"; do printf '  %s\n' "$line"; done
