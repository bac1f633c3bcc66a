# Shared by the load benchmarks (sourced, after `WORK=$(mktemp -d)`): a free port, and a
# throwaway PostgreSQL cluster with fsync on in $WORK/pg, never the system one.

PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

# Runs a PostgreSQL tool as the postgres user when root (initdb refuses root).
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

free_port() {
    python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
}

# pg_start: initdb and start the cluster on its own port and socket dir; sets PGPORT and PG
# (the URL without a database).
pg_start() {
    [ "$(id -u)" -eq 0 ] && chown postgres "$WORK"
    PGPORT=$(free_port)
    as_pg "$PGBIN/initdb" -D "$WORK/pg" -A trust -U assent >/dev/null
    as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg.log" -w start \
        -o "-p $PGPORT -k $WORK -c listen_addresses=127.0.0.1 -c max_connections=200" >/dev/null
    PG="postgres://assent@127.0.0.1:$PGPORT"
}

# pg_stop: stops the cluster (at exit; quiet when it never started).
pg_stop() { as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" stop -m fast >/dev/null 2>&1 || true; }

# createdb NAME: a database in the cluster.
pg_createdb() { "$PGBIN/createdb" -h 127.0.0.1 -p "$PGPORT" -U assent "$1"; }
