#!/usr/bin/env node
// A head-and-tail finalizer speaking budgetlab's external-strategy protocol, version 1 (docs/protocol.md).
//
// Node's own modules only, no packages. Run it as a strategy:
//
//     budgetlab finalize --budget 8000 --input examples/turn.json \
//         --external headtail-js="node examples/external/headtail.js" --strategy headtail-js
//
// It does what headtail.py beside it does, step for step (see there): equal shares of the budget over the
// budgeted fields (what a short field leaves goes to the others), each entry with a shortened field persisted
// once to artifactDir/<id>.txt (existing persistedOutputFiles reused), and each shortened field replaced by a
// note naming its artifact, half of the rest from its start, "\n...\n" and half from its end, never splitting a
// surrogate pair. JavaScript strings are UTF-16, so lengths are plain `.length`.
//
// Numbers in keys budgetlab does not know pass through JSON.parse, so integers beyond 2^53 lose digits.

"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const readline = require("readline");

const PROTOCOL = "budgetlab-finalizer";
const PLAN_MODE_TOOL = "enter_plan_mode";
const ELLIPSIS = "\n...\n";

const isHigh = (code) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code) => code >= 0xdc00 && code <= 0xdfff;

// The first n units of text, one fewer when the n-th would split a surrogate pair.
function cutHead(text, n) {
  if (n <= 0) return "";
  let head = text.slice(0, n);
  if (head.length > 0 && isHigh(head.charCodeAt(head.length - 1))) head = head.slice(0, -1);
  return head;
}

// The last n units of text, one fewer when the first would split a surrogate pair.
function cutTail(text, n) {
  if (n <= 0) return "";
  let tail = text.slice(Math.max(0, text.length - n));
  if (tail.length > 0 && isLow(tail.charCodeAt(0))) tail = tail.slice(1);
  return tail;
}

function protectedPrefix(output, reminders) {
  for (const reminder of reminders) {
    if (output === reminder) return output.length;
    if (output.startsWith(reminder + "\n\n")) return reminder.length + 2;
  }
  return 0;
}

// Every budgeted field: {entry, box, key, keep}.
function slots(batch, reminders) {
  const found = [];
  batch.forEach((entry, e) => {
    for (const part of entry.responseParts || []) {
      if (part === null || typeof part !== "object") continue;
      if (typeof part.text === "string") found.push({ entry: e, box: part, key: "text", keep: 0 });
      const fr = part.functionResponse;
      const response = fr && typeof fr === "object" ? fr.response : undefined;
      if (!response || typeof response !== "object" || Array.isArray(response)) continue;
      const name = fr.name === undefined || fr.name === null ? entry.toolName : fr.name;
      if (typeof response.output === "string") {
        const keep = name === PLAN_MODE_TOOL ? protectedPrefix(response.output, reminders) : 0;
        if (response.output.length > keep) found.push({ entry: e, box: response, key: "output", keep });
      }
      if (typeof response.error === "string") found.push({ entry: e, box: response, key: "error", keep: 0 });
    }
  });
  return found;
}

// Equal shares of budget; what a short field leaves goes to the others.
function allocate(lengths, budget) {
  const alloc = new Array(lengths.length).fill(0);
  let left = budget;
  let open = lengths.map((_, i) => i);
  for (;;) {
    if (open.length === 0) return alloc;
    const share = Math.floor(left / open.length);
    const fits = open.filter((i) => lengths[i] <= share);
    if (fits.length === 0) break;
    for (const i of fits) {
      alloc[i] = lengths[i];
      left -= lengths[i];
    }
    open = open.filter((i) => lengths[i] > share);
  }
  const share = Math.floor(left / open.length);
  const extra = left - share * open.length;
  open.forEach((i, rank) => {
    alloc[i] = share + (rank < extra ? 1 : 0);
  });
  return alloc;
}

function persistenceId(callId) {
  const last = callId.replace(/\/+$/, "").split("/").pop().split("\0").join("_");
  return last === "" || last === "." || last === ".." ? null : last;
}

// Whether the request asks this write to fail (the persist-faults capability).
function fails(persistFaults, id) {
  if (!persistFaults) return false;
  if (persistFaults.ids.includes(id)) return true;
  const digest = crypto
    .createHash("sha256")
    .update(Buffer.concat([Buffer.from(persistFaults.salt, "hex"), Buffer.from(id, "utf8")]))
    .digest();
  return digest.readUInt32LE(0) % 1000000 < persistFaults.ratePpm;
}

// dir/name, without doubling a trailing '/'.
function join(dir, name) {
  return dir.endsWith("/") ? dir + name : dir + "/" + name;
}

function writeArtifact(dir, id, content) {
  let temp = null;
  try {
    fs.mkdirSync(dir, { recursive: true });
    temp = path.join(dir, `.headtail-${process.pid}-${crypto.randomBytes(6).toString("hex")}.tmp`);
    fs.writeFileSync(temp, content, { flag: "wx", mode: 0o600 });
    const target = join(dir, id + ".txt");
    fs.renameSync(temp, target);
    return target;
  } catch (e) {
    if (temp) fs.rmSync(temp, { force: true });
    process.stderr.write(`headtail.js: cannot write ${id}: ${e.message}\n`);
    return null;
  }
}

function preview(text, alloc, artifact) {
  const where = artifact ? `full output: ${artifact}` : "full output not saved";
  const note = `[cut to ${alloc} units; ${where}]\n`;
  let room = alloc - note.length;
  if (room < 0) return cutHead(note, alloc);
  if (room <= ELLIPSIS.length) return note + cutHead(text, room);
  room -= ELLIPSIS.length;
  const head = Math.floor(room / 2);
  return note + cutHead(text, head) + ELLIPSIS + cutTail(text, room - head);
}

function finalize(request) {
  const batch = request.batch;
  const budget = request.budget;
  const found = slots(batch, request.reminders || []);
  const texts = found.map((s) => s.box[s.key].slice(s.keep));
  const lengths = texts.map((t) => t.length);
  if (budget === null || budget <= 0 || lengths.reduce((a, b) => a + b, 0) <= budget) {
    return { entries: batch, persisted: [] };
  }
  const alloc = allocate(lengths, budget);
  const short = [...new Set(found.filter((s, i) => alloc[i] < lengths[i]).map((s) => s.entry))].sort(
    (a, b) => a - b,
  );
  const paths = new Map();
  const persisted = [];
  const taken = new Set();
  for (const e of short) {
    const entry = batch[e];
    if ("persistedOutputFiles" in entry) {
      // Every file that already holds the output is named.
      paths.set(e, entry.persistedOutputFiles.length ? entry.persistedOutputFiles.join(", ") : null);
      continue;
    }
    const content = texts.filter((_, i) => found[i].entry === e).join("\n\n");
    let id = persistenceId(entry.callId);
    if (id === null) {
      paths.set(e, null);
      persisted.push({ callId: entry.callId, toolName: entry.toolName, content, path: null, entry: e });
      entry.persistedOutputFiles = [];
      continue;
    }
    const base = id;
    for (let k = 1; taken.has(id); k++) id = `${base}-${k}`;
    taken.add(id);
    const written = fails(request.persistFaults, id) ? null : writeArtifact(request.artifactDir, id, content);
    paths.set(e, written);
    persisted.push({ callId: id, toolName: entry.toolName, content, path: written, entry: e });
    entry.persistedOutputFiles = written ? [written] : [];
  }
  found.forEach((s, i) => {
    if (alloc[i] < lengths[i]) {
      s.box[s.key] = s.box[s.key].slice(0, s.keep) + preview(texts[i], alloc[i], paths.get(s.entry));
    }
  });
  return { entries: batch, persisted };
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let greeted = false;
lines.on("line", (line) => {
  if (!greeted) {
    const hello = JSON.parse(line);
    if (!hello || hello.protocol !== PROTOCOL) {
      process.stderr.write("headtail.js: not a budgetlab-finalizer handshake\n");
      process.exit(2);
    }
    greeted = true;
    send({ protocol: PROTOCOL, version: 1, name: "headtail.js", capabilities: ["persist-faults"] });
    return;
  }
  if (line.trim() === "") return;
  let id = null;
  try {
    const request = JSON.parse(line);
    id = request.id;
    const { entries, persisted } = finalize(request);
    send({ id, entries, persisted });
  } catch (e) {
    send({ id, error: `${e.name}: ${e.message}` });
  }
});
