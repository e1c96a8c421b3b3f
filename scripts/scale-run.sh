#!/usr/bin/env bash
# Measures a large run the way the book's "Scale" section (book/src/scaling.md) reports it: the run split into shards (`budgetlab run
# --shard K/N`), run one after another (or all at once with --parallel), then merged (`budgetlab merge`). Prints,
# per step and in total, the wall time and the peak resident memory, and the sizes of the merged batches.jsonl,
# batches.csv and results.json. Needs only bash and coreutils.
#
# Usage:
#   scripts/scale-run.sh --scenario NAME|FILE (--batches N | --turns N) --shards N --out DIR
#                        [--parallel] [--strategies LIST] [--threads N] [--bin PATH]
#
#   --turns N     at least N simulated turns: the batches are N over the turns of one batch (its budgets times
#                 the strategies), rounded up; one batch is run first, under DIR, to count them
#   --parallel    run the N shards at the same time (each on --threads threads, default all cores)
#   --bin PATH    the budgetlab binary (default: target/release/budgetlab, else budgetlab on PATH)
#
# DIR must not exist, or be one this script made (it holds .scale-run): shards go to DIR/shard-K, the merged run to
# DIR/merged. Peak memory is what /usr/bin/time -f %M reports when it is there (rss=time), else the child's VmHWM
# in /proc read every 0.05 s until it exits (rss=proc-vmhwm; growth in the last 0.05 s can be missed). With
# --parallel a step's peak is each shard's own, and the total's is the sum of the shards' peaks (they run at
# once). SCALE_RUN_RSS=proc forces the /proc reading.
#
# Output, one record a line, key=value:
#   step=shard-0/2 wall_s=1.234 peak_rss_kib=51234
#   step=merge wall_s=0.210 peak_rss_kib=20480
#   total wall_s=1.444 peak_rss_kib=51234 batches=40 turns=4560 shards=2 rss=time
#   output=batches.jsonl bytes=123456
# Bad arguments, or a DIR this script did not make: exit 2 with one line on stderr.

set -u -o pipefail

MARKER=".scale-run"

die() {
    echo "scale-run: $*" >&2
    exit 2
}

scenario="" batches="" turns="" shards="" out="" parallel=0 strategies="" threads="" bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --scenario | --batches | --turns | --shards | --out | --strategies | --threads | --bin)
            [ $# -ge 2 ] || die "$1 needs a value"
            case "$1" in
                --scenario) scenario=$2 ;;
                --batches) batches=$2 ;;
                --turns) turns=$2 ;;
                --shards) shards=$2 ;;
                --out) out=$2 ;;
                --strategies) strategies=$2 ;;
                --threads) threads=$2 ;;
                --bin) bin=$2 ;;
            esac
            shift 2
            ;;
        --parallel)
            parallel=1
            shift
            ;;
        -h | --help)
            sed -n '2,/^# Bad arguments/p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done

is_count() { [[ $1 =~ ^[1-9][0-9]{0,11}$ ]]; }

[ -n "$scenario" ] || die "--scenario is required"
[ -n "$out" ] || die "--out is required"
[ -n "$shards" ] || die "--shards is required"
is_count "$shards" && [ "$shards" -le 1024 ] || die "--shards '$shards' must be a whole number from 1 to 1024"
if [ -n "$batches" ] && [ -n "$turns" ]; then
    die "give --batches or --turns, not both"
fi
[ -n "$batches" ] || [ -n "$turns" ] || die "--batches or --turns is required"
[ -z "$batches" ] || is_count "$batches" || die "--batches '$batches' must be a whole number from 1"
[ -z "$turns" ] || is_count "$turns" || die "--turns '$turns' must be a whole number from 1"
[ -z "$threads" ] || is_count "$threads" || die "--threads '$threads' must be a whole number from 1"

if [ -z "$bin" ]; then
    here=$(cd "$(dirname "$0")/.." && pwd)
    if [ -x "$here/target/release/budgetlab" ]; then
        bin="$here/target/release/budgetlab"
    else
        bin=$(command -v budgetlab) || die "no budgetlab binary: build it (cargo build --release) or pass --bin"
    fi
fi
[ -x "$bin" ] || die "--bin '$bin' is not an executable file"

# The output folder: made here, or made by an earlier run of this script.
if [ -e "$out" ] || [ -L "$out" ]; then
    [ -d "$out" ] && [ ! -L "$out" ] && [ -f "$out/$MARKER" ] ||
        die "--out '$out' exists and was not made by scale-run.sh (no $MARKER in it); choose a new folder"
else
    mkdir -p -- "$out" || die "cannot create --out '$out'"
    echo "made by scripts/scale-run.sh" >"$out/$MARKER"
fi

if [ "${SCALE_RUN_RSS:-}" != proc ] && [ -x /usr/bin/time ]; then
    rss=time
else
    rss=proc-vmhwm
fi

now() {
    if [ -n "${EPOCHREALTIME:-}" ]; then
        echo "${EPOCHREALTIME/,/.}"
    else
        date +%s.%N
    fi
}

# seconds(START, END): END - START with millisecond precision, from two `now` readings.
seconds() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

# measure NAME -- COMMAND...: runs COMMAND (stdout and stderr to $out/NAME.log), then writes "WALL PEAK STATUS" to
# $out/NAME.measure.
measure() {
    local name=$1
    shift 2
    local log="$out/$name.log" start end peak status
    start=$(now)
    if [ "$rss" = time ]; then
        /usr/bin/time -f %M -o "$out/$name.rss" "$@" >"$log" 2>&1
        status=$?
        peak=$(tail -n 1 "$out/$name.rss" 2>/dev/null)
    else
        "$@" >"$log" 2>&1 &
        local pid=$! hwm
        peak=0
        while kill -0 "$pid" 2>/dev/null; do
            hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
            [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
            sleep 0.05
        done
        wait "$pid"
        status=$?
    fi
    end=$(now)
    [[ $peak =~ ^[0-9]+$ ]] || peak=0
    echo "$(seconds "$start" "$end") $peak $status" >"$out/$name.measure"
}

# The run's flags, shared by every shard.
run_flags=(--scenarios "$scenario")
[ -z "$strategies" ] || run_flags+=(--strategies "$strategies")
[ -z "$threads" ] || run_flags+=(--threads "$threads")

if [ -n "$turns" ]; then
    measure count -- "$bin" run "${run_flags[@]}" --batches 1 --out "$out/count"
    read -r _ _ status <"$out/count.measure"
    [ "$status" = 0 ] || die "counting the turns of one batch failed (exit $status): $(tail -n 1 "$out/count.log")"
    per_batch=$(wc -l <"$out/count/batches.jsonl")
    [ "$per_batch" -gt 0 ] || die "one batch of '$scenario' makes no turn"
    batches=$(((turns + per_batch - 1) / per_batch))
fi

total_start=$(now)
pids=()
for ((k = 0; k < shards; k++)); do
    args=("$bin" run "${run_flags[@]}" --batches "$batches" --shard "$k/$shards" --out "$out/shard-$k")
    if [ "$parallel" = 1 ]; then
        measure "shard-$k" -- "${args[@]}" &
        pids+=($!)
    else
        measure "shard-$k" -- "${args[@]}"
    fi
done
for pid in "${pids[@]}"; do wait "$pid"; done

peak_total=0
for ((k = 0; k < shards; k++)); do
    read -r wall peak status <"$out/shard-$k.measure"
    [ "$status" = 0 ] || die "shard $k/$shards failed (exit $status): $(tail -n 1 "$out/shard-$k.log")"
    echo "step=shard-$k/$shards wall_s=$wall peak_rss_kib=$peak"
    if [ "$parallel" = 1 ]; then
        peak_total=$((peak_total + peak))
    elif [ "$peak" -gt "$peak_total" ]; then
        peak_total=$peak
    fi
done

shard_dirs=()
for ((k = 0; k < shards; k++)); do shard_dirs+=("$out/shard-$k"); done
measure merge -- "$bin" merge "${shard_dirs[@]}" --out "$out/merged"
read -r wall peak status <"$out/merge.measure"
[ "$status" = 0 ] || die "merge failed (exit $status): $(tail -n 1 "$out/merge.log")"
echo "step=merge wall_s=$wall peak_rss_kib=$peak"
[ "$peak" -gt "$peak_total" ] && peak_total=$peak
total_end=$(now)

turns_run=$(wc -l <"$out/merged/batches.jsonl")
echo "total wall_s=$(seconds "$total_start" "$total_end") peak_rss_kib=$peak_total batches=$batches" \
    "turns=$turns_run shards=$shards rss=$rss"
for file in batches.jsonl batches.csv results.json; do
    echo "output=$file bytes=$(wc -c <"$out/merged/$file")"
done
