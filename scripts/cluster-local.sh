#!/usr/bin/env bash
# Starts every node of a cluster config on this machine, as
#   GRIDVEC node --config CONFIG --name NAME
# one process per [node NAME] section, and stays in the foreground with each
# output line prefixed by its node's name. Ctrl-C or SIGTERM stops all nodes
# (SIGTERM, then SIGKILL after 5 s). A node that dies or exits with an error
# is reported and the others keep running: the cluster's supervisor restores
# a lost shard on another node (a `standby` one, as in
# examples/cluster-local.conf) and the job goes on. Nodes outlive jobs;
# those that exit by themselves with status 0 (`gridvec stop --config
# CONFIG`, or a job submitted with --shutdown) are left to finish; the
# script ends when every node has. Exit status: 0 if every node stopped
# cleanly, 1 if any failed, 2 on bad usage.
#
# Only ever starts processes on this machine, whatever the hosts in CONFIG:
# a node whose host is not an address of this machine fails to listen and
# says so. Format of CONFIG: docs/cluster-config.md.
#
# With --state-dir DIR (and optionally --port-base N), CONFIG is a template:
# the script writes DIR/cluster.conf, the same cluster with its secret and
# tables (relative `secret` and `table-dir`) in DIR, its other relative
# paths made absolute, DIR added to allow-read and allow-write, and its
# ports moved so that the lowest is N (the others keep their distances);
# the nodes then run from that file, and it is the one to give `gridvec
# submit` and `gridvec stop`. So a read-only CONFIG (an installed example)
# serves any number of users and clusters side by side.
#
# Usage: scripts/cluster-local.sh [--state-dir DIR [--port-base N]] CONFIG [GRIDVEC_BINARY]
#        GRIDVEC_BINARY defaults to what scripts/gridvec-path finds:
#        build/gridvec of a checkout, bin/gridvec of an installed package,
#        or gridvec on the PATH.
set -uo pipefail # not -e: node exit statuses are handled one by one below

me=cluster-local
say() { printf '%s: %s\n' "$me" "$*" >&2; }

usage() {
  echo "usage: $0 [--state-dir DIR [--port-base N]] CONFIG [GRIDVEC_BINARY]"
  echo "Starts every [node NAME] of the cluster config CONFIG on this machine with"
  echo "'GRIDVEC_BINARY node --config CONFIG --name NAME', prefixes their output with"
  echo "the node names and stops them all on Ctrl-C (or \`gridvec stop --config CONFIG\`)."
  echo "  --state-dir DIR  write DIR/cluster.conf from CONFIG, with the cluster secret"
  echo "                   and tables in DIR, and run the nodes from it"
  echo "  --port-base N    in DIR/cluster.conf, move the ports so that the lowest is N"
  echo "GRIDVEC_BINARY defaults to build/gridvec in a checkout, bin/gridvec of an"
  echo "installed package, or gridvec on the PATH."
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
state_dir=""
port_base=""
positional=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help)
      usage
      exit 0
      ;;
    --state-dir | --port-base)
      if [[ $# -lt 2 ]]; then
        say "$1 needs a value"
        exit 2
      fi
      [[ $1 == --state-dir ]] && state_dir=$2 || port_base=$2
      shift 2
      ;;
    -*)
      say "unknown option '$1'"
      usage >&2
      exit 2
      ;;
    *)
      positional+=("$1")
      shift
      ;;
  esac
done
if [[ ${#positional[@]} -lt 1 || ${#positional[@]} -gt 2 ]]; then
  usage >&2
  exit 2
fi
config=${positional[0]}
if [[ ${#positional[@]} -eq 2 ]]; then
  gridvec=${positional[1]}
else
  gridvec=$("$here/gridvec-path") || exit 2
fi
if [[ -n $port_base && -z $state_dir ]]; then
  say "--port-base needs --state-dir (the config with the new ports is written there)"
  exit 2
fi
if [[ -n $port_base ]] && ! [[ $port_base =~ ^[0-9]{1,5}$ && $port_base -ge 1 && $port_base -le 65535 ]]; then
  say "--port-base takes a port from 1 to 65535, got '$port_base'"
  exit 2
fi

if [[ ! -f $config || ! -r $config ]]; then
  say "cannot read cluster config '$config'"
  exit 2
fi
if [[ $gridvec == */* ]]; then
  if [[ ! -x $gridvec || -d $gridvec ]]; then
    say "no gridvec binary at '$gridvec' (build it with scripts/build.sh, or pass GRIDVEC_BINARY)"
    exit 2
  fi
elif ! command -v "$gridvec" > /dev/null; then
  say "no gridvec binary '$gridvec' on the PATH"
  exit 2
fi

# CONFIG as a template: DIR/cluster.conf, line by line (comments and keys
# this script does not know pass through unchanged).
if [[ -n $state_dir ]]; then
  mkdir -p "$state_dir" || exit 2
  state_dir=$(cd "$state_dir" && pwd)
  template_dir=$(cd "$(dirname "$config")" && pwd)
  shift_by=0
  if [[ -n $port_base ]]; then
    lowest=$(sed -n 's/^[ \t]*\(http-\)\{0,1\}port[ \t]*=[ \t]*\([0-9]\{1,5\}\).*/\2/p' "$config" | sort -n | head -n 1)
    if [[ -z $lowest ]]; then
      say "no ports in '$config' to move"
      exit 2
    fi
    shift_by=$((port_base - lowest))
  fi
  absolute() { # a path of the template, relative to its directory
    if [[ $1 == /* ]]; then printf '%s' "$1"; else realpath -m "$template_dir/$1"; fi
  }
  generated=$state_dir/cluster.conf
  {
    echo "# Written by cluster-local.sh from $(absolute "$config")"
    echo "# (state in $state_dir${port_base:+, ports from $port_base}); edit that file, not this one."
    while IFS= read -r line || [[ -n $line ]]; do
      line=${line%$'\r'}
      if [[ $line =~ ^([[:space:]]*)([A-Za-z-]+)([[:space:]]*=[[:space:]]*)([^#]*[^#[:space:]])([[:space:]]*(#.*)?)$ ]]; then
        key=${BASH_REMATCH[2]} value=${BASH_REMATCH[4]} rest=${BASH_REMATCH[5]}
        lead="${BASH_REMATCH[1]}$key${BASH_REMATCH[3]}"
        case $key in
          port | http-port)
            if [[ $value =~ ^[0-9]+$ ]]; then
              value=$((value + shift_by))
              if ((value < 1 || value > 65535)); then
                say "--port-base $port_base moves port ${BASH_REMATCH[4]} to $value, outside 1..65535"
                exit 2
              fi
            fi
            ;;
          tls-certificate | tls-key | tls-ca) value=$(absolute "$value") ;;
          allow-read | allow-write)
            dirs=""
            IFS=, read -ra entries <<< "$value"
            for entry in "${entries[@]}"; do
              entry=$(sed 's/^[ \t]*//; s/[ \t]*$//' <<< "$entry")
              [[ -n $entry ]] && dirs+="$(absolute "$entry"), "
            done
            value="$dirs$state_dir"
            ;;
        esac
        line="$lead$value$rest"
      fi
      printf '%s\n' "$line"
    done < "$config"
  } > "$generated.tmp" || exit 2
  mv "$generated.tmp" "$generated" || exit 2
  config=$generated
  say "wrote $config: give it to gridvec submit and gridvec stop (--config $config)"
fi

# The [node NAME] headers, in file order; comments after them and CRLF line
# ends are allowed, as in the parser (src/config/cluster_config.cpp). A malformed
# header is skipped here; every node then refuses the config with a clear
# message, which stops the others.
mapfile -t names < <(awk '
  { sub(/\r$/, "") }
  match($0, /^[ \t]*\[[ \t]*node[ \t]+[A-Za-z0-9_.-]+[ \t]*\]/) {
    header = substr($0, RSTART, RLENGTH)
    sub(/^[ \t]*\[[ \t]*node[ \t]+/, "", header)
    sub(/[ \t]*\]$/, "", header)
    print header
  }' "$config")
if [[ ${#names[@]} -eq 0 ]]; then
  say "no [node NAME] sections in '$config'"
  exit 2
fi

# The cluster secret the config names: written (gridvec keygen) if it does
# not exist yet, so that a local cluster needs no set-up step. Relative to
# the config's directory, as the nodes read it.
secret=$(sed -n 's/^[ \t]*secret[ \t]*=[ \t]*\([^#]*[^# \t\r]\).*/\1/p' "$config" | head -n 1)
if [[ -n $secret ]]; then
  [[ $secret == /* ]] || secret=$(cd "$(dirname "$config")" && pwd)/$secret
  if [[ ! -e $secret ]]; then
    if [[ ! -w $(dirname "$secret") ]]; then
      say "cannot write the cluster secret $secret: give --state-dir DIR to keep it (and the tables) in DIR"
      exit 2
    fi
    "$gridvec" keygen "$secret" > /dev/null || exit 2
    say "wrote a new cluster secret to $secret (gridvec keygen)"
  fi
fi

width=0
for name in "${names[@]}"; do
  ((${#name} > width)) && width=${#name}
done

pids=()      # of the nodes, by index into names
statuses=()  # exit status of each node once it ended, "" while it runs
prefixers=() # the processes that prefix each node's output
failed=()    # names of the nodes that failed
stopping=false
signal=""
# shellcheck disable=SC2317 # called from a trap
on_signal() { signal=$1; }
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

# If this script itself ends unexpectedly, take the nodes along.
# shellcheck disable=SC2317 # called from a trap
on_exit() {
  local i
  for i in "${!pids[@]}"; do
    [[ -z ${statuses[$i]} ]] && kill -TERM "${pids[$i]}" 2> /dev/null
  done
}
trap on_exit EXIT

for i in "${!names[@]}"; do
  name=${names[$i]}
  prefix=$(printf '%-*s | ' "$width" "$name")
  # The prefixer ignores INT and TERM: it must outlive the node to pass on
  # its last lines (and a node writing into a closed pipe would die of it).
  # A bash loop, not awk or sed: mawk buffers its input, so a node's lines
  # would show only once it ends (a loop also passes on a last unended line).
  exec {out}> >(
    trap '' INT TERM HUP
    while IFS= read -r line || [[ -n $line ]]; do printf '%s%s\n' "$prefix" "$line"; done
  )
  prefixers+=("$!")
  "$gridvec" node --config "$config" --name "$name" < /dev/null >&"$out" 2>&1 &
  pids+=("$!")
  statuses+=("")
  exec {out}>&-
  say "started node $name (pid ${pids[$i]}): $gridvec node --config $config --name $name"
done

running() {
  local i n=0
  for i in "${!pids[@]}"; do
    [[ -z ${statuses[$i]} ]] && n=$((n + 1))
  done
  echo "$n"
}

# Collects the exit status of every node that has ended since the last call.
# A node's failure is reported, and the others go on (recovery is the
# cluster's job); while stopping, an exit by the signal we sent (or by the
# terminal's Ctrl-C) is a clean stop.
reap() {
  local i status name
  for i in "${!pids[@]}"; do
    [[ -n ${statuses[$i]} ]] && continue
    kill -0 "${pids[$i]}" 2> /dev/null && continue
    wait "${pids[$i]}"
    status=$?
    statuses[i]=$status
    name=${names[$i]}
    if [[ $status -eq 0 ]] && ! $stopping; then
      say "node $name exited (status 0)"
    elif $stopping && [[ $status -eq 0 || $status -eq 143 || $status -eq 130 ]]; then
      say "node $name stopped"
    else
      say "node $name failed (exit status $status); $(running) other node(s) still running"
      failed+=("$name")
    fi
  done
}

stop_all() {
  local i tries
  stopping=true
  for i in "${!pids[@]}"; do
    [[ -z ${statuses[$i]} ]] && kill -TERM "${pids[$i]}" 2> /dev/null
  done
  for ((tries = 0; tries < 50; tries++)); do
    reap
    [[ $(running) -eq 0 ]] && return
    sleep 0.1
  done
  for i in "${!pids[@]}"; do
    if [[ -z ${statuses[$i]} ]]; then
      say "node ${names[$i]} did not stop within 5 s; killing it"
      kill -KILL "${pids[$i]}" 2> /dev/null
      wait "${pids[$i]}" 2> /dev/null
      statuses[i]=killed
      failed+=("${names[$i]}")
    fi
  done
}

# Polling rather than `wait -n`: it works on every bash since 4.1, and a
# signal's trap runs within a tenth of a second either way.
while [[ $(running) -gt 0 ]]; do
  if [[ -n $signal ]] && ! $stopping; then
    say "got SIG$signal; stopping all nodes"
    stop_all
  fi
  reap
  sleep 0.1
done

# Let the prefixers pass on the nodes' last lines before the prompt returns.
for p in "${prefixers[@]}"; do
  for ((tries = 0; tries < 20; tries++)); do
    kill -0 "$p" 2> /dev/null || break
    sleep 0.1
  done
done

if [[ ${#failed[@]} -gt 0 ]]; then
  say "failed: ${failed[*]}"
  exit 1
fi
say "all nodes stopped"
exit 0
