#!/usr/bin/env bash
# The scheduler scripts without a scheduler: scripts/slurm/stepdoctor-array.sbatch run as array
# tasks by hand, and the Kubernetes Indexed Job's embedded script (where PyYAML is there to read
# it), each with a recording binary in place of stepdoctor, must give every trace to exactly one
# task, in sorted order, 16 a task, with -o naming the file when a task gets one trace; the
# scripts' argument errors must exit 2 with one line naming the reason.
#   tests/slurm/scripts_test.sh SOURCE_DIR
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
(($# == 1)) || fail "usage: scripts_test.sh SOURCE_DIR"
src="$(realpath "$1")"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/stepdoctor-sched.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

for f in "$src"/scripts/slurm/*.sh "$src"/scripts/slurm/*.sbatch; do bash -n "$f" || fail "$f: syntax"; done

# 33 traces (two tasks of 16 and one of 1), plus files that are not traces.
mkdir -p "$tmp/traces"
for r in $(seq 0 32); do : > "$tmp/traces/rank$r.pt.trace.json.gz"; done
: > "$tmp/traces/README.md"; : > "$tmp/traces/.hidden"; mkdir "$tmp/traces/subdir"
LC_ALL=C ls "$tmp/traces" | grep '^rank' | sed "s|^|$tmp/traces/|" > "$tmp/want.txt"

# The recorder: one line per call, `-o OUT` then the traces.
cat > "$tmp/recorder" <<'EOF'
#!/usr/bin/env bash
[[ "$1" == summarize ]] || exit 3
shift; out=""; traces=()
while (($#)); do if [[ "$1" == -o ]]; then out="$2"; shift 2; else traces+=("$1"); shift; fi; done
echo "-o $out ${traces[*]}" >> "$RECORD"
EOF
chmod +x "$tmp/recorder"

# Checks one run of tasks: each trace once, in order; the one-trace task's -o names its file.
check_calls() {  # NAME
  local calls="$tmp/$1.calls"
  [[ $(wc -l < "$calls") == 3 ]] || fail "$1: $(wc -l < "$calls") summarize calls, expected 3"
  awk '{for (i = 3; i <= NF; i++) print $i}' "$calls" | cmp -s - "$tmp/want.txt" ||
    fail "$1: the tasks' traces are not every trace once in sorted order"
  awk 'NR < 3 { if ($2 != ENVIRON["SUMMARY_DIR"] "/" || NF != 18) exit 1 }' "$calls" ||
    fail "$1: a 16-trace task did not write to the folder: $(head -n 2 "$calls")"
  local last; last="$(tail -n 1 "$calls")"
  [[ "$last" == "-o $SUMMARY_DIR/rank9.pt.trace.json.gz.sdsum $tmp/traces/rank9.pt.trace.json.gz" ]] ||
    fail "$1: the one-trace task: $last"
}

export SUMMARY_DIR="$tmp/summaries" FILES_PER_TASK=16 STEPDOCTOR="$tmp/recorder"
sbatch_script="$src/scripts/slurm/stepdoctor-array.sbatch"
for list in dir file; do
  export RECORD="$tmp/array-$list.calls"
  if [[ $list == file ]]; then cp "$tmp/want.txt" "$tmp/list.txt"; export TRACE_LIST="$tmp/list.txt"; else export TRACE_DIR="$tmp/traces"; fi
  for t in 0 1 2; do SLURM_ARRAY_TASK_ID=$t bash "$sbatch_script" 2>/dev/null || fail "array task $t ($list) failed"; done
  check_calls "array-$list"
  unset TRACE_LIST
done

# Errors: exit 2, one line, the reason.
expect_error() {  # WANT_SUBSTRING COMMAND...
  local want="$1" out rc=0; shift
  out="$("$@" 2>&1 >/dev/null)" || rc=$?
  ((rc == 2)) || fail "$*: exit $rc, expected 2"
  [[ $(wc -l <<<"$out") == 1 && "$out" == *"$want"* ]] || fail "$*: '$out', expected one line with '$want'"
}
expect_error "has no traces" env SLURM_ARRAY_TASK_ID=3 bash "$sbatch_script"
expect_error "SLURM_ARRAY_TASK_ID is not set" env -u SLURM_ARRAY_TASK_ID bash "$sbatch_script"
expect_error "not found" env SLURM_ARRAY_TASK_ID=0 STEPDOCTOR="$tmp/absent" bash "$sbatch_script"
expect_error "no *.sdsum summaries" env OUT_DIR="$tmp/out" SUMMARY_DIR="$tmp/traces" bash "$src/scripts/slurm/stepdoctor-merge.sbatch"
submit="$src/scripts/slurm/submit.sh"
expect_error "expected TRACE_DIR and OUT_DIR" bash "$submit" "$tmp/traces"
expect_error "not a folder" bash "$submit" "$tmp/absent" "$tmp/out"
expect_error "not a positive number" bash "$submit" --files-per-task 0 "$tmp/traces" "$tmp/out"
expect_error "unknown option --bogus" bash "$submit" --bogus "$tmp/traces" "$tmp/out"

# Kubernetes: the manifests parse, and the Indexed Job's pods slice as the array does.
if ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
  echo "ok (Kubernetes manifests not checked: no PyYAML for /usr/bin/python3)"
  exit 0
fi
/usr/bin/python3 - "$src/scripts/k8s" "$tmp" <<'EOF'
import os, re, sys, yaml
k8s, tmp = sys.argv[1:3]
def job(name):
    docs = [d for d in yaml.safe_load_all(open(os.path.join(k8s, name))) if d]
    if len(docs) != 1 or docs[0].get("apiVersion") != "batch/v1" or docs[0].get("kind") != "Job":
        sys.exit("FAIL: %s is not one batch/v1 Job" % name)
    spec = docs[0]["spec"]
    pod = spec["template"]["spec"]
    if pod.get("restartPolicy") not in ("Never", "OnFailure"):
        sys.exit("FAIL: %s: a Job's pods need restartPolicy Never or OnFailure" % name)
    c = pod["containers"][0]
    mounts = {m["name"] for m in c.get("volumeMounts", [])}
    if not mounts or not mounts <= {v["name"] for v in pod.get("volumes", [])}:
        sys.exit("FAIL: %s: the container mounts a volume the pod does not have" % name)
    env = {e["name"]: e["value"] for e in c.get("env", [])}
    script = c["args"][0]
    # Kubernetes expands $(VAR) of the container's variables in args, and $$ to $: neither may occur.
    bad = [m for m in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", script) if m in env or m == "JOB_COMPLETION_INDEX"]
    if bad or "$$" in script:
        sys.exit("FAIL: %s: Kubernetes would rewrite %s in the script" % (name, bad or "$$"))
    return spec, env, script
spec, env, script = job("stepdoctor-summarize-job.yaml")
if spec.get("completionMode") != "Indexed" or not spec.get("completions"):
    sys.exit("FAIL: the summarize Job is not an Indexed Job with completions")
if env.get("FILES_PER_TASK") != "16":
    sys.exit("FAIL: the summarize Job's FILES_PER_TASK is %s, the scripts' default is 16" % env.get("FILES_PER_TASK"))
open(os.path.join(tmp, "k8s-summarize.sh"), "w").write(script)
open(os.path.join(tmp, "k8s-merge.sh"), "w").write(job("stepdoctor-merge-job.yaml")[2])
EOF
export RECORD="$tmp/k8s.calls"
mkdir -p "$tmp/bin"; ln -s "$tmp/recorder" "$tmp/bin/stepdoctor"
for i in 0 1 2; do
  PATH="$tmp/bin:$PATH" TRACE_DIR="$tmp/traces" JOB_COMPLETION_INDEX=$i bash "$tmp/k8s-summarize.sh" ||
    fail "the Indexed Job's pod $i failed"
done
check_calls k8s
expect_error "has no traces" env PATH="$tmp/bin:$PATH" TRACE_DIR="$tmp/traces" JOB_COMPLETION_INDEX=3 bash "$tmp/k8s-summarize.sh"
expect_error "expected 33" env PATH="$tmp/bin:$PATH" TRACE_DIR="$tmp/traces" OUT_DIR="$tmp/out" bash "$tmp/k8s-merge.sh"
echo "ok"
