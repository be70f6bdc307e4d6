#!/usr/bin/env bash
# Diagnoses a many-rank job on Slurm: a job array summarizes the rank traces (map), then a job
# that waits for it merges the summaries into the job's report (reduce).
#   scripts/slurm/submit.sh TRACE_DIR OUT_DIR [options] [-- SBATCH_OPTION...]
# Options:
#   -n, --files-per-task N  traces per array task (default: $FILES_PER_TASK or 16)
#   --glob PATTERN          which files of TRACE_DIR are traces (default: all but dot files, *.md)
#   --max-parallel M        at most M array tasks at once (--array=0-K%M)
#   --stepdoctor PATH       the binary the jobs run (default: $STEPDOCTOR or stepdoctor on PATH)
# SBATCH_OPTIONs after -- go to both submissions (--partition=..., --account=..., --time=...,
# --mem=...); sbatch's own SBATCH_* environment variables work too.
# Writes OUT_DIR/traces.txt (the sorted trace list every task reads its slice from),
# OUT_DIR/summaries/ (one <trace>.sdsum per trace), OUT_DIR/logs/, and at the end
# OUT_DIR/report.json and OUT_DIR/report.txt. Prints array_job=ID and merge_job=ID.
set -euo pipefail

die() { echo "submit.sh: $*" >&2; exit 2; }
usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
files_per_task="${FILES_PER_TASK:-16}"
stepdoctor="${STEPDOCTOR:-stepdoctor}"
glob="*"
max_parallel=""
positional=()
sbatch_args=()
while (($#)); do
  case "$1" in
    -n|--files-per-task) (($# >= 2)) || die "$1 needs a value"; files_per_task="$2"; shift 2 ;;
    --glob) (($# >= 2)) || die "$1 needs a value"; glob="$2"; shift 2 ;;
    --max-parallel) (($# >= 2)) || die "$1 needs a value"; max_parallel="$2"; shift 2 ;;
    --stepdoctor) (($# >= 2)) || die "$1 needs a value"; stepdoctor="$2"; shift 2 ;;
    -h|--help) usage ;;
    --) shift; sbatch_args=("$@"); break ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
((${#positional[@]} == 2)) || die "expected TRACE_DIR and OUT_DIR (see --help)"
trace_dir="${positional[0]}"
out_dir="${positional[1]}"

[[ "$files_per_task" =~ ^[1-9][0-9]*$ ]] || die "--files-per-task $files_per_task is not a positive number"
[[ -z "$max_parallel" || "$max_parallel" =~ ^[1-9][0-9]*$ ]] || die "--max-parallel $max_parallel is not a positive number"
[[ -d "$trace_dir" ]] || die "$trace_dir: not a folder"
command -v sbatch >/dev/null 2>&1 || die "sbatch not found: run this where Slurm's client commands are"
# The jobs run elsewhere, in another folder: give them absolute paths.
if [[ "$stepdoctor" == */* ]]; then
  [[ -x "$stepdoctor" ]] || die "--stepdoctor $stepdoctor: not an executable file"
  stepdoctor="$(realpath "$stepdoctor")"
else
  command -v "$stepdoctor" >/dev/null 2>&1 ||
    echo "submit.sh: warning: $stepdoctor is not on PATH here; the jobs look it up on their nodes" >&2
fi
trace_dir="$(realpath "$trace_dir")"
mkdir -p "$out_dir"
out_dir="$(realpath "$out_dir")"
summary_dir="$out_dir/summaries"
log_dir="$out_dir/logs"
list="$out_dir/traces.txt"
mkdir -p "$summary_dir" "$log_dir"

# The list is one path a line, so a name holding a line break cannot be in it.
if [[ -n "$(find "$trace_dir" -mindepth 1 -maxdepth 1 -name $'*\n*' -print -quit)" ]]; then
  die "a file name in $trace_dir holds a line break"
fi
find "$trace_dir" -mindepth 1 -maxdepth 1 -type f -name "$glob" ! -name '.*' ! -name '*.md' |
  LC_ALL=C sort > "$list"
n=$(wc -l < "$list")
((n > 0)) || die "no trace files matching '$glob' in $trace_dir"
tasks=$(((n + files_per_task - 1) / files_per_task))
array="0-$((tasks - 1))${max_parallel:+%$max_parallel}"

# The job scripts read these from the environment sbatch passes on (its default, --export=ALL).
export TRACE_LIST="$list" TRACE_DIR="$trace_dir" SUMMARY_DIR="$summary_dir" OUT_DIR="$out_dir" \
       FILES_PER_TASK="$files_per_task" STEPDOCTOR="$stepdoctor" EXPECTED_SUMMARIES="$n"

array_job=$(sbatch --parsable --array="$array" --output="$log_dir/summarize-%A_%a.out" \
              "${sbatch_args[@]}" "$here/stepdoctor-array.sbatch") || die "sbatch refused the array job"
array_job="${array_job%%;*}"  # --parsable prints ID or ID;CLUSTER
[[ "$array_job" =~ ^[0-9]+$ ]] || die "sbatch answered '$array_job', not a job id"
merge_job=$(sbatch --parsable --dependency="afterok:$array_job" --kill-on-invalid-dep=yes \
              --output="$log_dir/merge-%j.out" "${sbatch_args[@]}" "$here/stepdoctor-merge.sbatch") || {
  scancel "$array_job" 2>/dev/null || true
  die "sbatch refused the merge job (array job $array_job cancelled)"
}
merge_job="${merge_job%%;*}"
echo "submit.sh: $n traces, $tasks array tasks of up to $files_per_task (job $array_job); merge: job $merge_job -> $out_dir/report.json" >&2
echo "array_job=$array_job"
echo "merge_job=$merge_job"
