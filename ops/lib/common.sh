# shellcheck shell=bash disable=SC2034,SC2016
# (SC2034: the tables here are read by the scripts that source this file; SC2016: the single-quoted
# scripts passed to "bash -c" expand their own positional arguments.)
# Shared by the ops scripts (sourced, never run): errors, plan facts through 'topo export', the
# inventory parser, bundle reading, transports (ssh, local) and service control (systemd, runner).
# Everything here is plain bash 4+ and coreutils: no jq, no python.

OPS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MMX_REPO="$(cd "$OPS_DIR/.." && pwd)"
PROG="${PROG:-$(basename "$0")}"

# Exit codes shared by every script (as topo's): 0 ok, 1 the cluster or the check failed,
# 2 bad arguments or input, 3 a host or file operation failed.
readonly EXIT_FAILED=1 EXIT_BAD_INPUT=2 EXIT_IO=3

die() { echo "$PROG: error: $*" >&2; exit "$EXIT_BAD_INPUT"; }
die_io() { echo "$PROG: error: $*" >&2; exit "$EXIT_IO"; }
note() { echo "$PROG: $*" >&2; }

# need_value OPTION ARGC: an option that takes a value must have one.
need_value() { [ "$2" -ge 2 ] || die "option $1 needs a value (see $PROG --help)"; }

# Prints the comment block at the top of the calling script (the lines after the shebang that
# start with '#'); a line 'COMMON_OPTIONS' stands for the options of take_common_option.
usage() {
  local line
  while IFS= read -r line; do
    [[ "$line" == "#"* ]] || break
    line="${line#"#"}"
    line="${line# }"
    if [ "$line" = COMMON_OPTIONS ]; then echo "$COMMON_OPTIONS_HELP"; else echo "$line"; fi
  done < <(tail -n +2 "$0")
}

make_temp_dir() { mktemp -d "${TMPDIR:-/tmp}/mmx-ops.XXXXXX"; }

# ---------------------------------------------------------------------------------------------
# Plan facts: 'topo export' checks the content hash and prints "key value" lines.

declare -gA PLAN_FACT=()        # key -> value (content_hash, n, racks, hosts_per_rack, certified_f, ...)
declare -gA PLAN_HOST_RACK=()   # host index -> rack index (hosts that hold processes)
declare -gA PLAN_HOST_IDS=()    # host index -> id spec, e.g. 0-3,8
declare -gA PLAN_HOST_FAIL=()   # failed hosts r -> further process crashes certified (-1 blocked)
declare -ga PLAN_HOSTS=()       # host indices holding processes, ascending
PLAN_FACTS_TEXT=""              # the 'topo export' lines the tables were read from

topo_bin() { echo "${MMX_TOPO:-$MMX_REPO/bin/topo}"; }
mmx_bin() { echo "${MMX_MMX:-$MMX_REPO/bin/mmx}"; }

# load_plan PLAN DIR: exports the plan into DIR (hosts, edges) and fills the PLAN_* tables. A
# bundle's plan comes with what ops/bundle exported from it (plan.facts and plan.hosts beside it,
# covered by SHA256SUMS): those are read instead, without starting topo's JVM.
load_plan() {
  local plan="$1" dir="$2" facts key value rest
  [ -f "$plan" ] || die "plan file $plan does not exist; pass the plan written by 'topo plan' with --plan"
  local beside
  beside="$(dirname "$plan")"
  if [ -f "$beside/plan.facts" ] && [ -f "$beside/plan.hosts" ]; then
    facts="$(cat "$beside/plan.facts")"
    cp "$beside/plan.hosts" "$dir/hosts"
  elif ! facts="$("$(topo_bin)" export "$plan" --hosts "$dir/hosts" --edges "$dir/plan.edges" 2>"$dir/topo.err")"; then
    die "topo export refused $plan: $(cat "$dir/topo.err")"
  fi
  PLAN_FACTS_TEXT="$facts"
  while read -r key value rest; do
    case "$key" in
      host_failures) PLAN_HOST_FAIL[$value]="$rest" ;;
      rack_failures) ;;
      *) PLAN_FACT[$key]="$value" ;;
    esac
  done <<<"$facts"
  local host rack ids
  while read -r _ host _ rack _ ids; do
    PLAN_HOST_RACK[$host]="$rack"
    PLAN_HOST_IDS[$host]="$ids"
    PLAN_HOSTS+=("$host")
  done <"$dir/hosts"
}

# ids_count SPEC: number of ids in "0-3,8".
ids_count() {
  local spec="$1" part count=0
  local -a parts
  IFS=, read -ra parts <<<"$spec"
  for part in "${parts[@]}"; do
    if [[ "$part" == *-* ]]; then
      count=$((count + ${part#*-} - ${part%-*} + 1))
    else
      count=$((count + 1))
    fi
  done
  echo "$count"
}

# ids_list SPEC: the ids of "0-3,8", space separated.
ids_list() {
  local spec="$1" part i
  local -a parts ids=()
  IFS=, read -ra parts <<<"$spec"
  for part in "${parts[@]}"; do
    if [[ "$part" == *-* ]]; then
      for ((i = ${part%-*}; i <= ${part#*-}; i++)); do ids+=("$i"); done
    else
      ids+=("$part")
    fi
  done
  echo "${ids[*]}"
}

# ---------------------------------------------------------------------------------------------
# Inventory: one host per line, "key value" pairs (docs/operations.md).
#   rack 0 host 1 address 10.0.1.2 nic mlx5_0 [name r0h1] [ssh admin@r0h1] [netns ns-r0h1]

readonly INV_KEYS="rack host address nic name ssh netns"
declare -ga INV_HOSTS=()        # host indices in file order
declare -gA INV_MENTIONED=()     # host indices on any line, even a rejected one (no cascading errors)
declare -gA INV_RACK=() INV_ADDR=() INV_NIC=() INV_NAME=() INV_SSH=() INV_NETNS=() INV_LINE=()
declare -ga INV_ERRORS=()

inv_error() { INV_ERRORS+=("$1"); }

# valid_ipv4 A: four numbers 0-255.
valid_ipv4() {
  local IFS=. octet
  local -a octets
  [[ "$1" =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || return 1
  read -ra octets <<<"$1"
  for octet in "${octets[@]}"; do ((10#$octet <= 255)) || return 1; done
}

# parse_inventory FILE: fills INV_* and appends one message per problem to INV_ERRORS.
parse_inventory() {
  local file="$1" number=0 raw line key value
  [ -f "$file" ] || die "inventory $file does not exist; write one line per host, e.g. 'rack 0 host 0 address 10.0.1.1 nic mlx5_0' (docs/operations.md)"
  declare -A seen_addr=() seen_name=()
  while IFS= read -r raw || [ -n "$raw" ]; do
    number=$((number + 1))
    line="${raw%%#*}"
    local -a words
    read -ra words <<<"$line"
    [ "${#words[@]}" -eq 0 ] && continue
    local where="$file line $number"
    declare -A field=()
    local ok=1 i
    for ((i = 0; i < ${#words[@]}; i += 2)); do
      key="${words[i]}"
      value="${words[i + 1]:-}"
      if [[ " $INV_KEYS " != *" $key "* ]]; then
        inv_error "$where: unknown key '$key'; the keys are: $INV_KEYS (each followed by its value)"; ok=0; continue
      fi
      if [ -z "$value" ]; then
        inv_error "$where: '$key' has no value; write '$key VALUE'"; ok=0; field[$key]=""; continue
      fi
      if [ -n "${field[$key]+set}" ]; then
        inv_error "$where: '$key' appears twice; keep one"; ok=0; continue
      fi
      field[$key]="$value"
    done
    for key in rack host address nic; do
      if [ -z "${field[$key]+set}" ]; then
        case "$key" in
          nic) inv_error "$where: no 'nic'; add 'nic NAME', the host's RDMA NIC (e.g. mlx5_0; any name on hosts without RDMA)" ;;
          address) inv_error "$where: no 'address'; add 'address A.B.C.D', the host's IPv4 address on the cluster network" ;;
          *) inv_error "$where: no '$key'; add '$key N' with the plan's $key index" ;;
        esac
        ok=0
      fi
    done
    for key in rack host; do
      if [ -n "${field[$key]:-}" ] && ! [[ "${field[$key]}" =~ ^[0-9]+$ ]]; then
        inv_error "$where: $key '${field[$key]}' is not a number; write the plan's $key index (0-based, as in 'topo export --hosts')"; ok=0
      fi
    done
    if [ -n "${field[address]:-}" ] && ! valid_ipv4 "${field[address]}"; then
      inv_error "$where: address '${field[address]}' is not an IPv4 address; write four numbers 0-255 like 10.0.1.2"; ok=0
    fi
    # Every problem of the line is reported, not only the first: the uniqueness checks run on
    # whichever fields are well formed.
    local host="" name=""
    if [[ "${field[host]:-}" =~ ^[0-9]+$ ]]; then
      host=$((10#${field[host]}))
      INV_MENTIONED[$host]=1
      name="${field[name]:-host$host}"
      if [ -n "${INV_LINE[$host]:-}" ]; then
        inv_error "$where: host $host is already on line ${INV_LINE[$host]}; each host appears once"; ok=0
      fi
    elif [ -n "${field[name]:-}" ]; then
      name="${field[name]}"
    fi
    if [ -n "${field[address]:-}" ] && valid_ipv4 "${field[address]}" && [ -n "${seen_addr[${field[address]}]:-}" ]; then
      inv_error "$where: address ${field[address]} is already used by line ${seen_addr[${field[address]}]}; give each host its own address"; ok=0
    fi
    if [ -n "$name" ] && [ -n "${seen_name[$name]:-}" ]; then
      inv_error "$where: name $name is already used by line ${seen_name[$name]}; names must be unique"; ok=0
    fi
    [ "$ok" = 1 ] || continue
    seen_addr[${field[address]}]="$number"
    seen_name[$name]="$number"
    INV_HOSTS+=("$host")
    INV_LINE[$host]="$number"
    INV_RACK[$host]=$((10#${field[rack]}))
    INV_ADDR[$host]="${field[address]}"
    INV_NIC[$host]="${field[nic]}"
    INV_NAME[$host]="$name"
    INV_SSH[$host]="${field[ssh]:-${field[address]}}"
    INV_NETNS[$host]="${field[netns]:-}"

  done <"$file"
  [ "$number" -gt 0 ] || inv_error "$file is empty; write one line per host, e.g. 'rack 0 host 0 address 10.0.1.1 nic mlx5_0'"
}

# check_inventory_against_plan FILE: every plan host listed with its rack, nothing else listed.
check_inventory_against_plan() {
  local file="$1" host racks="${PLAN_FACT[racks]:-0}" hpr="${PLAN_FACT[hosts_per_rack]:-0}"
  for host in "${INV_HOSTS[@]}"; do
    local where="$file line ${INV_LINE[$host]}" rack="${INV_RACK[$host]}"
    if ((rack >= racks)); then
      inv_error "$where: rack $rack is not in the plan, which has racks 0..$((racks - 1)); fix the rack index"
    elif ((host >= racks * hpr)); then
      inv_error "$where: host $host is not in the plan, which has hosts 0..$((racks * hpr - 1)); fix the host index"
    elif [ -z "${PLAN_HOST_RACK[$host]:-}" ]; then
      inv_error "$where: host $host holds no processes in the plan; remove the line (or plan with more processes)"
    elif [ "${PLAN_HOST_RACK[$host]}" != "$rack" ]; then
      inv_error "$where: host $host is in rack ${PLAN_HOST_RACK[$host]} in the plan, not rack $rack; write 'rack ${PLAN_HOST_RACK[$host]}'"
    fi
  done
  for host in "${PLAN_HOSTS[@]}"; do
    if [ -z "${INV_MENTIONED[$host]:-}" ]; then
      inv_error "$file: host $host (rack ${PLAN_HOST_RACK[$host]}) holds processes ${PLAN_HOST_IDS[$host]} in the plan but has no line; add 'rack ${PLAN_HOST_RACK[$host]} host $host address A.B.C.D nic NIC'"
    fi
  done
}

# validate PLAN INVENTORY WORKDIR: load both, print every problem, exit 2 if any.
validate() {
  load_plan "$1" "$3"
  [ "${PLAN_FACT[placement]:-}" != none ] || die "$1 has no placement; make the plan with --racks R --hosts-per-rack H --procs-per-host P"
  parse_inventory "$2"
  check_inventory_against_plan "$2"
  if [ "${#INV_ERRORS[@]}" -gt 0 ]; then
    local message
    for message in "${INV_ERRORS[@]}"; do echo "$PROG: error: $message" >&2; done
    echo "$PROG: ${#INV_ERRORS[@]} problem(s) in $2; fix them and run again" >&2
    exit "$EXIT_BAD_INPUT"
  fi
}

# ---------------------------------------------------------------------------------------------
# Bundles: DIR/rack<R>/host<H>/ with mmx.env (KEY=VALUE lines) and the files it names.

BUNDLE="${BUNDLE:-}"
HOST_FILTER="${HOST_FILTER:-}"   # comma-separated host indices, empty for all

# take_common_option OPTION VALUE: the options every host-facing script shares; returns 1 for
# any other option (the caller then shifts 2 on success).
take_common_option() {
  case "$1" in
    --bundle | --transport | --services | --hosts) [ $# -ge 2 ] || die "option $1 needs a value (see $PROG --help)" ;;
    *) return 1 ;;
  esac
  case "$1" in
    --bundle) BUNDLE="$2" ;;
    --transport) set_transport "$2" ;;
    --services) set_services "$2" ;;
    --hosts)
      [[ "$2" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--hosts '$2' is not a comma-separated list of host indices like 0,3"
      HOST_FILTER="$2" ;;
  esac
}

# Usage text of the options above, for --help.
readonly COMMON_OPTIONS_HELP="  --bundle DIR        the bundles written by ops/bundle (required)
  --transport T       ssh (default): run on the host named by MMX_SSH; local: this machine, inside
                      the host's network namespace MMX_NETNS when set (tests, single-box trials)
  --services S        systemd (default with ssh) or runner (ops/unit-run; default with local)
  --hosts H,H         only these host indices (default: every host in the bundle)"

# bundle_hosts ARRAY: fills ARRAY with the host directories of BUNDLE (filtered by --hosts),
# ordered by rack then host. It runs in the calling shell, never in a pipe or a '<(...)', so a
# missing, empty or unmatched bundle ends the script with its error (exit 2) instead of leaving
# an empty list behind.
bundle_hosts() {
  local -n into="$1"
  local dir="$BUNDLE" hostdir host
  [ -n "$dir" ] || die "no bundle: pass --bundle DIR (made by ops/bundle)"
  [ -d "$dir" ] || die "bundle directory $dir does not exist; make it with ops/bundle --out $dir"
  local -a found
  mapfile -t found < <(find "$dir" -mindepth 2 -maxdepth 2 -type d -path '*/rack*/host*' | sort -V)
  [ "${#found[@]}" -gt 0 ] || die "$dir holds no rack*/host* bundles; make it with ops/bundle --out $dir"
  into=()
  for hostdir in "${found[@]}"; do
    [ -f "$hostdir/mmx.env" ] || die "$hostdir has no mmx.env; regenerate the bundle with ops/bundle --out $dir"
    host="$(env_get "$hostdir" MMX_HOST)"
    if [ -z "$HOST_FILTER" ] || [[ ",$HOST_FILTER," == *",$host,"* ]]; then
      into+=("$hostdir")
    fi
  done
  [ "${#into[@]}" -gt 0 ] || die "--hosts $HOST_FILTER names no host of bundle $dir; its hosts are listed by 'ls $dir/rack*'"
}

# release_id HOSTDIR: a bundle's release name, from its checksums (same content, same name).
release_id() {
  local sum
  sum="$(sha256sum "$1/SHA256SUMS")"
  echo "${sum:0:12}"
}

# env_get HOSTDIR KEY: a value from the host's mmx.env.
env_get() {
  local line
  # Plain bash, no grep: the probes call this many times per host, and every exec counts on a
  # busy machine.
  while IFS= read -r line || [ -n "$line" ]; do
    if [[ "$line" == "$2="* ]]; then
      echo "${line#*=}"
      return 0
    fi
  done <"$1/mmx.env"
  echo ""
}

# host_label HOSTDIR: "rack R host H (name, address)" for messages.
host_label() {
  echo "rack $(env_get "$1" MMX_RACK) host $(env_get "$1" MMX_HOST) ($(env_get "$1" MMX_HOST_NAME), $(env_get "$1" MMX_ADDRESS))"
}

# ---------------------------------------------------------------------------------------------
# Transports: how a command reaches a host. TRANSPORT is ssh (default) or local (the host is this
# machine, inside the bundle's network namespace MMX_NETNS when set: tests and single-box trials).
# DRY_RUN=1 prints each action instead of running it.

TRANSPORT="${TRANSPORT:-ssh}"
SERVICES="${SERVICES:-}"
DRY_RUN="${DRY_RUN:-0}"
SSH_OPTS="${MMX_SSH_OPTS:--o BatchMode=yes -o ConnectTimeout=10}"

set_transport() {
  case "$1" in
    ssh | local) TRANSPORT="$1" ;;
    *) die "transport '$1' is unknown; use --transport ssh or --transport local" ;;
  esac
}

set_services() {
  case "$1" in
    systemd | runner) SERVICES="$1" ;;
    *) die "service manager '$1' is unknown; use --services systemd or --services runner" ;;
  esac
}

# services_default: systemd over ssh, the runner (ops/unit-run) locally.
services_default() {
  if [ -z "$SERVICES" ]; then
    if [ "$TRANSPORT" = local ]; then SERVICES=runner; else SERVICES=systemd; fi
  fi
  if [ "$SERVICES" = runner ] && [ "$TRANSPORT" != local ]; then
    die "--services runner works only with --transport local (on remote hosts use systemd)"
  fi
}

# dry_run HOSTDIR ACTION: in a dry run, prints the action and succeeds; otherwise fails, so
# callers write 'dry_run HOSTDIR "what" && return 0' before doing it.
dry_run() {
  [ "$DRY_RUN" = 1 ] || return 1
  echo "[dry-run] $(host_label "$1"): $2"
}

# host_run HOSTDIR SCRIPT: runs a bash script on the host (in its namespace when local); a dry
# run prints it instead.
host_run() {
  local hostdir="$1" script="$2"
  dry_run "$hostdir" "$script" && return 0
  host_query "$hostdir" "$script"
}

# host_query HOSTDIR SCRIPT: runs a read-only script on the host, in a dry run too, so that a dry
# run meets the same refusals as the real one.
host_query() {
  local hostdir="$1" script="$2"
  if [ "$TRANSPORT" = ssh ]; then
    # shellcheck disable=SC2086  # SSH_OPTS is a list of options
    ssh $SSH_OPTS "$(env_get "$hostdir" MMX_SSH)" bash -c "$(printf '%q' "$script")"
  else
    local netns
    netns="$(env_get "$hostdir" MMX_NETNS)"
    if [ -n "$netns" ]; then
      ip netns exec "$netns" bash -c "$script"
    else
      bash -c "$script"
    fi
  fi
}

# host_copy HOSTDIR DEST: copies the bundle directory's files to DEST on the host.
host_copy() {
  local hostdir="$1" dest="$2"
  dry_run "$hostdir" "copy $hostdir/ to $dest/" && return 0
  if [ "$TRANSPORT" = ssh ]; then
    local target
    target="$(env_get "$hostdir" MMX_SSH)"
    # shellcheck disable=SC2086  # SSH_OPTS is a list of options
    ssh $SSH_OPTS "$target" mkdir -p "$(printf '%q' "$dest")" && scp -q $SSH_OPTS "$hostdir"/* "$target:$(printf '%q' "$dest")/"
  else
    mkdir -p "$dest" && cp -p "$hostdir"/* "$dest/"
  fi
}

# host_copy_file HOSTDIR SRC DEST MODE: installs one file on the host (temp name, then rename).
host_copy_file() {
  local hostdir="$1" src="$2" dest="$3" mode="$4"
  dry_run "$hostdir" "install $src as $dest (mode $mode)" && return 0
  if [ "$TRANSPORT" = ssh ]; then
    local target quoted
    target="$(env_get "$hostdir" MMX_SSH)"
    quoted="$(printf '%q' "$dest")"
    # shellcheck disable=SC2086  # SSH_OPTS is a list of options
    scp -q $SSH_OPTS "$src" "$target:$quoted.tmp" &&
      host_run "$hostdir" "chmod $mode $quoted.tmp && mv $quoted.tmp $quoted"
  else
    install -D -m "$mode" "$src" "$dest.tmp" && mv "$dest.tmp" "$dest"
  fi
}

# host_service HOSTDIR ACTION UNIT: start, stop or restart mmx-memd / mmx-node on the host.
host_service() {
  local hostdir="$1" action="$2" unit="$3" root
  root="$(env_get "$hostdir" MMX_ROOT)"
  if [ "$SERVICES" = systemd ]; then
    host_run "$hostdir" "systemctl $action $unit.service"
  elif ! dry_run "$hostdir" "ops/unit-run $action $root/current/$unit.service"; then
    local netns
    netns="$(env_get "$hostdir" MMX_NETNS)"
    "$OPS_DIR/unit-run" "$action" "$root/current/$unit.service" --state-dir "$root/run" ${netns:+--netns "$netns"}
  fi
}

# ---------------------------------------------------------------------------------------------
# Probes: what ops/health and ops/rolling-restart see of a host, from this machine.

# tcp_open ADDRESS PORT TIMEOUT: exit 0 if a TCP connection opens.
tcp_open() {
  timeout "$3" bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# http_request METHOD ADDRESS PORT PATH TIMEOUT: one HTTP/1.0 request with an empty body (bash's
# /dev/tcp, no curl); prints "CODE BODY" of the response, exit 1 if none came within TIMEOUT.
http_request() {
  local response status
  response="$(timeout "$5" bash -c '
    exec 3<>"/dev/tcp/$2/$3" || exit 1
    printf "%s %s HTTP/1.0\r\nHost: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" "$1" "$4" "$2" >&3
    cat <&3' _ "$1" "$2" "$3" "$4" 2>/dev/null)" || return 1
  response="${response//$'\r'/}"
  status="${response%%$'\n'*}"
  [[ "$status" =~ ^HTTP/[0-9.]+\ ([0-9]+) ]] || return 1
  echo "${BASH_REMATCH[1]} ${response#*$'\n\n'}"
}

# http_get ADDRESS PORT PATH TIMEOUT: the body of a 200 response on stdout, else exit 1.
http_get() {
  local answer
  answer="$(http_request GET "$@")" || return 1
  [ "${answer%% *}" = 200 ] || return 1
  echo "${answer#* }"
}

# Results of probe_commit.
PROBE_INDEX=""   # the log index at which the probe committed
PROBE_ERROR=""   # why it did not
PROBE_MS=""      # how long the node took to see it committed

# node_answers HOSTDIR: the node's GET /status answers 200 within a second.
node_answers() {
  local listen
  listen="$(env_get "$1" MMX_STATUS_LISTEN)"
  http_get "$(env_get "$1" MMX_ADDRESS)" "${listen##*:}" /status 1 >/dev/null
}

# probe_commit HOSTDIR TIMEOUT: submits one probe command through the host's node (POST /probe:
# ordered and decided like any command, applied by no state machine) and waits for its commit.
# Exit 0 when it committed (PROBE_INDEX, PROBE_MS), else 1 with PROBE_ERROR.
probe_commit() {
  local hostdir="$1" timeout="$2" address listen answer body
  address="$(env_get "$hostdir" MMX_ADDRESS)"
  listen="$(env_get "$hostdir" MMX_STATUS_LISTEN)"
  PROBE_INDEX="" PROBE_ERROR="" PROBE_MS=""
  if ! answer="$(http_request POST "$address" "${listen##*:}" /probe "$timeout")"; then
    PROBE_ERROR="no answer from $address:${listen##*:} within ${timeout}s"
    return 1
  fi
  body="${answer#* }"
  if [[ "${answer%% *}" = 200 && "$body" =~ \"logIndex\":([0-9]+) ]]; then
    PROBE_INDEX="${BASH_REMATCH[1]}"
    [[ "$body" =~ \"micros\":([0-9]+) ]] && PROBE_MS=$((BASH_REMATCH[1] / 1000))
    return 0
  fi
  if [[ "$body" =~ \"error\":\"([^\"]*)\" ]]; then PROBE_ERROR="${BASH_REMATCH[1]}"; else PROBE_ERROR="HTTP ${answer%% *}: $body"; fi
  return 1
}

# Overrides for memd_probe (ops/health --mmx, --cluster-key-file); empty: the bundle's values.
PROBE_MMX="" PROBE_KEY_FILE=""
declare -gA PROBE_MEMD_WHY=()

# memd_probe_tool HOSTDIR: the mmx and cluster key that run memd probes here: PROBE_MMX / PROBE_KEY_FILE,
# or HOSTDIR's bundle's MMX_BIN and MMX_CLUSTER_KEY_FILE. Dies (exit 2) when they cannot run here, so
# that health refuses the same way whether or not a probe turns out to be needed.
MEMD_PROBE_MMX="" MEMD_PROBE_KEY=""
memd_probe_tool() {
  MEMD_PROBE_MMX="${PROBE_MMX:-$(env_get "$1" MMX_BIN)}"
  MEMD_PROBE_KEY="${PROBE_KEY_FILE:-$(env_get "$1" MMX_CLUSTER_KEY_FILE)}"
  [ -x "$MEMD_PROBE_MMX" ] || die "cannot probe memd: '$MEMD_PROBE_MMX' is not an executable mmx here; pass --mmx PATH"
  [ -r "$MEMD_PROBE_KEY" ] || die "cannot probe memd: the cluster key file '$MEMD_PROBE_KEY' is not readable here; pass --cluster-key-file PATH (a copy of the cluster key)"
}

# memd_probe_start TIMEOUT HOSTDIR... / memd_probe_finish: one authenticated round trip to each
# host's memd ('mmx memd probe' as the host's first process; all hosts side by side in one JVM,
# with the tool memd_probe_tool chose), so that a host that merely accepts TCP is not taken for a
# live memd. Runs in the background; finish waits for it and fills PROBE_MEMD[host] (up or down)
# and PROBE_MEMD_WHY[host]. Small-JVM options (MMX_PROBE_JAVA_OPTS).
MEMD_PROBE_PID="" MEMD_PROBE_OUT="" MEMD_PROBE_LIMIT=0
declare -gA MEMD_PROBE_HOST_OF=()
memd_probe_start() {
  local timeout="$1" hostdir host ids listen ms endpoint
  shift
  MEMD_PROBE_PID="" MEMD_PROBE_HOST_OF=()
  [ $# -gt 0 ] || return 0
  local -a args=()
  for hostdir in "$@"; do
    host="$(env_get "$hostdir" MMX_HOST)"
    ids="$(ids_list "$(env_get "$hostdir" MMX_IDS)")"
    listen="$(env_get "$hostdir" MMX_MEMD_LISTEN)"
    endpoint="$(env_get "$hostdir" MMX_ADDRESS):${listen##*:}"
    args+=(--address "$endpoint" --as "${ids%% *}")
    MEMD_PROBE_HOST_OF[$endpoint]="$host"
    PROBE_MEMD[$host]=down PROBE_MEMD_WHY[$host]="mmx memd probe gave no line for it"
  done
  ms="$(awk -v s="$timeout" 'BEGIN { printf "%d", s * 1000 }')"
  # The JVM's start-up is not the daemons' fault: allow 30 s for it beyond the network timeout.
  MEMD_PROBE_LIMIT=$((${timeout%.*} + 30))
  MEMD_PROBE_OUT="$(mktemp "${TMPDIR:-/tmp}/mmx-memd-probe.XXXXXX")"
  MMX_JAVA_OPTS="${MMX_PROBE_JAVA_OPTS:--Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}" \
    timeout "$MEMD_PROBE_LIMIT" "$MEMD_PROBE_MMX" memd probe "${args[@]}" --key "$MEMD_PROBE_KEY" --timeout-ms "$ms" >"$MEMD_PROBE_OUT" 2>&1 &
  MEMD_PROBE_PID=$!
}

memd_probe_finish() {
  local status=0 output line host
  [ -n "$MEMD_PROBE_PID" ] || return 0
  wait "$MEMD_PROBE_PID" || status=$?
  output="$(cat "$MEMD_PROBE_OUT")"
  rm -f "$MEMD_PROBE_OUT"
  MEMD_PROBE_PID=""
  case "$status" in
    0 | 1) ;;
    124)
      for host in "${MEMD_PROBE_HOST_OF[@]}"; do PROBE_MEMD_WHY[$host]="mmx memd probe did not finish within $MEMD_PROBE_LIMIT s"; done
      return 0 ;;
    *) die "mmx memd probe could not run (exit $status): $output" ;;
  esac
  while IFS= read -r line; do
    [[ "$line" =~ ^memd\ ([^ ]+)\ (serves|not\ served):\ ?(.*)$ ]] || continue
    host="${MEMD_PROBE_HOST_OF[${BASH_REMATCH[1]}]:-}"
    [ -n "$host" ] || continue
    if [ "${BASH_REMATCH[2]}" = serves ]; then
      PROBE_MEMD[$host]=up PROBE_MEMD_WHY[$host]=""
    else
      PROBE_MEMD_WHY[$host]="${BASH_REMATCH[3]}"
    fi
  done <<<"$output"
}

# Results of probe_host, by host index.
declare -gA PROBE_MEMD=() PROBE_NODE=() PROBE_PLAN=() PROBE_LIVE=() PROBE_ROLES=() PROBE_LEADER=() \
  PROBE_UNKNOWN=() PROBE_REACH=() PROBE_COMMIT=() PROBE_SETTLED=() PROBE_SERVED=()

# probe_host HOSTDIR TIMEOUT: the node's status (probe_cluster judges memd from it, or probes memd). Parses
# the status JSON: {"plan":"sha256:...","processes":[{"id":0,"role":"LEADER","leader":0,...},...]}.
probe_host() {
  local hostdir="$1" timeout="$2" host address listen status
  host="$(env_get "$hostdir" MMX_HOST)"
  address="$(env_get "$hostdir" MMX_ADDRESS)"
  listen="$(env_get "$hostdir" MMX_STATUS_LISTEN)"
  PROBE_NODE[$host]=down PROBE_PLAN[$host]="" PROBE_LIVE[$host]="" PROBE_ROLES[$host]="" PROBE_LEADER[$host]=""
  PROBE_REACH[$host]="" PROBE_COMMIT[$host]="" PROBE_SETTLED[$host]=0 PROBE_UNKNOWN[$host]=0 PROBE_SERVED[$host]=0
  status="$(http_get "$address" "${listen##*:}" /status "$timeout")" || return 0
  PROBE_NODE[$host]=up
  local compact="${status//[[:space:]]/}"
  [[ "$compact" =~ \"plan\":\"([^\"]*)\" ]] && PROBE_PLAN[$host]="${BASH_REMATCH[1]}"
  local body="${compact#*\"processes\":[}" object live="" roles="" settled=1 leaders="" unknown=0 reach=-1 need="" commit="" served=0
  local -A role_count=()
  body="${body%%]*}"
  while [[ "$body" =~ \{([^{}]*)\} ]]; do
    object="${BASH_REMATCH[1]}"
    body="${body#*"${BASH_REMATCH[0]}"}"
    local id="" role="" leader=-1
    [[ "$object" =~ \"id\":([0-9]+) ]] && id="${BASH_REMATCH[1]}"
    [[ "$object" =~ \"role\":\"([A-Z]+)\" ]] && role="${BASH_REMATCH[1]}"
    [[ "$object" =~ \"leader\":(-?[0-9]+) ]] && leader="${BASH_REMATCH[1]}"
    [[ "$object" =~ \"blocked\":true ]] && role=BLOCKED
    [[ "$object" =~ \"regionServed\":true ]] && served=1
    if [[ "$object" =~ \"reachableAcceptors\":([0-9]+) ]] && ((BASH_REMATCH[1] > reach)); then reach="${BASH_REMATCH[1]}"; fi
    [[ "$object" =~ \"neededAcceptors\":([0-9]+) ]] && need="${BASH_REMATCH[1]}"
    if [[ "$object" =~ \"commitIndex\":(-?[0-9]+) ]] && [[ -z "$commit" || "${BASH_REMATCH[1]}" -gt "$commit" ]]; then commit="${BASH_REMATCH[1]}"; fi
    live+="${live:+ }$id"
    role_count[$role]=$((${role_count[$role]:-0} + 1))
    case "$role" in LEADER | FOLLOWER) ;; *) settled=0 ;; esac
    if ((leader < 0)); then
      unknown=$((unknown + 1))
    elif [[ ",$leaders," != *",$leader,"* ]]; then
      leaders+="${leaders:+,}$leader"
    fi
  done
  for role in "${!role_count[@]}"; do roles+="${roles:+ }$role:${role_count[$role]}"; done
  PROBE_LIVE[$host]="$live"
  PROBE_ROLES[$host]="$roles"
  PROBE_LEADER[$host]="$leaders"        # distinct leaders its processes follow, comma separated
  PROBE_UNKNOWN[$host]="$unknown"       # processes that know no leader
  ((reach < 0)) || PROBE_REACH[$host]="$reach/$need"   # the best view among its processes
  PROBE_COMMIT[$host]="$commit"
  # The host's memd serves when one of its processes wrote its heartbeat through it lately
  # ("regionServed"): as strong as a probe (that write is authenticated as the process), and free.
  PROBE_SERVED[$host]="$served"
  # Settled: every process of the host reports, each as LEADER or FOLLOWER. (A follower may not
  # know the leader yet, leader -1: idle followers learn it from traffic; mmx status agrees.)
  [ "$live" = "$(ids_list "$(env_get "$hostdir" MMX_IDS)")" ] || settled=0
  PROBE_SETTLED[$host]="$settled"
}

# wait_until DEADLINE_SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.5 s until it succeeds
# or the deadline passes (then returns 1).
wait_until() {
  local seconds="$1" what="$2"
  shift 2
  local end=$((SECONDS + seconds))
  until "$@"; do
    if ((SECONDS >= end)); then
      note "gave up after ${seconds}s waiting for $what"
      return 1
    fi
    sleep 0.5
  done
}

# Results of probe_cluster.
declare -ga MEMD_PROBED=()        # hosts whose memd was probed directly (their node did not vouch for it)
declare -ga CLUSTER_PROBLEMS=()   # one sentence per problem
declare -ga CLUSTER_LOST=()       # host indices whose memd is unreachable (their regions are gone)
CLUSTER_CRASHED=0                 # processes down on hosts whose memd is up (regions kept)
CLUSTER_BLOCKED=0                 # processes reporting BLOCKED
CLUSTER_LEADER=""                 # the leader ids the nodes report, space separated
CLUSTER_VERDICT=GREEN             # GREEN, YELLOW (settling: CANDIDATE/RECOVERING) or RED

# probe_cluster TIMEOUT HOSTDIR...: probes every host and judges the cluster.
probe_cluster() {
  local timeout="$1" hostdir host expected live leaders="" label
  shift
  CLUSTER_PROBLEMS=() CLUSTER_LOST=() CLUSTER_CRASHED=0 CLUSTER_BLOCKED=0 CLUSTER_VERDICT=GREEN
  [ $# -eq 0 ] || memd_probe_tool "$1"
  for hostdir in "$@"; do
    probe_host "$hostdir" "$timeout"
  done
  # memd: a host whose node says its region is served needs no probe; the others get one JVM
  # for all of them. REUSE_MEMD_PROBE=1 keeps the previous call's verdicts for those instead (a
  # settle loop polls many times a minute, and memd did not restart).
  local -a unvouched=()
  for hostdir in "$@"; do
    host="$(env_get "$hostdir" MMX_HOST)"
    if [ "${PROBE_SERVED[$host]}" = 1 ]; then
      PROBE_MEMD[$host]=up PROBE_MEMD_WHY[$host]=""
    elif [ "${REUSE_MEMD_PROBE:-0}" != 1 ] || [ -z "${PROBE_MEMD[$host]:-}" ]; then
      unvouched+=("$hostdir")
    fi
  done
  MEMD_PROBED=()
  for hostdir in "${unvouched[@]}"; do MEMD_PROBED+=("$(env_get "$hostdir" MMX_HOST)"); done
  memd_probe_start "$timeout" "${unvouched[@]}"
  memd_probe_finish
  for hostdir in "$@"; do
    host="$(env_get "$hostdir" MMX_HOST)"
    label="host $host (rack $(env_get "$hostdir" MMX_RACK), $(env_get "$hostdir" MMX_HOST_NAME), $(env_get "$hostdir" MMX_ADDRESS))"
    expected="$(ids_count "$(env_get "$hostdir" MMX_IDS)")"
    live="${PROBE_LIVE[$host]}"
    live="$(wc -w <<<"$live")"
    if [ "${PROBE_MEMD[$host]}" = down ]; then
      CLUSTER_LOST+=("$host")
      if [ "${PROBE_NODE[$host]}" = down ]; then
        CLUSTER_PROBLEMS+=("$label is DOWN: memd and node unreachable (the host is lost with its regions; memd: ${PROBE_MEMD_WHY[$host]})")
      else
        CLUSTER_PROBLEMS+=("$label: memd not served while the node answers (its regions are gone; memd: ${PROBE_MEMD_WHY[$host]})")
      fi
      CLUSTER_VERDICT=RED
      continue
    fi
    CLUSTER_CRASHED=$((CLUSTER_CRASHED + expected - live))
    if [ "${PROBE_NODE[$host]}" = down ]; then
      CLUSTER_PROBLEMS+=("$label: node DOWN (status unreachable); memd is up, so its regions survive")
      CLUSTER_VERDICT=RED
      continue
    fi
    if [ "$live" != "$expected" ]; then
      CLUSTER_PROBLEMS+=("$label: reports $live of its $expected processes")
      CLUSTER_VERDICT=RED
    fi
    if [ "${PROBE_PLAN[$host]}" != "$(env_get "$hostdir" MMX_PLAN_HASH)" ]; then
      CLUSTER_PROBLEMS+=("$label: runs plan ${PROBE_PLAN[$host]:-(none)}, the bundle has $(env_get "$hostdir" MMX_PLAN_HASH); restart it with ops/rolling-restart")
      CLUSTER_VERDICT=RED
    fi
    if [[ "${PROBE_ROLES[$host]}" == *BLOCKED* ]]; then
      CLUSTER_BLOCKED=$((CLUSTER_BLOCKED + 1))
      CLUSTER_PROBLEMS+=("$label: BLOCKED, reaches ${PROBE_REACH[$host]} acceptors (reachable/needed)")
      CLUSTER_VERDICT=RED
    elif [ "${PROBE_SETTLED[$host]}" != 1 ] && [ "$live" = "$expected" ]; then
      CLUSTER_PROBLEMS+=("$label: settling (${PROBE_ROLES[$host]})")
      [ "$CLUSTER_VERDICT" = RED ] || CLUSTER_VERDICT=YELLOW
    fi
    local leader
    for leader in ${PROBE_LEADER[$host]//,/ }; do
      [[ " $leaders " == *" $leader "* ]] || leaders+="${leaders:+ }$leader"
    done
  done
  if [[ "$leaders" == *" "* ]]; then
    CLUSTER_PROBLEMS+=("processes name different leaders: $leaders")
    [ "$CLUSTER_VERDICT" = RED ] || CLUSTER_VERDICT=YELLOW
  elif [ -z "$leaders" ] && [ "$#" -gt "${#CLUSTER_LOST[@]}" ]; then
    CLUSTER_PROBLEMS+=("no process names a leader")
    [ "$CLUSTER_VERDICT" = RED ] || CLUSTER_VERDICT=YELLOW
  fi
  CLUSTER_LEADER="$leaders"
}
