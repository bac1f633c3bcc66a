# shellcheck shell=bash
# private_ca DIR: a private CA (DIR/ca.pem) and a server certificate signed by it for localhost
# and 127.0.0.1 (DIR/server.pem, DIR/server.key), as a team makes them for `assent serve
# --tls-cert/--tls-key`; a client trusts it by ASSENT_CA_FILE=DIR/ca.pem. Valid for two days.
# Sourced by the package test and benches/gate_tls.sh. Needs openssl (scripts/deps.sh).
private_ca() {
  local dir=$1
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=Assent private CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
    -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$dir/ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
    -days 2 -extfile "$dir/ext" -out "$dir/server.pem" 2>/dev/null
}
