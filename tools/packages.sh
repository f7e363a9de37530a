#!/usr/bin/env bash
# Sourced by the build scripts: `ensure_packages PKG...` installs with apt-get
# (as root, or through sudo) the Debian packages that are not installed yet.
ensure_packages() {
  local missing=() p sudo=
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "ptxgen: installing ${missing[*]}" >&2
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
