#!/bin/bash
# TLS, client certificates, bcrypt basic auth, security headers and the rate
# limit of an exporter-toolkit web config, checked with curl; certificates
# are made here with openssl.  SIGHUP rereads the file.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

for tool in openssl curl python3; do
	command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed" >&2; exit 1; }
done

# ---- certificates ----
P="$TMP/pki"
mkdir -p "$P"
mkcert() {   # mkcert NAME CA SUBJECT EXTENSIONS
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$P/$1.key" \
		-out "$P/$1.csr" -subj "/CN=$3" 2>/dev/null
	printf '%b\n' "$4" >"$P/$1.ext"
	openssl x509 -req -in "$P/$1.csr" -CA "$P/$2.crt" -CAkey "$P/$2.key" -CAcreateserial \
		-days 2 -out "$P/$1.crt" -extfile "$P/$1.ext" 2>/dev/null
}
for ca in ca otherca; do
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$P/$ca.key" \
		-out "$P/$ca.crt" -subj "/CN=gpuscope test $ca" -days 2 \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign 2>/dev/null
done
mkcert server ca "127.0.0.1" "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth"
mkcert server2 otherca "127.0.0.1" "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth"
mkcert scraper ca "scraper" "subjectAltName=DNS:scraper.example\nextendedKeyUsage=clientAuth"
mkcert stranger ca "stranger" "subjectAltName=DNS:other.example\nextendedKeyUsage=clientAuth"
mkcert forged otherca "scraper" "subjectAltName=DNS:scraper.example\nextendedKeyUsage=clientAuth"
CHECKS=$((CHECKS + 1))
[ -s "$P/server.crt" ] && [ -s "$P/scraper.crt" ] && [ -s "$P/forged.crt" ] || fail "openssl made no certificates"

# bcrypt hashes in the $2y$ form htpasswd writes (cost 4 keeps the test quick)
bcrypt() {
	python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))' "$1" |
		sed 's/^\$2b\$/$2y$/'
}
H1=$(bcrypt 'first password')
H2=$(bcrypt 'second: password')
CHECKS=$((CHECKS + 1))
case "$H1" in '$2y$04$'*) ;; *) fail "no bcrypt hash: '$H1'";; esac

CA=(--cacert "$P/ca.crt")

# ---- TLS and basic auth ----
cat >"$TMP/web.yml" <<EOF
tls_server_config:
  cert_file: pki/server.crt
  key_file: pki/server.key
http_server_config:
  headers:
    X-Frame-Options: deny
    X-Content-Type-Options: nosniff
basic_auth_users:
  prometheus: '$H1'
EOF
start_exporter "$SCEN/a100-pcie-x8.ini" --web-config "$TMP/web.yml"
CHECKS=$((CHECKS + 1))
case "$BASE" in https://*) ;; *) fail "the exporter does not announce https: $BASE";; esac
get /metrics "${CA[@]}"
expect_code 401 "no credentials"
CHECKS=$((CHECKS + 1))
grep -qi '^WWW-Authenticate: Basic' "$TMP/hdrs" || fail "401 without WWW-Authenticate"
get /metrics "${CA[@]}" -u 'prometheus:wrong'
expect_code 401 "wrong password"
get /metrics "${CA[@]}" -u 'nobody:first password'
expect_code 401 "unknown user"
get /metrics "${CA[@]}" -u 'prometheus:first password'
expect_code 200 "right password"
has 'DCGM_FI_DEV_PCIE_LINK_WIDTH{gpu="2",'
CHECKS=$((CHECKS + 1))
grep -qi '^X-Frame-Options: deny' "$TMP/hdrs" || fail "configured header missing: $HDRS"
get /health "${CA[@]}"
expect_code 401 "/health is protected too"
# the same password again: served from the cache, quickly
CHECKS=$((CHECKS + 1))
T=$(curl -s --max-time 5 "${CA[@]}" -u 'prometheus:first password' -o /dev/null -w '%{time_total}' "$BASE/metrics")
awk -v t="$T" 'BEGIN { exit !(t < 0.5) }' || fail "an authenticated scrape took $T s"
# plain HTTP on the TLS port, and a client that does not trust the CA, get nothing
CHECKS=$((CHECKS + 1))
C=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://${BASE#https://}/metrics")
[ "$C" != 200 ] || fail "plain HTTP was served on the TLS port"
CHECKS=$((CHECKS + 1))
curl -s --max-time 5 --cacert "$P/otherca.crt" -o /dev/null "$BASE/metrics" &&
	fail "a client that does not trust the CA was served"
# TLS 1.0 is below the default minimum (TLS 1.2)
CHECKS=$((CHECKS + 1))
curl -s --max-time 5 "${CA[@]}" --tls-max 1.1 -u 'prometheus:first password' -o /dev/null "$BASE/metrics" &&
	fail "TLS 1.1 was accepted"

# ---- SIGHUP: a new password, then a broken file (the old one stays) ----
sed -i "s|'\\\$2y\\\$04\\\$.*'|'$H2'|" "$TMP/web.yml"
grep -qF "$H2" "$TMP/web.yml" || fail "test setup: the hash was not replaced"
kill -HUP "$EXP_PID"
for i in $(seq 1 50); do
	grep -q "reloaded" "$EXP_LOG" && break
	sleep 0.1
done
get /metrics "${CA[@]}" -u 'prometheus:first password'
expect_code 401 "old password after reload"
get /metrics "${CA[@]}" -u 'prometheus:second: password'
expect_code 200 "new password after reload"
echo "unknown_key: 1" >>"$TMP/web.yml"
kill -HUP "$EXP_PID"
for i in $(seq 1 50); do
	grep -q "keeping the previous web config" "$EXP_LOG" && break
	sleep 0.1
done
CHECKS=$((CHECKS + 1))
grep -q "web.yml:.*unknown field 'unknown_key'" "$EXP_LOG" || fail "bad reload not reported: $(cat "$EXP_LOG")"
get /metrics "${CA[@]}" -u 'prometheus:second: password'
expect_code 200 "the previous config after a bad reload"
# a new certificate from another CA, without a restart
cat >"$TMP/web.yml" <<EOF
tls_server_config:
  cert_file: $P/server2.crt
  key_file: $P/server2.key
EOF
kill -HUP "$EXP_PID"
CHECKS=$((CHECKS + 1))
OK=""
for i in $(seq 1 50); do
	if curl -s --max-time 2 --cacert "$P/otherca.crt" -o /dev/null "$BASE/metrics"; then
		OK=1
		break
	fi
	sleep 0.1
done
[ -n "$OK" ] || fail "the rotated certificate is not served"
get /metrics --cacert "$P/otherca.crt"
expect_code 200 "no basic auth after reload"
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC"

# ---- client certificates: RequireAndVerifyClientCert with allowed SANs ----
cat >"$TMP/mtls.yml" <<EOF
tls_server_config:
  cert_file: $P/server.crt
  key_file: $P/server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: $P/ca.crt
  client_allowed_sans: [scraper.example]
  min_version: TLS13
EOF
start_exporter "$SCEN/a100-pcie-x8.ini" --web-config "$TMP/mtls.yml"
get /metrics "${CA[@]}" --cert "$P/scraper.crt" --key "$P/scraper.key"
expect_code 200 "a trusted client certificate with an allowed SAN"
has 'gpu_up{gpu="0",'
CHECKS=$((CHECKS + 1))
curl -s --max-time 5 "${CA[@]}" -o /dev/null "$BASE/metrics" && fail "served without a client certificate"
CHECKS=$((CHECKS + 1))
curl -s --max-time 5 "${CA[@]}" --cert "$P/forged.crt" --key "$P/forged.key" -o /dev/null "$BASE/metrics" &&
	fail "served a client certificate from an untrusted CA"
CHECKS=$((CHECKS + 1))
curl -s --max-time 5 "${CA[@]}" --cert "$P/stranger.crt" --key "$P/stranger.key" -o /dev/null "$BASE/metrics" &&
	fail "served a client whose SAN is not allowed"
CHECKS=$((CHECKS + 1))
curl -s --max-time 5 "${CA[@]}" --tls-max 1.2 --cert "$P/scraper.crt" --key "$P/scraper.key" -o /dev/null \
	"$BASE/metrics" && fail "TLS 1.2 accepted with min_version TLS13"
stop_exporter TERM

# ---- the commented reference deploy/web-config.yml works as it is ----
mkdir -p "$TMP/ref"
cp "$SRCDIR/deploy/web-config.yml" "$TMP/ref/web-config.yml"
cp "$P/server.crt" "$TMP/ref/gpuscope.crt"
cp "$P/server.key" "$TMP/ref/gpuscope.key"
start_exporter "$SCEN/a100-pcie-x8.ini" --web-config "$TMP/ref/web-config.yml"
get /metrics "${CA[@]}"
expect_code 200 "deploy/web-config.yml"
CHECKS=$((CHECKS + 1))
grep -qi '^Strict-Transport-Security: max-age=31536000' "$TMP/hdrs" || fail "reference config headers: $HDRS"
stop_exporter TERM

# ---- a config the toolkit refuses is refused at start: exit 2 with the place ----
printf 'tls_server_config:\n  cert_file: %s\n  client_ca_file: %s\n' "$P/server.crt" "$P/ca.crt" >"$TMP/bad.yml"
FAKE_NVML_SCENARIO="$SCEN/a100-pcie-x8.ini" run export --nvml "$FAKE" --listen 127.0.0.1:0 --web-config "$TMP/bad.yml"
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 2 ] || fail "bad web config: exit $RC, want 2"
expect_err "bad.yml:"
expect_err "missing one of key or key_file"
# mutual-TLS settings with no certificate to serve them with: refused, never served as plain HTTP
for setting in "client_allowed_sans: [scraper.example]" "client_auth_type: RequireAnyClientCert" \
	"min_version: TLS13" "cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]"; do
	printf 'tls_server_config:\n  %s\n' "$setting" >"$TMP/nocert.yml"
	FAKE_NVML_SCENARIO="$SCEN/a100-pcie-x8.ini" run export --nvml "$FAKE" --listen 127.0.0.1:0 \
		--web-config "$TMP/nocert.yml"
	CHECKS=$((CHECKS + 1))
	[ "$RC" -eq 2 ] || fail "'$setting' without a certificate: exit $RC, want 2"
	expect_err "nocert.yml:2:3: field '${setting%%:*}'"
done

# ---- the rate limit: burst 2, then 429 ----
printf 'rate_limit:\n  interval: 1h\n  burst: 2\n' >"$TMP/rate.yml"
start_exporter "$SCEN/a100-pcie-x8.ini" --web-config "$TMP/rate.yml"
get /health
expect_code 200 "first request"
get /health
expect_code 200 "second request"
get /metrics
expect_code 429 "third request"
stop_exporter TERM

finish
