#!/usr/bin/env bash
# Measures `budgetlab run` side by side: a "before" binary against this tree's release build ("after"), in
# interleaved runs (before, after, before, after, ...), and prints the median turns per second of each and the
# ratio after/before, per thread count. Needs only bash, python3 (for the medians), cargo and git.
#
# Usage: scripts/speed-vs-before.sh --before BIN|COMMIT [--after BIN] [--runs N] [--threads "1 2"]
#                                   [--scenarios NAME] [--batches N]
#
#   --before   a budgetlab binary, or a git commit of this repository, built with `cargo build --release` in a
#              temporary worktree and target directory (both removed afterwards)
#   --after    a budgetlab binary (default: this tree's target/release/budgetlab, built first)
#   --runs     runs of each binary per thread count (default 5; the median counts)
#   --threads  the thread counts to measure (default "1 2")
#   --scenarios, --batches   the workload (default: mixed-realistic, 960 batches)
#
# Each run writes into its own temporary --out folder, removed right after. Bad arguments: exit 2, one line.

set -euo pipefail

die() {
    echo "speed-vs-before: $*" >&2
    exit 2
}

before="" after="" runs=5 threads="1 2" scenarios="mixed-realistic" batches=960
while [ $# -gt 0 ]; do
    case "$1" in
        --before | --after | --runs | --threads | --scenarios | --batches)
            [ $# -ge 2 ] || die "$1 needs a value"
            case "$1" in
                --before) before="$2" ;;
                --after) after="$2" ;;
                --runs) runs="$2" ;;
                --threads) threads="$2" ;;
                --scenarios) scenarios="$2" ;;
                --batches) batches="$2" ;;
            esac
            shift 2
            ;;
        -h | --help)
            sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done

[ -n "$before" ] || die "--before BIN|COMMIT is required"
[[ "$runs" =~ ^[1-9][0-9]?$ ]] || die "--runs must be a whole number from 1 to 99, not '$runs'"
[[ "$batches" =~ ^[1-9][0-9]{0,6}$ ]] || die "--batches must be a whole number from 1 to 9999999, not '$batches'"
[ -n "${threads// /}" ] || die "--threads needs at least one thread count"
for t in $threads; do
    [[ "$t" =~ ^[1-9][0-9]?$ ]] || die "--threads must list whole numbers from 1 to 99, not '$t'"
done
[[ "$scenarios" =~ ^[A-Za-z0-9._,/-]+$ ]] || die "--scenarios must be scenario names, not '$scenarios'"

root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/speed-vs-before.XXXXXX")"
worktree=""
cleanup() {
    if [ -n "$worktree" ]; then
        git -C "$root" worktree remove --force "$worktree" >/dev/null 2>&1 || true
    fi
    rm -rf "$scratch"
}
trap cleanup EXIT

# The before binary: a file, or a commit built in a temporary worktree with its own target directory.
if [ -f "$before" ]; then
    [ -x "$before" ] || die "--before '$before' is not executable"
    before_bin="$(cd "$(dirname "$before")" && pwd)/$(basename "$before")"
    before_what="$before"
else
    # git's own complaint (outside a checkout: "not a git repository") is not shown: the one line below says it.
    commit="$(git -C "$root" rev-parse --verify --quiet "$before^{commit}" 2>/dev/null)" ||
        die "--before '$before' is neither a file nor a commit of $root"
    worktree="$scratch/before-src"
    git -C "$root" worktree add --detach --quiet "$worktree" "$commit" ||
        die "could not check out $commit in a temporary worktree"
    echo "building $commit (before) ..." >&2
    cargo build --release --quiet --manifest-path "$worktree/Cargo.toml" --target-dir "$scratch/before-target" >&2 ||
        die "cargo build --release of $commit failed"
    before_bin="$scratch/before-bin"
    cp "$scratch/before-target/release/budgetlab" "$before_bin"
    git -C "$root" worktree remove --force "$worktree"
    worktree=""
    rm -rf "$scratch/before-target"
    before_what="$commit"
fi

if [ -n "$after" ]; then
    [ -f "$after" ] && [ -x "$after" ] || die "--after '$after' is not an executable file"
    after_bin="$after"
    after_what="$after"
else
    echo "building this tree (after) ..." >&2
    cargo build --release --quiet --manifest-path "$root/Cargo.toml" >&2 || die "cargo build --release of this tree failed"
    after_bin="$root/target/release/budgetlab"
    after_what="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "this tree")"
fi

# One run: prints "wall_seconds turns".
one_run() {
    local bin="$1" nthreads="$2" out="$scratch/out"
    rm -rf "$out"
    local start end line
    start="$(date +%s%N)"
    local log="$scratch/run.log"
    "$bin" run --scenarios "$scenarios" --batches "$batches" --threads "$nthreads" --out "$out" >/dev/null 2>"$log" ||
        die "$bin run failed: $(tail -n 1 "$log")"
    end="$(date +%s%N)"
    rm -rf "$out"
    line="$(grep -E '^budgetlab: [0-9]+ turns' "$log" | tail -n 1)" || die "no summary line from $bin run"
    local turns="${line#budgetlab: }"
    turns="${turns%% turns*}"
    [[ "$turns" =~ ^[0-9]+$ ]] || die "could not read the number of turns from '$line'"
    echo "$(( end - start )) $turns"
}

echo "before: $before_what"
echo "after:  $after_what"
echo "workload: run --scenarios $scenarios --batches $batches, $runs interleaved runs each, medians"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '-')"
echo
printf '%-8s %-7s %10s %12s %14s\n' "threads" "binary" "turns" "median s" "turns/s"
summary=""
for t in $threads; do
    b_times="" a_times="" turns_b="" turns_a=""
    for _ in $(seq "$runs"); do
        res="$(one_run "$before_bin" "$t")"
        read -r ns turns_b <<<"$res"
        b_times="$b_times $ns"
        res="$(one_run "$after_bin" "$t")"
        read -r ns turns_a <<<"$res"
        a_times="$a_times $ns"
    done
    [ "$turns_b" = "$turns_a" ] || die "before ran $turns_b turns and after $turns_a: not the same workload"
    read -r b_med a_med b_rate a_rate ratio < <(python3 - "$turns_a" "$b_times" "$a_times" <<'PY'
import statistics, sys
turns = int(sys.argv[1])
b = statistics.median(int(x) for x in sys.argv[2].split()) / 1e9
a = statistics.median(int(x) for x in sys.argv[3].split()) / 1e9
print(f"{b:.3f} {a:.3f} {turns / b:.0f} {turns / a:.0f} {b / a:.2f}")
PY
)
    printf '%-8s %-7s %10s %12s %14s\n' "$t" "before" "$turns_b" "$b_med" "$b_rate"
    printf '%-8s %-7s %10s %12s %14s\n' "$t" "after" "$turns_a" "$a_med" "$a_rate"
    summary="$summary$(printf 'ratio after/before, %s thread(s): %sx' "$t" "$ratio")"$'\n'
done
echo
printf '%s' "$summary"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '-')"
