#!/usr/bin/env python3
"""Prints the finalize, linearity, text, generate and tokens bench results as Markdown tables.

Reads the medians criterion wrote under target/criterion/<group>/<function>[/<parameter>]/new/estimates.json
(run `cargo bench -- --quick` first) and reports a run's time as a ratio to its floor (in all and per turn), the reference finalizer's
time as a ratio to the floor, every strategy's time as a ratio to the floor and to the reference's (the same run), the cost of doubling each shape, a batch of duplicate call ids against distinct
ones, utf16_len against memchr, and an external strategy (the reference behind `finalize --serve`) against the built-in one. Standard library only.

Usage: scripts/bench-ratios.py [CRITERION_DIR]   (default: target/criterion)
"""

import contextlib
import io
import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join("target", "criterion")
SHAPES = ["a", "b", "c", "mixed"]


def load(*path):
    """(median ns, throughput bytes or None) of one benchmark, or None when it has not been run."""
    base = os.path.join(ROOT, *path, "new")
    try:
        with open(os.path.join(base, "estimates.json")) as f:
            median = json.load(f)["median"]["point_estimate"]
        with open(os.path.join(base, "benchmark.json")) as f:
            throughput = (json.load(f).get("throughput") or {}).get("Bytes")
    except (OSError, KeyError, ValueError):
        return None
    return median, throughput


def elements(*path):
    """The throughput in elements (a run's turns) criterion recorded for one benchmark, or None."""
    try:
        with open(os.path.join(ROOT, *path, "new", "benchmark.json")) as f:
            return (json.load(f).get("throughput") or {}).get("Elements")
    except (OSError, ValueError):
        return None


def ms(ns):
    return f"{ns / 1e6:.3f} ms" if ns >= 1e5 else f"{ns / 1e3:.1f} µs"


def gbps(nbytes, ns):
    return f"{nbytes / ns:.2f} GB/s"


def ratio(a, b):
    return f"{a / b:.2f}x"


def strategies(group):
    """Function ids of a group, in directory order, with `floor` last."""
    path = os.path.join(ROOT, group)
    names = sorted(n for n in os.listdir(path) if n != "report" and load(group, n))
    return [n for n in names if n != "floor"] + (["floor"] if "floor" in names else [])


def reference_table():
    print("| shape | text bytes | floor | reference | reference / floor | reference throughput |")
    print("|---|---:|---:|---:|---:|---:|")
    for shape in SHAPES:
        group = f"finalize_{shape}"
        ref, flo = load(group, "reference"), load(group, "floor")
        if not (ref and flo):
            continue
        print(f"| {shape} | {ref[1]:,} | {ms(flo[0])} | {ms(ref[0])} | {ratio(ref[0], flo[0])} "
              f"| {gbps(ref[1], ref[0])} |")


def strategy_table():
    groups = [f"finalize_{s}" for s in SHAPES if os.path.isdir(os.path.join(ROOT, f"finalize_{s}"))]
    if not groups:
        return
    floors = {g: load(g, "floor") for g in groups}
    print("| strategy | " + " | ".join(g.removeprefix("finalize_") for g in groups) + " |")
    print("|---|" + "---:|" * len(groups))
    for name in strategies(groups[0]):
        cells = []
        for g in groups:
            r = load(g, name)
            if r is None:
                cells.append("")
            elif floors[g] and name != "floor":
                cells.append(f"{ms(r[0])} ({ratio(r[0], floors[g][0])})")
            else:
                cells.append(ms(r[0]))
        print(f"| {name} | " + " | ".join(cells) + " |")


def against_reference_table():
    """Every strategy's median as a ratio to the reference's, measured in the same run (issue 47 holds the
    content-aware families to at most 3x on every shape)."""
    groups = [f"finalize_{s}" for s in SHAPES if os.path.isdir(os.path.join(ROOT, f"finalize_{s}"))]
    refs = {g: load(g, "reference") for g in groups}
    groups = [g for g in groups if refs[g]]
    if not groups:
        return
    print("| strategy | " + " | ".join(g.removeprefix("finalize_") for g in groups) + " |")
    print("|---|" + "---:|" * len(groups))
    for name in strategies(groups[0]):
        if name in ("reference", "floor"):
            continue
        cells = []
        for g in groups:
            r = load(g, name)
            cells.append(ratio(r[0], refs[g][0]) if r else "")
        print(f"| {name} | " + " | ".join(cells) + " |")


def linearity_table():
    print("| shape | reference x1 | reference x2 | x2 / x1 | floor x1 | floor x2 | x2 / x1 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for shape in "abc":
        group = f"linearity_{shape}"
        r1, r2 = load(group, "reference", "1"), load(group, "reference", "2")
        f1, f2 = load(group, "floor", "1"), load(group, "floor", "2")
        if not (r1 and r2 and f1 and f2):
            continue
        print(f"| {shape} | {ms(r1[0])} | {ms(r2[0])} | {ratio(r2[0], r1[0])} | {ms(f1[0])} | {ms(f2[0])} "
              f"| {ratio(f2[0], f1[0])} |")


def duplicate_ids_table():
    same, distinct = load("duplicate_ids", "same-id"), load("duplicate_ids", "distinct-ids")
    if not (same and distinct):
        return
    print("| batch | same call id | distinct call ids | same / distinct |")
    print("|---|---:|---:|---:|")
    print(f"| 20,000 x 200 units, budget 1,000 | {ms(same[0])} | {ms(distinct[0])} | {ratio(same[0], distinct[0])} |")


def threads_table():
    """The reference on shape c in a pool of one thread and of one per core, and the one-core floor."""
    path = os.path.join(ROOT, "threads_c", "reference")
    flo = load("threads_c", "floor")
    if not (os.path.isdir(path) and flo):
        return
    print("| threads | reference | reference / one-core floor | reference throughput |")
    print("|---:|---:|---:|---:|")
    for threads in sorted((n for n in os.listdir(path) if n.isdigit()), key=int):
        r = load("threads_c", "reference", threads)
        if r:
            print(f"| {threads} | {ms(r[0])} | {ratio(r[0], flo[0])} | {gbps(r[1], r[0])} |")
    print(f"| floor (1) | {ms(flo[0])} | 1.00x | {gbps(flo[1], flo[0])} |")


def digest_split_table():
    """8 equal fields hashed one after the other and on all cores, by total size."""
    path = os.path.join(ROOT, "digest_split", "one-core")
    if not os.path.isdir(path):
        return
    print("| bytes (8 fields) | one core | all cores | all / one |")
    print("|---:|---:|---:|---:|")
    for size in sorted(os.listdir(path), key=lambda n: int(n.removesuffix("KiB")) if n.endswith("KiB") else 0):
        one, every = load("digest_split", "one-core", size), load("digest_split", "all-cores", size)
        if one and every:
            print(f"| {size} | {ms(one[0])} | {ms(every[0])} | {ratio(every[0], one[0])} |")


def text_table():
    path = os.path.join(ROOT, "text_scan", "utf16_len")
    if not os.path.isdir(path):
        return
    print("| input | utf16_len | memchr | utf16_len / memchr | utf16_len ns/byte | utf16_len throughput |")
    print("|---|---:|---:|---:|---:|---:|")
    order = {"64KiB": 0, "1MiB": 1, "128MiB": 2}
    inputs = sorted(os.listdir(path), key=lambda n: (n.split("-")[0], order.get(n.split("-")[-1], 9)))
    for name in inputs:
        u, m = load("text_scan", "utf16_len", name), load("text_scan", "memchr", name)
        if not (u and m):
            continue
        print(f"| {name} | {ms(u[0])} | {ms(m[0])} | {ratio(u[0], m[0])} | {u[0] / u[1]:.4f} "
              f"| {gbps(u[1], u[0])} |")
    searches = [f for f in ("contains", "count_fffd") if os.path.isdir(os.path.join(ROOT, "text_scan", f))]
    if not searches:
        return
    print()
    print("| input | memchr | " + " | ".join(f"{f} | {f} / memchr" for f in searches) + " |")
    print("|---|---:|" + "---:|---:|" * len(searches))
    for name in inputs:
        m = load("text_scan", "memchr", name)
        if not m:
            continue
        cells = []
        for f in searches:
            r = load("text_scan", f, name)
            cells.append(f"{ms(r[0])} | {ratio(r[0], m[0])}" if r else " | ")
        print(f"| {name} | {ms(m[0])} | " + " | ".join(cells) + " |")


def generate_table():
    path = os.path.join(ROOT, "generate")
    if not os.path.isdir(path):
        return
    print("| scenario | text bytes | median | throughput |")
    print("|---|---:|---:|---:|")
    for scenario in sorted(n for n in os.listdir(path) if n != "report"):
        for param in sorted(os.listdir(os.path.join(path, scenario))):
            r = load("generate", scenario, param)
            if r and r[1]:
                print(f"| {scenario} | {r[1]:,} | {ms(r[0])} | {gbps(r[1], r[0])} |")


def tokens_table():
    """MB/s per core of each token counter on each scenario's text (criterion ids tokens_<scenario>/<impl>/<enc>)."""
    groups = sorted(n for n in os.listdir(ROOT) if n.startswith("tokens_"))
    if not groups:
        return
    counters = []
    for g in groups:
        for impl in sorted(os.listdir(os.path.join(ROOT, g))):
            if impl == "report":
                continue
            for enc in sorted(os.listdir(os.path.join(ROOT, g, impl))):
                if (impl, enc) not in counters and load(g, impl, enc):
                    counters.append((impl, enc))
    print("| text | " + " | ".join(f"{i} {e}" for i, e in counters) + " |")
    print("|---|" + "---:|" * len(counters))
    for g in groups:
        cells = []
        for impl, enc in counters:
            r = load(g, impl, enc)
            cells.append(f"{r[1] / r[0] * 1e3:.1f} MB/s" if r and r[1] else "")
        print(f"| {g.removeprefix('tokens_')} | " + " | ".join(cells) + " |")
def external_table():
    """The reference behind the protocol (`finalize --serve`) beside the built-in one."""
    mixed = (load("external_mixed", "reference"), load("external_mixed", "serve"))
    empty = (load("external_empty", "reference"), load("external_empty", "serve"))
    if not all(mixed) or not all(empty):
        return
    turns = 64
    print("| batches | built-in | external (`finalize --serve`) | external / built-in | overhead per turn |")
    print("|---|---:|---:|---:|---:|")
    print(f"| 64 of mixed-realistic, budget 20,000 | {ms(mixed[0][0])} | {ms(mixed[1][0])} "
          f"| {ratio(mixed[1][0], mixed[0][0])} | {ms((mixed[1][0] - mixed[0][0]) / turns)} |")
    print(f"| one empty batch | {empty[0][0]:.0f} ns | {ms(empty[1][0])} | {ratio(empty[1][0], empty[0][0])} "
          f"| {ms(empty[1][0] - empty[0][0])} |")


def run_floor_table():
    """A run of one plan beside its floor (`RunPlan::run_floor`), by threads, in all and per turn."""
    path = os.path.join(ROOT, "run_floor", "run")
    if not os.path.isdir(path):
        return
    print("| threads | turns | run | floor | run per turn | floor per turn | run / floor |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for threads in sorted((n for n in os.listdir(path) if n.isdigit()), key=int):
        r, f = load("run_floor", "run", threads), load("run_floor", "floor", threads)
        turns = elements("run_floor", "run", threads)
        if r and f:
            per = (lambda ns: ms(ns / turns)) if turns else (lambda ns: "")
            print(f"| {threads} | {turns or ''} | {ms(r[0])} | {ms(f[0])} | {per(r[0])} | {per(f[0])} "
                  f"| {ratio(r[0], f[0])} |")


def main():
    if not os.path.isdir(ROOT):
        sys.exit(f"bench-ratios: {ROOT} not found; run `cargo bench -- --quick` first")
    sections = [
        ("A run against its floor, in all and per turn (mixed-realistic, 24 batches, every strategy)",
         run_floor_table),
        ("Reference against the floor", reference_table),
        ("Every strategy (median, and its ratio to the floor)", strategy_table),
        ("Every strategy against the reference (median / the reference's median, same run)",
         against_reference_table),
        ("One large batch: the reference on shape c by threads, against the one-core floor", threads_table),
        ("Hashing 8 fields on one core and on all cores", digest_split_table),
        ("Linearity: every field doubled, the budget kept", linearity_table),
        ("Duplicate call ids against distinct ones", duplicate_ids_table),
        ("UTF-16 measurement and the metrics' byte searches against a memchr pass", text_table),
        ("Generation throughput", generate_table),
        ("Token counting, MB/s on one core", tokens_table),
        ("An external strategy against the built-in one", external_table),
    ]
    for title, table in sections:
        # A section whose bench was not run prints nothing, not even its heading.
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            table()
        if out.getvalue():
            print(f"### {title}\n")
            print(out.getvalue())


if __name__ == "__main__":
    main()
