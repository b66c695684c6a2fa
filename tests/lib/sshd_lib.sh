# SPDX-License-Identifier: MIT
# sshd_lib.sh — a private OpenSSH server for tests/cli/it_fleet_ssh.sh and bench/fleet_scale.sh (sourced, not
# run): its own host key, client keys, known_hosts and client config in one directory, listening on
# 127.0.0.N addresses only, so that nothing of this machine's ~/.ssh is used or changed (ssh -F FILE reads
# no ~/.ssh/config and creates no ~/.ssh; OpenSSH finds ~ from the passwd entry, not $HOME). Processes are
# stopped by pid. Needs root (sshd) and openssh-server/openssh-client.

# sshd_usable: 0 when this machine can run a private sshd here
sshd_usable() {
  [ "$(id -u)" = 0 ] && [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null
}

# sshd_port_free PORT: nothing listens on PORT on 127.0.0.2 (from /proc: no ss needed)
sshd_listening() {
  awk -v h="0200007F:$(printf '%04X' "$1")" '$2 == h && $4 == "0A" {f=1} END {exit !f}' /proc/net/tcp
}

# sshd_init DIR FIRST LAST: keys (host, client, other: a key no host knows) and the head of DIR/sshd_config
# listening on 127.0.0.FIRST..LAST at a free port (SSHD_PORT); DIR/authorized_keys holds the client key.
sshd_init() {
  SSHD_DIR=$1; SSHD_PID=""
  mkdir -p "$1" && chmod 700 "$1" || return 1
  for k in host client other; do ssh-keygen -q -t ed25519 -N '' -C "sshd-lib-$k" -f "$1/$k" || return 1; done
  cp "$1/client.pub" "$1/authorized_keys"
  SSHD_PORT=$((20000 + $$ % 20000)); while sshd_listening $SSHD_PORT; do SSHD_PORT=$((SSHD_PORT + 1)); done
  [ -d /run/sshd ] || mkdir -m 755 /run/sshd   # sshd's privilege separation directory (Debian's unit makes it)
  {
    for n in $(seq "$2" "$3"); do echo "ListenAddress 127.0.0.$n:$SSHD_PORT"; done
    cat <<EOF
HostKey $1/host
PidFile none
UsePAM no
StrictModes no
AuthorizedKeysFile $1/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowTcpForwarding yes
MaxStartups 200:30:400
MaxSessions 100
LogLevel INFO
EOF
  } > "$1/sshd_config"
  hk=$(cut -d' ' -f1-2 "$1/host.pub")
  for n in $(seq 2 254); do echo "[127.0.0.$n]:$SSHD_PORT $hk"; done > "$1/known_hosts"
  cat > "$1/config" <<EOF
Host *
  Port $SSHD_PORT
  User $(id -un)
  IdentityFile $1/client
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile $1/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  LogLevel ERROR
EOF
}

# sshd_env N PATH ENV...: a session on 127.0.0.N gets PATH and the NAME=VALUE words (Match + SetEnv)
sshd_env() {
  n=$1 p=$2; shift 2
  printf 'Match LocalAddress 127.0.0.%s\n  SetEnv PATH=%s %s\n' "$n" "$p" "$*" >> "$SSHD_DIR/sshd_config"
}

# sshd_alias NAME N: `ssh NAME` goes to 127.0.0.N (more lines for the entry may follow)
sshd_alias() {
  printf 'Host %s\n  HostName 127.0.0.%s\n' "$1" "$2" >> "$SSHD_DIR/config"
}

# sshd_start: starts it (log: SSHD_DIR/sshd.log) and waits until it listens; sets SSHD_PID. 1: cannot run.
sshd_start() {
  /usr/sbin/sshd -t -f "$SSHD_DIR/sshd_config" 2>"$SSHD_DIR/sshd-t.err" || return 1
  /usr/sbin/sshd -D -e -f "$SSHD_DIR/sshd_config" 2>"$SSHD_DIR/sshd.log" &
  SSHD_PID=$!
  i=0; while ! sshd_listening $SSHD_PORT; do
    i=$((i + 1)); [ $i -gt 200 ] && return 1; sleep 0.1
  done
}

sshd_descendants() {  # every live descendant of pid $1
  for c in $(pgrep -P "$1"); do echo "$c"; sshd_descendants "$c"; done
}

# sshd_stop: the server and every session it still has
sshd_stop() {
  [ -n "${SSHD_PID:-}" ] || return 0
  kill "$SSHD_PID" $(sshd_descendants "$SSHD_PID") 2>/dev/null
  SSHD_PID=""
}
