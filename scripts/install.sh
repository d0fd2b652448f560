#!/usr/bin/env bash
# `make install`: the modules through `apxs -i`, their a2enmod files, and
# travelctl. The Makefile passes the folders (see its "make install" part);
# DESTDIR is prepended to every path written and to none written into files.
set -euo pipefail
: "${APXS:?} ${LIBEXECDIR:?} ${SYSCONFDIR:?} ${BINDIR:?} ${DATADIR:?} ${B:?}"
DESTDIR=${DESTDIR:-}
SANDBOX=${SANDBOX:-yes}
root=$(cd "$(dirname "$0")/.." && pwd)
mods="$DESTDIR$SYSCONFDIR/mods-available"

# The a2enmod files carry the final paths (without DESTDIR).
render() { sed -e "s|@LIBEXECDIR@|$LIBEXECDIR|g" -e "s|@DATADIR@|$DATADIR|g" "$1"; }

# A file the administrator edits is kept: the new one goes beside it.
install_conf() {
  local src=$1 dest=$2 tmp
  tmp=$(mktemp)
  render "$src" >"$tmp"
  if [ -e "$dest" ] && ! cmp -s "$tmp" "$dest"; then
    install -m 644 "$tmp" "$dest.dist"
    echo "kept the existing $dest; the new one is $dest.dist"
  else
    install -m 644 "$tmp" "$dest"
  fi
  rm -f "$tmp"
}

install_module() {
  local name=$1
  # apxs -i installs into LIBEXECDIR, which -S points under DESTDIR.
  "$APXS" -i -S LIBEXECDIR="$DESTDIR$LIBEXECDIR" -n "$name" "$B/mod_$name.la" >"$B/install.log" 2>&1 \
    || { cat "$B/install.log" >&2; exit 1; }
  render "$root/apxs/$name.load" >"$mods/$name.load.tmp"
  chmod 644 "$mods/$name.load.tmp"
  mv -f "$mods/$name.load.tmp" "$mods/$name.load"
  install_conf "$root/apxs/$name.conf" "$mods/$name.conf"
  echo "installed $LIBEXECDIR/mod_$name.so and $SYSCONFDIR/mods-available/$name.{load,conf}"
}

install -d "$DESTDIR$LIBEXECDIR" "$mods" "$DESTDIR$BINDIR"
install_module travel
install -m 755 "$root/bin/travelctl" "$DESTDIR$BINDIR/travelctl"
echo "installed $BINDIR/travelctl"
if [ "$SANDBOX" != no ]; then
  install_module travel_sandbox
  # The sandbox keeps its own tables (schema sandbox): its own migrations,
  # which a production database never receives from travelctl.
  install -m 755 "$root/bin/sandboxctl" "$DESTDIR$BINDIR/sandboxctl"
  echo "installed $BINDIR/sandboxctl"
  install -d "$DESTDIR$DATADIR/openflights"
  install -m 644 "$root"/data/openflights/* "$DESTDIR$DATADIR/openflights/"
  echo "installed the sandbox's data in $DATADIR/openflights"
fi
echo "next: docs/install.md (a2enmod travel, the secret key, the database, configtest)"
