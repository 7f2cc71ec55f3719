#!/bin/sh
# Docker build step (deploy/Dockerfile): after `pnpm build`, gathers one service's runtime files
# into /out (or $2) with production dependencies only:
#   /out/package.json, node_modules/           the workspace root (pnpm's virtual store)
#   /out/packages/<each>/{package.json,dist,node_modules}
#   /out/services/<service>/{package.json,dist,node_modules}
#   /out/deploy/healthcheck.mjs
# pnpm's links are relative, so the tree works wherever it is copied.
set -eu
service=$1
out=${2:-/out}
[ -d "services/$service" ] || { echo "assemble-service: no services/$service" >&2; exit 1; }

rm -rf node_modules packages/*/node_modules services/*/node_modules
pnpm install --prod --offline --frozen-lockfile --ignore-scripts --filter "@kairos/$service..."

rm -rf "$out" && mkdir -p "$out/deploy"
cp -a package.json node_modules "$out/"
for dir in packages/* "services/$service"; do
  mkdir -p "$out/$dir"
  cp -a "$dir/package.json" "$dir/dist" "$out/$dir/"
  if [ -d "$dir/node_modules" ]; then cp -a "$dir/node_modules" "$out/$dir/"; fi
done
cp deploy/healthcheck.mjs "$out/deploy/"
