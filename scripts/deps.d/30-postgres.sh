#!/usr/bin/env bash
# PostgreSQL for the team-mode tests: they start a throwaway cluster of their own with the
# package's initdb (as the `postgres` user), never the system cluster on 5432.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! dpkg-query -W -f='${Status}' postgresql 2>/dev/null | grep -q "install ok installed"; then
  echo "==> installing PostgreSQL (throwaway clusters in tests)"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql
fi
