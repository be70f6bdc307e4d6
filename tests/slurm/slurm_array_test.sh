#!/usr/bin/env bash
# The map/reduce scripts on a real Slurm cluster: a private single-node cluster (munged,
# slurmctld, slurmd; every file in a temp dir, loopback only, free ports) runs
# scripts/slurm/submit.sh on a 64-rank job made by scripts/synth_ranks.py with a known
# straggler and clock offsets: a 4-task array of `stepdoctor summarize`, then
# `stepdoctor merge` once every task has succeeded. The merged JSON report must name the
# straggler rank and what the others lose to it per step (within 10% of the injected).
#   tests/slurm/slurm_array_test.sh SOURCE_DIR STEPDOCTOR_BINARY
# Exits 77 (skipped) when it cannot run: not root, or Slurm or munge not installed
# (scripts/deps.sh --test installs them). Everything it starts is stopped, by pid, on exit.
set -euo pipefail

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

(($# == 2)) || fail "usage: slurm_array_test.sh SOURCE_DIR STEPDOCTOR_BINARY"
src="$(realpath "$1")"
bin="$2"
export PATH="$PATH:/usr/sbin:/sbin"  # the daemons, where a PATH leaves them out
(($(id -u) == 0)) || skip "not root: a private Slurm cluster's daemons run as root"
for c in munged slurmctld slurmd sbatch sinfo squeue scontrol scancel; do
  command -v "$c" >/dev/null 2>&1 || skip "$c not installed (scripts/deps.sh --test installs slurmctld slurmd slurm-client munge)"
done
[[ -x /usr/bin/python3 ]] || skip "/usr/bin/python3 not found (scripts/synth_ranks.py makes the ranks)"
[[ -x "$bin" ]] || fail "$bin: not an executable"
bin="$(realpath "$bin")"

# Nothing of an enclosing Slurm job or a system cluster's settings leaks in.
for v in $(compgen -e); do
  case "$v" in SLURM_*|SBATCH_*|SQUEUE_*|SINFO_*|SCONTROL_*|SACCT_*) unset "$v" ;; esac
done

tmp="$(mktemp -d "${TMPDIR:-/tmp}/stepdoctor-slurm.XXXXXX")"
chmod 711 "$tmp"  # munged: its socket must be reachable
munged_pid="" slurmctld_pid="" slurmd_pid="" jobs_submitted="" watchdog_pid=""

stop_pid() {  # TERM, up to 5 s, then KILL: only the pid given
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  set +e
  trap - EXIT INT TERM
  if [[ -n "$jobs_submitted" && -n "$slurmctld_pid" ]] && kill -0 "$slurmctld_pid" 2>/dev/null; then
    scancel --quiet $jobs_submitted 2>/dev/null
    for _ in $(seq 100); do
      [[ -z "$(squeue -h -o %i 2>/dev/null)" ]] && break
      sleep 0.1
    done
  fi
  # Job steps left behind (slurmstepd detaches from slurmd): only those writing to this cluster's files.
  for p in $(pgrep -x slurmstepd 2>/dev/null); do
    if ls -l "/proc/$p/fd" 2>/dev/null | grep -qF "$tmp/"; then stop_pid "$p"; fi
  done
  stop_pid "$slurmd_pid"
  stop_pid "$slurmctld_pid"
  stop_pid "$munged_pid"
  kill "$watchdog_pid" 2>/dev/null; wait "$watchdog_pid" 2>/dev/null
  if ((rc != 0 && rc != 77)); then
    for f in "$tmp"/log/*.log "$tmp"/out/logs/*.out; do
      [[ -f "$f" ]] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
    done
  fi
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Cleaned up in time even if a step hangs: well before ctest's timeout would kill this shell alone.
( sleep 240 & s=$!; trap 'kill $s; exit 0' TERM; wait $s; echo "FAIL: the test ran past 240 s" >&2; kill -TERM $$ ) &
watchdog_pid=$!

# 1. The job: 64 ranks from the DDP recording, rank 17 late by 300 ms a step, clocks off by up to 40 ms.
mkdir -p "$tmp/traces"
/usr/bin/python3 "$src/scripts/synth_ranks.py" "$src/examples/ddp/ddp_rank0.pt.trace.json.gz" "$tmp/traces" \
  --ranks 64 --straggler 17 --late-ms 300 --jitter-ms 5 --skew-ms 40 >/dev/null
mv "$tmp/traces/truth.json" "$tmp/truth.json"  # not a trace: the map step takes every file of the folder
ntraces=$(find "$tmp/traces" -type f | wc -l)
((ntraces == 64)) || fail "synth_ranks.py wrote $ntraces traces, expected 64"

# 2. The cluster.
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
node="$(hostname -s)"
ncpu="$(nproc)"
ctld_port="$(free_port)"
slurmd_port="$(free_port)"
while [[ "$slurmd_port" == "$ctld_port" ]]; do slurmd_port="$(free_port)"; done
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/run" "$tmp/log"
chmod 711 "$tmp/munge"  # munged: clients need to reach its socket
if command -v mungekey >/dev/null 2>&1; then
  mungekey --create --keyfile="$tmp/munge/munge.key" --force
else
  dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
fi
chmod 400 "$tmp/munge/munge.key"
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/munge.seed" \
  --num-threads=2 >>"$tmp/log/munged.log" 2>&1 &
munged_pid=$!

export SLURM_CONF="$tmp/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=stepdoctortest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
ReturnToService=2
MailProg=/bin/true
NodeName=$node NodeAddr=127.0.0.1 CPUs=$ncpu State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

for _ in $(seq 50); do [[ -S "$tmp/munge/munge.socket" ]] && break; sleep 0.1; done
[[ -S "$tmp/munge/munge.socket" ]] || fail "munged did not open its socket in 5 s"
slurmctld -D -f "$SLURM_CONF" >>"$tmp/log/slurmctld.stdout.log" 2>&1 &
slurmctld_pid=$!
slurmd -D -f "$SLURM_CONF" -N "$node" >>"$tmp/log/slurmd.stdout.log" 2>&1 &
slurmd_pid=$!

state=""
for _ in $(seq 120); do
  kill -0 "$slurmctld_pid" 2>/dev/null || fail "slurmctld exited"
  kill -0 "$slurmd_pid" 2>/dev/null || fail "slurmd exited"
  state="$(sinfo -h -N -n "$node" -o %T 2>/dev/null || true)"
  [[ "$state" == idle ]] && break
  sleep 0.5
done
[[ "$state" == idle ]] || fail "node $node is not idle after 60 s (sinfo: '${state}')"

# 3. The map/reduce job, as a user submits it.
submitted="$(FILES_PER_TASK=16 STEPDOCTOR="$bin" "$src/scripts/slurm/submit.sh" "$tmp/traces" "$tmp/out")" ||
  fail "submit.sh failed"
array_job="$(sed -n 's/^array_job=//p' <<<"$submitted")"
merge_job="$(sed -n 's/^merge_job=//p' <<<"$submitted")"
[[ "$array_job" =~ ^[0-9]+$ && "$merge_job" =~ ^[0-9]+$ ]] || fail "submit.sh printed no job ids: $submitted"
jobs_submitted="$array_job $merge_job"

done_in=""
for i in $(seq 300); do
  queued="$(squeue -h -o %i -j "$array_job,$merge_job" 2>&1)" || fail "squeue: $queued"
  if [[ -z "$queued" ]]; then done_in=$((i / 2)); break; fi
  sleep 0.5
done
[[ -n "$done_in" ]] || fail "the jobs are not done after 150 s: $(squeue -h -o '%i %T %r' 2>&1 | tr '\n' ';')"

# 4. Every array task and the merge succeeded, and the summaries are there.
tasks="$(scontrol -o show job "$array_job" 2>&1)" || fail "scontrol show job $array_job: $tasks"
ntasks=$(grep -c 'ArrayTaskId=' <<<"$tasks" || true)
((ntasks == 4)) || fail "the array ran $ntasks tasks, expected 4 (64 traces, 16 a task)"
bad="$(grep -v 'JobState=COMPLETED .*ExitCode=0:0' <<<"$tasks" | grep -o 'JobId=[0-9]* ArrayJobId=[0-9]* ArrayTaskId=[0-9]*\|JobState=[A-Z_]*\|ExitCode=[0-9:]*' | tr '\n' ' ' || true)"
[[ -z "$bad" ]] || fail "array tasks did not all succeed: $bad"
merge_state="$(scontrol -o show job "$merge_job" 2>&1)" || fail "scontrol show job $merge_job: $merge_state"
merge_state="$(grep -o 'JobState=[A-Z_]* .*ExitCode=[0-9:]*' <<<"$merge_state" | sed 's/ .* / /' || true)"
[[ "$merge_state" == "JobState=COMPLETED ExitCode=0:0" ]] || fail "merge job $merge_job: $merge_state"
nsum=$(find "$tmp/out/summaries" -type f -name '*.sdsum' | wc -l)
((nsum == 64)) || fail "$nsum summaries in $tmp/out/summaries, expected 64"
[[ -s "$tmp/out/report.txt" ]] || fail "no text report beside report.json"

# 5. The merged report names the injected straggler.
/usr/bin/python3 - "$tmp/out/report.json" "$tmp/truth.json" <<'EOF'
import json, re, sys
report, truth = (json.load(open(p)) for p in sys.argv[1:3])
workers = report.get("workers", [])
if len(workers) != truth["ranks"]:
    sys.exit("FAIL: the merged report has %d ranks, expected %d" % (len(workers), truth["ranks"]))
found = [f for f in report.get("findings", []) if f.get("id") == "straggler"]
if not found:
    sys.exit("FAIL: no straggler finding in the merged report: %s" % report.get("verdict", {}).get("summary"))
fig = found[0].get("figures", {})
# `rank` is there where the traces state their ranks (Kineto's distributedInfo); the DDP
# recording is the autograd profiler's bare array, so the rank is then its row's file name.
rank = fig.get("rank")
if rank is None:
    index = fig.get("worker_index")
    if not isinstance(index, int) or not 0 <= index < len(workers):
        sys.exit("FAIL: the straggler finding has neither rank nor a worker_index into workers: %s" % fig)
    w = workers[index]
    digits = re.search(r"[0-9]+", w.get("name", ""))
    rank = w["rank"] if w.get("rank", -1) >= 0 else (int(digits.group()) if digits else None)
if rank != truth["straggler"]:
    sys.exit("FAIL: the straggler finding names rank %s, truth is %d" % (rank, truth["straggler"]))
late, want = fig.get("late_ms_per_step"), truth["late_ms_per_step"]
if not isinstance(late, (int, float)) or abs(late - want) > 0.1 * want:
    sys.exit("FAIL: late_ms_per_step %s, truth %.1f (10%% allowed)" % (late, want))
print("straggler rank %d, %.1f ms a step late (truth %.1f)" % (rank, late, want))
EOF
echo "ok: 64 traces, 4 array tasks and the merge done in ${done_in} s"
