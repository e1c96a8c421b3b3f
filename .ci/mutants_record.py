"""The record of `.ci/mutants` (mutants-record.tsv): the latest outcome of each mutant, kept in git so that the
scores outlive the machine whose runs measured them.

A header line, then one mutant a line, eleven cells separated by tabs: its name (cargo-mutants' FILE:LINE:COLUMN:
CHANGE), the first line and column and the last line and column of its span (lines counted from its function's
first line; four "-" for a mutant of no function), its outcome, its build and test seconds, when its run began
(cargo-mutants' start_time, RFC 3339), what was tested ("commit 1a2b3c4d5e6f") and the fingerprint of its
function's code as tested ("-" where the tested code is not known: a tree with uncommitted changes). Rows are
sorted, so that a change of the record reads as the mutants whose outcome changed. A record of the first version
(ten cells, no fingerprints) is read as one whose fingerprints are all unknown.

Everything read is checked, and a row is written only if it reads back as what was meant: a bad record stops the
summary (Bad: one line naming the file and the line) instead of counting something else.
"""

import datetime
import fcntl
import hashlib
import math
import os
import re
import stat
import tempfile

FIRST_HEADER = ("# .ci/mutants --record: name, start line in function, start column, end line in function, "
                "end column, outcome, build s, test s, run began, tested")
HEADER = FIRST_HEADER + ", function's fingerprint"
KINDS = ("CaughtMutant", "MissedMutant", "Unviable", "Timeout")


class Bad(ValueError):
    """An input that is not what it should be; its text names the problem."""


def unplaced(name):
    """cargo-mutants' name without its line and column: "src/x.rs:12:5: replace ..." -> "src/x.rs: replace ..."."""
    return re.sub(r"^([^:]+):\d+:\d+: ", r"\1: ", name)


def identity(m):
    """Which mutant this is, whatever its lines: its file, its change, and where it is in its function (line and
    column from the function's first line). So a run and its rerun on a later commit, where lines were added above
    the function, count one mutant once; a function that itself changed has new mutants."""
    if not isinstance(m, dict) or not isinstance(m.get("name"), str) or not isinstance(m.get("file"), str):
        raise Bad(f"not a cargo-mutants mutant (no name and file): {str(m)[:80]}")
    function, span = m.get("function"), m.get("span")
    if not function or not span:
        return m["name"]
    try:
        first = int(function["span"]["start"]["line"])
        return (m["file"], unplaced(m["name"]), int(span["start"]["line"]) - first, int(span["start"]["column"]),
                int(span["end"]["line"]) - first, int(span["end"]["column"]))
    except (KeyError, TypeError, ValueError) as e:
        raise Bad(f"mutant {m['name']!r} has no readable span ({e!r})") from None


def function_lines(m):
    """The first and last line (from 1) of the code a mutant's outcome is of: its function's, or its own for a
    mutant of no function."""
    span = (m.get("function") or {}).get("span") or m.get("span")
    try:
        return int(span["start"]["line"]), int(span["end"]["line"])
    except (KeyError, TypeError, ValueError) as e:
        raise Bad(f"mutant {m.get('name')!r} has no readable span ({e!r})") from None


def fingerprint(text, first, last):
    """What a function's code is: 16 hex digits of the SHA-256 of its lines, `first` to `last` of `text`. A
    function moved by lines added above it keeps its fingerprint; one whose code changed gets another."""
    lines = text.split("\n")[max(first - 1, 0):max(last, 0)]
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:16]


_TIME = re.compile(r"(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?([Zz]|[+-]\d\d:\d\d)")


def began(text):
    """When a run began, as a value that sorts in time (seconds since 1970 in UTC, nanoseconds), from an RFC 3339
    time such as cargo-mutants' start_time. Compared as text, "07:30:25.25Z" would sort after "07:30:25.250825Z"."""
    found = _TIME.fullmatch(text) if isinstance(text, str) else None
    if not found:
        raise Bad(f"{str(text)[:40]!r} is not a time (RFC 3339, such as 2026-12-02T07:30:00Z)")
    year, month, day, hour, minute, second = (int(g) for g in found.groups()[:6])
    try:
        base = datetime.datetime(year, month, day, hour, minute, min(second, 59), tzinfo=datetime.timezone.utc)
    except ValueError as e:
        raise Bad(f"{text!r} is not a time ({e})") from None
    zone = found.group(8)
    offset = 0 if zone in "Zz" else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return (int(base.timestamp()) - offset + max(second - 59, 0), int((found.group(7) or "").ljust(9, "0")))


def seconds(value):
    """A phase's duration in seconds, from outcomes.json: a number from 0 to 10 million."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value < 1e7:
        raise Bad(f"{str(value)[:40]!r} is not a duration in seconds")
    return float(value)


_NAME = re.compile(r"([^:\t\r\n]+):\d{1,7}:\d{1,7}: [^\t\r\n]+")
_PLACE = re.compile(r"-?\d{1,7}")
_SECONDS = re.compile(r"\d{1,7}(\.\d{1,3})?")
_TESTED = re.compile(r"[^\x00-\x1f\x7f]{1,200}")
_FINGERPRINT = re.compile(r"[0-9a-f]{16}")


def parse_row(line, first_version=False):
    """(identity, outcome) of one row; an outcome is (run began, name, file, summary, {phase: s}, tested,
    fingerprint or None)."""
    cells = line.split("\t")
    if len(cells) != 11 and not (len(cells) == 10 and first_version):
        raise Bad(f"expected {10 if first_version else 11} tab-separated cells, got {len(cells)}")
    cells += ["-"] * (11 - len(cells))
    name, places, (summary, build, test, run_began, tested, printed) = cells[0], cells[1:5], cells[5:]
    placed = _NAME.fullmatch(name)
    if not placed:
        raise Bad(f"{name[:80]!r} is not a mutant's name (FILE:LINE:COLUMN: CHANGE)")
    if places == ["-"] * 4:
        key = name
    elif all(_PLACE.fullmatch(p) for p in places):
        key = (placed.group(1), unplaced(name)) + tuple(int(p) for p in places)
    else:
        raise Bad(f"expected four line and column numbers or four '-', got {places}")
    if summary not in KINDS:
        raise Bad(f"unknown outcome {summary[:40]!r} (one of {', '.join(KINDS)})")
    for cell in (build, test):
        if not _SECONDS.fullmatch(cell):
            raise Bad(f"{cell[:40]!r} is not a number of seconds")
    began(run_began)
    if not _TESTED.fullmatch(tested):
        raise Bad(f"{tested[:40]!r} does not say what was tested (up to 200 characters, no control characters)")
    if printed != "-" and not _FINGERPRINT.fullmatch(printed):
        raise Bad(f"{printed[:40]!r} is not a fingerprint (16 hex digits, or '-')")
    return key, (run_began, name, placed.group(1), summary, {"Build": float(build), "Test": float(test)}, tested,
                 None if printed == "-" else printed)


def format_row(key, outcome):
    """The row of one outcome, checked to read back as the same mutant and outcome."""
    run_began, name, _, summary, phases, tested, printed = outcome
    places = ["-"] * 4 if isinstance(key, str) else [str(p) for p in key[2:]]
    row = "\t".join([name] + places + [summary, f"{phases.get('Build', 0.0):.1f}", f"{phases.get('Test', 0.0):.1f}",
                                       run_began, tested, printed or "-"])
    try:
        read_key, read = parse_row(row)
    except Bad as e:
        raise Bad(f"cannot record {name[:80]!r}: {e}") from None
    if read_key != key or read[3] != summary or read[6] != printed:
        raise Bad(f"cannot record {name[:80]!r}: its row would read back as another mutant")
    return row


def read(path):
    """The record at `path` ({} when there is none): {identity: outcome}."""
    if not os.path.lexists(path):
        return {}
    if not os.path.isfile(path):
        raise Bad(f"{path}: not a regular file")
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise Bad(f"{path}: unreadable ({e})") from None
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    if lines[0] not in (HEADER, FIRST_HEADER):
        raise Bad(f"{path}:1: not a record of .ci/mutants (its first line is not the record's header)")
    first_version = lines[0] == FIRST_HEADER
    rows, first = {}, {}
    for n, line in enumerate(lines[1:], 2):
        if not line:
            continue
        try:
            key, outcome = parse_row(line, first_version)
        except Bad as e:
            raise Bad(f"{path}:{n}: {e}") from None
        if key in rows:
            raise Bad(f"{path}:{n}: the mutant of line {first[key]} again")
        rows[key], first[key] = outcome, n
    return rows


class locked:
    """One writer of the record at a time (a lock on its folder): two runs ending together would otherwise each
    write the record without the other's outcomes."""

    def __init__(self, path):
        self.folder = os.path.dirname(os.path.realpath(path))

    def __enter__(self):
        try:
            self.fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as e:
            raise Bad(f"{self.folder}: cannot hold the record ({e.strerror})") from None
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *_):
        os.close(self.fd)


def write(path, outcomes):
    """Writes `outcomes` ({identity: outcome}) as the record at `path`, whole or not at all: into a new file beside
    it, then renamed over it (the file a symbolic link names, which keeps its permissions). Returns the rows."""
    rows = sorted(format_row(key, outcome) for key, outcome in outcomes.items())
    target = os.path.realpath(path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, temporary = None, None
    try:
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".mutants-record.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            fd = None
            f.write(HEADER + "\n" + "".join(row + "\n" for row in rows))
        os.chmod(temporary, mode)
        os.replace(temporary, target)
        temporary = None
    except (OSError, UnicodeError) as e:
        raise Bad(f"{path}: could not write the record ({getattr(e, 'strerror', None) or e})") from None
    finally:
        if fd is not None:
            os.close(fd)
        if temporary is not None:
            os.unlink(temporary)
    return len(rows)
