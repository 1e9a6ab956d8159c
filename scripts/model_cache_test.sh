#!/usr/bin/env bash
# The model zoo (examples/zoo, 20 models through anvil_model_library) on a remote cache:
#  1. starts nginx (Debian's nginx-light, WebDAV PUT) on a free loopback port, serving a cache
#     directory in a temporary dir: the HTTP protocol of Bazel's --remote_cache (GET/PUT /ac/,
#     /cas/);
#  2. builds the zoo in a clean output base with --config=cache (sandboxed actions, a strict
#     action environment) and --remote_cache: every action runs here and is uploaded;
#  3. wipes that output base and builds again in a new one: every action must be a remote cache
#     hit (Bazel's process summary lists no locally executed process);
#  4. compares the zoo's outputs (generated sources, weights, objects, libraries) of build 1 with
#     those of this workspace's own output base (built here first, if not up to date): two
#     output bases, byte-identical;
#  5. builds with --disk_cache too in a third output base (filled from the remote cache), then
#     with --disk_cache alone in a fourth: all hits;
#  6. analyzes the zoo with --config=remote (the farm's execution platform, .bazelrc): this
#     machine has no farm, so remote execution itself is not run.
# Prints the wall time of each build and ends "model cache test: passed" or "... FAILED: why".
# Cost: build 1 compiles anvil-compile and the kernel host from scratch (about 10 minutes on 2
# cores); the others take about a minute each. Needs root for apt (scripts/setup.sh).
#   scripts/model_cache_test.sh [--keep]   --keep leaves the temporary directory
set -uo pipefail
cd "$(dirname "$0")/.."

keep=0
[[ "${1:-}" == "--keep" ]] && keep=1
scripts/setup.sh || exit 1

work=$(mktemp -d /tmp/anvil-model-cache.XXXXXX)
targets=(//examples/zoo:zoo //examples/zoo:zoo_sources)
nginx_pid=""
failures=()
cleanup() {
  [[ -n "$nginx_pid" ]] && kill "$nginx_pid" 2>/dev/null
  for ob in "$work"/ob*; do [[ -d "$ob" ]] && bazel --output_base="$ob" shutdown 2>/dev/null; done
  if ((keep)); then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/cache" "$work/nginx"
cat > "$work/nginx/nginx.conf" <<CONF
user root;
worker_processes 1;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 256; }
http {
  client_body_temp_path $work/nginx/body;
  access_log off;
  server {
    listen 127.0.0.1:$port;
    client_max_body_size 0;
    location / {
      root $work/cache;
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
CONF
/usr/sbin/nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
nginx_pid=$!
for _ in $(seq 50); do
  curl_ok=$(/usr/bin/python3 - "$port" <<'PY'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen("http://127.0.0.1:%s/ac/none" % sys.argv[1], timeout=1)
except urllib.error.HTTPError as e:
    print("up" if e.code == 404 else "")
except Exception:
    print("")
PY
)
  [[ "$curl_ok" == up ]] && break
  sleep 0.2
done
if [[ "$curl_ok" != up ]]; then
  echo "model cache test: FAILED: nginx did not start on 127.0.0.1:$port"; cat "$work/nginx/error.log"
  exit 1
fi
echo "== remote cache: nginx on http://127.0.0.1:$port (WebDAV PUT into $work/cache)"

# Runs `bazel build` in output base $1 with the remaining flags; keeps its log in $work/$1.log and
# sets `seconds` and `processes` (the "INFO: N processes: ..." summary).
build() {
  local ob=$1; shift
  local start=$SECONDS
  # --symlink_prefix=/: no bazel-* links, which would otherwise point this workspace at the
  # temporary output base (and scripts/test.sh's count at its missing test logs).
  bazel --output_base="$work/$ob" build --symlink_prefix=/ "$@" "${targets[@]}" \
    > "$work/$ob.log" 2>&1
  local rc=$?
  seconds=$((SECONDS - start))
  processes=$(grep -E "INFO: [0-9]+ process(es)?[:.]" "$work/$ob.log" | tail -1 | sed 's/^INFO: //')
  if ((rc != 0)); then
    failures+=("build in $ob failed (exit $rc)"); tail -20 "$work/$ob.log"
  fi
  return $rc
}

cache_flags=(--config=cache --remote_cache="http://127.0.0.1:$port")
echo "== build 1: clean output base, --config=cache, uploading to the cache"
build ob1 "${cache_flags[@]}"
first=$seconds
echo "   $first s; $processes"
outputs1=$(bazel --output_base="$work/ob1" info "${cache_flags[@]}" output_path 2>/dev/null)
mkdir -p "$work/outputs1"
cp -r "$outputs1"/*/bin/examples/zoo "$work/outputs1/" 2>/dev/null
bazel --output_base="$work/ob1" shutdown
rm -rf "$work/ob1"
echo "   (output base wiped; the cache holds $(du -sh "$work/cache" | cut -f1))"

echo "== build 2: another clean output base, the same flags, from the cache"
build ob2 "${cache_flags[@]}"
echo "   $seconds s ($(( 100 * seconds / (first > 0 ? first : 1) ))% of build 1); $processes"
# Anything but remote cache hits and Bazel's internal bookkeeping ran here.
local_runs=$(echo "$processes" | sed 's/^[0-9]* processes*: //' | tr ',' '\n' |
  grep -vE "remote cache hit|internal" | sed 's/^ *//;s/\.$//')
if [[ -n "$local_runs" ]]; then
  failures+=("build 2 executed processes instead of taking them from the cache: $local_runs")
fi

echo "== --config=remote: the farm's platform and toolchain resolve (analysis; no farm here)"
if bazel --output_base="$work/ob2" build --symlink_prefix=/ --config=remote --nobuild \
    "${targets[@]}" \
    > "$work/remote.log" 2>&1; then
  echo "   analysis passed"
else
  failures+=("--config=remote does not analyze"); tail -5 "$work/remote.log"
fi

echo "== reproducibility: build 1's zoo outputs against this workspace's output base"
# This workspace's usual configuration (what `bazel test //...` built): the environment differs
# from --config=cache's, the outputs may not.
bazel build "${targets[@]}" > "$work/main.log" 2>&1 ||
  failures+=("building the zoo in this workspace failed")
main_out=$(bazel info output_path 2>/dev/null)
compared=0
differ=()
while IFS= read -r -d '' f; do
  rel=${f#"$work/outputs1/"}
  other=$(ls -d "$main_out"/*/bin/examples/"$rel" 2>/dev/null | head -1)
  if [[ -z "$other" ]]; then differ+=("$rel (missing here)"); continue; fi
  cmp -s "$f" "$other" || differ+=("$rel")
  compared=$((compared + 1))
done < <(find "$work/outputs1/zoo" -type f \( -name '*.cc' -o -name '*.h' -o -name '*.inc' \
  -o -name '*.o' -o -name '*.a' -o -name '*.so' \) -print0)
echo "   $compared files compared, ${#differ[@]} differ"
((compared >= 60)) || failures+=("only $compared zoo outputs to compare (expected >= 60: 20 models x sources, header, weights, objects)")
((${#differ[@]} == 0)) || failures+=("outputs differ between output bases: ${differ[*]}")

echo "== --disk_cache: a third output base filling it from the remote cache, a fourth from it alone"
build ob3 "${cache_flags[@]}" --disk_cache="$work/disk"
echo "   $seconds s; $processes"
bazel --output_base="$work/ob3" shutdown; rm -rf "$work/ob3"
build ob4 --config=cache --disk_cache="$work/disk"
echo "   $seconds s; $processes"
disk_local=$(echo "$processes" | sed 's/^[0-9]* processes*: //' | tr ',' '\n' |
  grep -vE "disk cache hit|remote cache hit|internal" | sed 's/^ *//;s/\.$//')
[[ -z "$disk_local" ]] || failures+=("the second --disk_cache build executed: $disk_local")

if ((${#failures[@]})); then
  echo "model cache test: FAILED: ${failures[*]}"
  exit 1
fi
echo "model cache test: passed"
