#!/usr/bin/env bash
# The documented production path, in a copy of the repository: npm ci && npm run build &&
# npm prune --omit=dev, then `node dist/server.js` and `npm start` (no TypeScript left) must serve.
set -euo pipefail
cd "$(dirname "$0")/.."
# Not 4190: fetch refuses that port (sieve) by the Fetch standard.
PORT=${DEPLOY_CHECK_PORT:-4185}
WORK=$(mktemp -d /tmp/redflag-deploy-XXXXXX)
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$WORK"
cd "$WORK"
npm ci --no-audit --no-fund --loglevel=error
npm run build --silent
npm prune --omit=dev --no-audit --no-fund --loglevel=error
if [ -e node_modules/typescript ] || [ -e node_modules/vitest ]; then
  echo "FAIL: dev dependencies are still installed after npm prune --omit=dev"; exit 1
fi

serves() {
  # A first start runs initdb and the migrations: tens of seconds on a loaded 2-core machine.
  for _ in $(seq 1 360); do
    if node -e "fetch('http://127.0.0.1:$PORT/readyz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"; then return 0; fi
    sleep 0.5
  done
  return 1
}

for how in "node dist/server.js" "npm start --silent"; do
  env -u DATABASE_URL -u REDIS_URL PORT=$PORT REDFLAG_DATA_DIR="$WORK/data" LOG_LEVEL=warn $how &
  SERVER_PID=$!
  if ! serves; then echo "FAIL: '$how' did not answer /readyz 200 after the production install"; exit 1; fi
  # npm start runs node as its child: stop the whole group the same way an orchestrator would.
  pkill -TERM -P "$SERVER_PID" 2>/dev/null || true
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" || true
  SERVER_PID=
  echo "ok: '$how' serves after npm ci && npm run build && npm prune --omit=dev"
done
