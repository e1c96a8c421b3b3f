#!/usr/bin/env python3
"""A head-and-tail finalizer speaking budgetlab's external-strategy protocol, version 1 (docs/protocol.md).

Standard library only. Run it as a strategy:

    budgetlab finalize --budget 8000 --input examples/turn.json \
        --external headtail="python3 examples/external/headtail.py" --strategy headtail

What it does with each batch (lengths are UTF-16 code units, as budgetlab counts them):

1. The budgeted fields are the string `text` parts and the string `output` and `error` of each
   `functionResponse.response`, in entry and part order; an `enter_plan_mode` output that is a plan-mode
   reminder (or starts with one and a blank line) keeps that reminder outside the budget.
2. With no budget (null, zero or negative) or a batch that fits, the batch goes back unchanged.
3. Otherwise the budget is shared equally: fields shorter than their share keep everything and leave the rest
   to the others, and the fields still too long split what is left evenly (the first ones in order get one unit
   more when it does not divide). The shares add up to the budget at most.
4. An entry with a shortened field has its complete text (its budgeted fields, joined by blank lines) written
   once to `artifactDir/<id>.txt`, `<id>` being the last path component of its call id (`-1`, `-2`, ... when
   taken); an entry that already has `persistedOutputFiles` names those paths and writes nothing. Every
   attempt is reported, a failed one with a null path.
5. A shortened field becomes a note naming the artifact, then half of what is left from its start, `\n...\n`, and
   the other half from its end. A cut never splits a surrogate pair, so a field may come out one unit short.
6. It declares the `context` capability: a request whose batch has a turn context carries it, and the
   finalizer writes it to its log (standard error) without using it.
"""

import hashlib
import json
import os
import sys
import tempfile

PROTOCOL = "budgetlab-finalizer"
PLAN_MODE_TOOL = "enter_plan_mode"
ELLIPSIS = "\n...\n"


def units(text):
    """Length in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def cut_head(text, n):
    """The first n UTF-16 units of text, one fewer when the n-th would split a surrogate pair."""
    data = text.encode("utf-16-le")[: 2 * n]
    if len(data) >= 2 and 0xD800 <= int.from_bytes(data[-2:], "little") <= 0xDBFF:
        data = data[:-2]
    return data.decode("utf-16-le")


def cut_tail(text, n):
    """The last n UTF-16 units of text, one fewer when the first would split a surrogate pair."""
    if n <= 0:
        return ""
    data = text.encode("utf-16-le")[-2 * n :]
    if len(data) >= 2 and 0xDC00 <= int.from_bytes(data[:2], "little") <= 0xDFFF:
        data = data[2:]
    return data.decode("utf-16-le")


def protected_prefix(output, reminders):
    """Characters at the start of an enter_plan_mode output that stay outside the budget."""
    for reminder in reminders:
        if output == reminder:
            return len(output)
        if output.startswith(reminder + "\n\n"):
            return len(reminder) + 2
    return 0


def slots(batch, reminders):
    """Every budgeted field: (entry index, container, key, protected prefix length)."""
    found = []
    for e, entry in enumerate(batch):
        for part in entry.get("responseParts", []):
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                found.append((e, part, "text", 0))
            fr = part.get("functionResponse") if isinstance(part, dict) else None
            response = fr.get("response") if isinstance(fr, dict) else None
            if not isinstance(response, dict):
                continue
            name = fr.get("name")
            if name is None:
                name = entry.get("toolName")
            output = response.get("output")
            if isinstance(output, str):
                keep = protected_prefix(output, reminders) if name == PLAN_MODE_TOOL else 0
                if output[keep:]:
                    found.append((e, response, "output", keep))
            if isinstance(response.get("error"), str):
                found.append((e, response, "error", 0))
    return found


def allocate(lengths, budget):
    """Equal shares of budget; what a short field leaves goes to the others."""
    alloc = [0] * len(lengths)
    left = budget
    open_ = sorted(range(len(lengths)), key=lambda i: lengths[i])
    while open_:
        share = left // len(open_)
        fits = [i for i in open_ if lengths[i] <= share]
        if not fits:
            break
        for i in fits:
            alloc[i] = lengths[i]
            left -= lengths[i]
        open_ = [i for i in open_ if lengths[i] > share]
    if open_:
        share, extra = divmod(left, len(open_))
        for rank, i in enumerate(sorted(open_)):
            alloc[i] = share + (1 if rank < extra else 0)
    return alloc


def persistence_id(call_id):
    """The last path component of a call id, NUL replaced by '_'; None when it names nothing."""
    last = call_id.rstrip("/").rsplit("/", 1)[-1].replace("\0", "_")
    return None if last in ("", ".", "..") else last


def fails(persist_faults, ident):
    """Whether the request asks this write to fail (the persist-faults capability)."""
    if not persist_faults:
        return False
    if ident in persist_faults["ids"]:
        return True
    digest = hashlib.sha256(bytes.fromhex(persist_faults["salt"]) + ident.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "little") % 1_000_000 < persist_faults["ratePpm"]


def join(directory, name):
    """directory/name, without doubling a trailing '/'."""
    return directory + name if directory.endswith("/") else directory + "/" + name


def write_artifact(directory, ident, content):
    """Writes content to directory/ident.txt through a temporary file; the path, or None on failure."""
    try:
        os.makedirs(directory, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".headtail-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                f.write(content)
            path = join(directory, ident + ".txt")
            os.replace(temp, path)
            return path
        except BaseException:
            os.unlink(temp)
            raise
    except OSError as e:
        print(f"headtail: cannot write {ident}: {e}", file=sys.stderr)
        return None


def preview(text, alloc, path):
    """text cut to at most alloc units: a note naming the artifact, then its head and its tail."""
    where = f"full output: {path}" if path else "full output not saved"
    note = f"[cut to {alloc} units; {where}]\n"
    room = alloc - units(note)
    if room < 0:
        return cut_head(note, alloc)
    if room <= units(ELLIPSIS):
        return note + cut_head(text, room)
    room -= units(ELLIPSIS)
    head = room // 2
    return note + cut_head(text, head) + ELLIPSIS + cut_tail(text, room - head)


def finalize(request):
    batch = request["batch"]
    budget = request.get("budget")
    reminders = request.get("reminders") or []
    found = slots(batch, reminders)
    texts = [box[key][keep:] for (_, box, key, keep) in found]
    lengths = [units(t) for t in texts]
    if budget is None or budget <= 0 or sum(lengths) <= budget:
        return batch, []
    alloc = allocate(lengths, budget)
    short = {found[i][0] for i in range(len(found)) if alloc[i] < lengths[i]}
    paths, persisted, taken = {}, [], set()
    for e in sorted(short):
        entry = batch[e]
        if "persistedOutputFiles" in entry:
            existing = entry["persistedOutputFiles"]
            # Every file that already holds the output is named.
            paths[e] = ", ".join(existing) if existing else None
            continue
        content = "\n\n".join(texts[i] for i in range(len(found)) if found[i][0] == e)
        ident = persistence_id(entry["callId"])
        if ident is None:
            paths[e] = None
            persisted.append({"callId": entry["callId"], "toolName": entry["toolName"],
                              "content": content, "path": None, "entry": e})
            entry["persistedOutputFiles"] = []
            continue
        base, k = ident, 0
        while ident in taken:
            k += 1
            ident = f"{base}-{k}"
        taken.add(ident)
        if fails(request.get("persistFaults"), ident):
            path = None
        else:
            path = write_artifact(request["artifactDir"], ident, content)
        paths[e] = path
        persisted.append({"callId": ident, "toolName": entry["toolName"],
                          "content": content, "path": path, "entry": e})
        entry["persistedOutputFiles"] = [path] if path else []
    for i, (e, box, key, keep) in enumerate(found):
        if alloc[i] < lengths[i]:
            box[key] = box[key][:keep] + preview(texts[i], alloc[i], paths.get(e))
    return batch, persisted


def send(message):
    # ASCII JSON: any locale can write it, and a broken surrogate pair could only ever show as an escape.
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    # Bytes in, decoded as UTF-8 by json whatever the locale says.
    hello = json.loads(sys.stdin.buffer.readline() or b"null")
    if not isinstance(hello, dict) or hello.get("protocol") != PROTOCOL:
        print("headtail: not a budgetlab-finalizer handshake", file=sys.stderr)
        return 2
    # "context": requests then carry the turn's context (task, calls, assistant text) when the batch has one.
    send({"protocol": PROTOCOL, "version": 1, "name": "headtail.py",
          "capabilities": ["persist-faults", "context"]})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request_id = None
        try:
            request = json.loads(line)
            request_id = request["id"]
            if "context" in request:
                # Head and tail do not choose by content; the context is only shown (in the child's log).
                context = json.dumps(request["context"], separators=(",", ":"))
                print(f"headtail: request {request_id} context {context}", file=sys.stderr)
            entries, persisted = finalize(request)
            send({"id": request_id, "entries": entries, "persisted": persisted})
        except Exception as e:  # the harness stops with this message
            send({"id": request_id, "error": f"{type(e).__name__}: {e}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
