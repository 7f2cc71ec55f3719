#!/bin/sh
# Docker build step (deploy/Dockerfile, stage services-files): after `pnpm build`, gathers the
# services' runtime files with production dependencies only, in one install for all of them:
#   /out/common/package.json, node_modules/                 the workspace root (pnpm's virtual store)
#   /out/common/packages/<each>/{package.json,dist,node_modules}
#   /out/common/services/<service>/{package.json,node_modules}   for each service named
#   /out/common/deploy/healthcheck.mjs
#   /out/<service>/services/<service>/dist                  what differs between the images
# One install instead of one per service: the four images share /out/common as one layer; each
# carries the others' few production packages (a few MB) in exchange. pnpm's links are relative,
# so the tree works wherever it is copied.
# Usage: assemble-service.sh <service>... (output in /out, or $OUT)
set -eu
out=${OUT:-/out}
[ "$#" -gt 0 ] || { echo "assemble-service: name at least one service" >&2; exit 1; }
filters=""
for service in "$@"; do
  [ -d "services/$service" ] || { echo "assemble-service: no services/$service" >&2; exit 1; }
  filters="$filters --filter @kairos/$service..."
done

rm -rf node_modules packages/*/node_modules services/*/node_modules
# shellcheck disable=SC2086 # one --filter per service
pnpm install --prod --offline --frozen-lockfile --ignore-scripts $filters

rm -rf "$out" && mkdir -p "$out/common/deploy"
cp -a package.json node_modules "$out/common/"
for dir in packages/*; do
  mkdir -p "$out/common/$dir"
  cp -a "$dir/package.json" "$dir/dist" "$out/common/$dir/"
  if [ -d "$dir/node_modules" ]; then cp -a "$dir/node_modules" "$out/common/$dir/"; fi
done
for service in "$@"; do
  mkdir -p "$out/common/services/$service" "$out/$service/services/$service"
  cp -a "services/$service/package.json" "$out/common/services/$service/"
  if [ -d "services/$service/node_modules" ]; then cp -a "services/$service/node_modules" "$out/common/services/$service/"; fi
  cp -a "services/$service/dist" "$out/$service/services/$service/"
done
cp deploy/healthcheck.mjs "$out/common/deploy/"
