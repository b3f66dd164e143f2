# The broker's optional SASL_SSL listener, as production clusters run it (sourced by
# scripts/kafka-start.sh when KAFKA_SASL_SSL=1): TLS with a certificate signed by a CA made here
# with openssl, and SCRAM-SHA-512 users created when the KRaft store is formatted.
#
# Everything lives in $KAFKA_DIR/sasl-ssl/ and is made once, then reused (the start stays fast):
#   ca.pem                 the CA clients must trust (kafka.ssl.ca)
#   ca.key, broker.pem     the CA's key, the broker's key + certificate chain (PEM keystore)
#   client.json            { brokers, ca, mechanism, users: { tracescore: pw, collector: pw } } (mode 600)
# Passwords are random per state dir: the test broker has no known default secret.
KAFKA_SASL_SSL_PORT=${KAFKA_SASL_SSL_PORT:-$((KAFKA_PORT + 2))}
SASL_SSL_DIR=$KAFKA_DIR/sasl-ssl
SASL_SSL_CLIENT=$SASL_SSL_DIR/client.json
SASL_SSL_USERS=(tracescore collector)

# Makes the CA, the broker certificate (for 127.0.0.1 and localhost) and the users' passwords,
# unless they exist already.
sasl_ssl_prepare() {
  mkdir -p "$SASL_SSL_DIR"
  local d=$SASL_SSL_DIR
  if [[ ! -s "$d/broker.pem" || ! -s "$d/ca.pem" ]] || ! openssl x509 -checkend 86400 -noout -in "$d/ca.pem" >/dev/null 2>&1; then
    (
      umask 077
      openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
        -keyout "$d/ca.key" -out "$d/ca.pem" -subj "/CN=tracescore test broker CA" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
        -keyout "$d/broker.key" -out "$d/broker.csr" -subj "/CN=localhost" 2>/dev/null
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$d/broker.ext"
      openssl x509 -req -in "$d/broker.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
        -days 825 -out "$d/broker.crt" -extfile "$d/broker.ext" 2>/dev/null
      # A PEM keystore: the (PKCS#8) key, then the chain.
      cat "$d/broker.key" "$d/broker.crt" "$d/ca.pem" >"$d/broker.pem"
      rm -f "$d/broker.csr" "$d/broker.ext" "$d/broker.key" "$d/broker.crt" "$d/ca.srl"
    )
    log "made a test CA and broker certificate in $d"
  fi
  if [[ ! -s "$SASL_SSL_CLIENT" ]]; then
    (
      umask 077
      local users='' user
      for user in "${SASL_SSL_USERS[@]}"; do users+="${users:+,}\"$user\":\"$(openssl rand -hex 16)\""; done
      printf '{"brokers":["127.0.0.1:%s"],"ca":"%s","mechanism":"scram-sha-512","users":{%s}}\n' \
        "$KAFKA_SASL_SSL_PORT" "$d/ca.pem" "$users" >"$SASL_SSL_CLIENT"
    )
  fi
}

# Password of a user from client.json.
sasl_ssl_password() {
  sed -E "s/.*\"$1\":\"([0-9a-f]+)\".*/\1/" "$SASL_SSL_CLIENT"
}

# `StorageTool format` arguments creating the SCRAM users.
sasl_ssl_format_args() {
  local user
  for user in "${SASL_SSL_USERS[@]}"; do
    printf '%s\n' --add-scram "SCRAM-SHA-512=[name=$user,password=$(sasl_ssl_password "$user")]"
  done
}

# Adds the SASL_SSL listener to a rendered server.properties (broker-to-broker and the
# controller stay on their PLAINTEXT listeners).
sasl_ssl_configure() {
  local props=$1 port=$KAFKA_SASL_SSL_PORT
  sed -i -E \
    -e "s|^(listeners=.*)$|\1,SASL_SSL://127.0.0.1:$port|" \
    -e "s|^(advertised.listeners=.*)$|\1,SASL_SSL://127.0.0.1:$port|" \
    -e "s|^(listener.security.protocol.map=.*)$|\1,SASL_SSL:SASL_SSL|" \
    "$props"
  cat >>"$props" <<EOF

# SASL_SSL listener (scripts/lib/kafka-sasl-ssl.sh): TLS + SCRAM-SHA-512.
sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$SASL_SSL_DIR/broker.pem
listener.name.sasl_ssl.ssl.client.auth=none
EOF
}
