#!/bin/sh
# Cache benchmarks (make bench): key throughput in MB/s of body tokens, median latency of a
# local hit, and median latency of a remote hit (read-through into an empty cache) against a
# loopback nginx when nginx is installed. Builds the cache_torture driver optimized for this.
set -u
src=${CH_CC_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/ch-cc-bench-cache.XXXXXX")
ngpid=
trap '[ -n "$ngpid" ] && kill $ngpid 2>/dev/null; rm -rf "$work"' EXIT
bin="$work/cache_torture"
${BUILD_CC:-cc} -std=c11 -O2 -Iinclude -D_GNU_SOURCE -DCH_CC_VERSION='"bench"' \
    tests/fakes/cache_torture.c -Wl,--start-group build/lib/libchcache.a build/lib/libharness.a \
    -Wl,--end-group -L/usr/lib/llvm-14/lib -Wl,-rpath,/usr/lib/llvm-14/lib -lclang -lcjson \
    -lxxhash -lcurl -lsodium -lisl -lpthread -lm -ldl -o "$bin" || exit 1
remote=
if command -v nginx >/dev/null 2>&1; then
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    ng="$work/nginx"
    mkdir -p "$ng/www/cache" "$ng/tmp"
    user=; [ "$(id -u)" = 0 ] && user="user root;"
    cat >"$ng/nginx.conf" <<CONF
$user
worker_processes 1;
error_log $ng/error.log;
pid $ng/nginx.pid;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $ng/tmp/body;
    proxy_temp_path $ng/tmp/proxy;
    fastcgi_temp_path $ng/tmp/fastcgi;
    uwsgi_temp_path $ng/tmp/uwsgi;
    scgi_temp_path $ng/tmp/scgi;
    server {
        listen 127.0.0.1:$port;
        root $ng/www;
        client_max_body_size 1g;
        location /cache/ { dav_methods PUT; create_full_put_path on; }
    }
}
CONF
    nginx -p "$ng" -c "$ng/nginx.conf" -g 'daemon off;' 2>/dev/null &
    ngpid=$!
    for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.05; done
    remote="http://127.0.0.1:$port/cache/"
    # remote entries are read only when signed by a trusted key
    build/bin/ch-cc --harness-keygen="$work/keys" >/dev/null || exit 1
    export CH_CC_SIGN_KEY="$work/keys/ch-cc-sign.key" CH_CC_TRUSTED_KEYS="$work/keys/ch-cc-sign.pub"
fi
CH_CC_REMOTE="$remote" "$bin" bench "$work/cache" | while read -r name value; do
    case $name in
    key_throughput_MBps) printf '%-28s %10s MB/s\n' "cache key throughput" "$value" ;;
    local_hit_us_median) printf '%-28s %10s us (median)\n' "cache local hit" "$value" ;;
    remote_hit_us_median) printf '%-28s %10s us (median, loopback nginx)\n' "cache remote hit" "$value" ;;
    esac
done
[ -n "$remote" ] || echo "cache remote hit: skipped (nginx not installed)"
