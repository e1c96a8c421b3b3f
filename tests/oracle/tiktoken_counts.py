#!/usr/bin/env python3
"""Token counts from the reference tokenizer: OpenAI's tiktoken (Python), offline.

tiktoken downloads its rank files on first use; with no network, this script hands it the rank files in
RANK_DIR (written by `cargo run --release --example write_rank_file -- NAME RANK_DIR/NAME.tiktoken`) through
tiktoken's own download cache: each file is placed under the cache key tiktoken derives from the file's official
address, and tiktoken checks its SHA-256 against the hash it ships before using it. A file that is not byte for
byte OpenAI's is refused, so the counts are those of the published encodings.

Usage:
  tiktoken_counts.py RANK_DIR vectors VECTORS_JSON [--write]
      Counts the ordinary encoding (no special tokens) of every vector's text (`piece` repeated `repeat`
      times) with o200k_base and cl100k_base; checks them against the file's counts (exit 1 on a mismatch),
      or with --write fills them in.
  tiktoken_counts.py RANK_DIR batches FILE.jsonl...
      For each file of batches (one JSON array of entries a line): the number of text fields, their UTF-16
      units and their tokens (each field encoded on its own) with both encodings, as one JSON object a line.
"""
import hashlib
import json
import os
import shutil
import sys
import tempfile

ENCODINGS = ["o200k_base", "cl100k_base"]
ADDRESS = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"


def encodings(rank_dir):
    cache = tempfile.mkdtemp(prefix="tiktoken-cache-")
    for name in ENCODINGS:
        key = hashlib.sha1(ADDRESS.format(name).encode()).hexdigest()
        shutil.copyfile(os.path.join(rank_dir, name + ".tiktoken"), os.path.join(cache, key))
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    import tiktoken  # after the cache is set

    return {name: tiktoken.get_encoding(name) for name in ENCODINGS}


def count(enc, text):
    return len(enc.encode_ordinary(text))


def text_fields(batch):
    for entry in batch:
        for part in entry["responseParts"]:
            if isinstance(part.get("text"), str):
                yield part["text"]
            fr = part.get("functionResponse")
            if isinstance(fr, dict) and isinstance(fr.get("response"), dict):
                for key in ("output", "error"):
                    if isinstance(fr["response"].get(key), str):
                        yield fr["response"][key]


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    rank_dir, mode = argv[1], argv[2]
    encs = encodings(rank_dir)
    import tiktoken

    if mode == "vectors":
        path = argv[3]
        doc = json.load(open(path, encoding="utf-8"))
        mismatches = 0
        for v in doc["vectors"]:
            text = v["piece"] * v["repeat"]
            for name, enc in encs.items():
                n = count(enc, text)
                if "--write" in argv:
                    v[name] = n
                elif v.get(name) != n:
                    mismatches += 1
                    print(f"{v['label']}: {name} {v.get(name)} in the file, {n} by tiktoken")
        doc["about"] = (
            "Token counts of the ordinary encoding (no special tokens) of each text (`piece` repeated `repeat` "
            f"times), computed with OpenAI's tiktoken {tiktoken.__version__} (Python) on OpenAI's rank files by "
            "tests/oracle/tiktoken_counts.py; see tests/vectors/README.md."
        )
        if "--write" in argv:
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f, ensure_ascii=False, indent=1)
                f.write("\n")
        print(f"tiktoken {tiktoken.__version__}: {len(doc['vectors'])} vectors, mismatches {mismatches}")
        return 1 if mismatches else 0
    if mode == "batches":
        for path in argv[3:]:
            fields = units = 0
            tokens = {name: 0 for name in ENCODINGS}
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if not line.strip():
                        continue
                    for text in text_fields(json.loads(line)):
                        fields += 1
                        units += len(text.encode("utf-16-le")) // 2
                        for name, enc in encs.items():
                            tokens[name] += count(enc, text)
            print(json.dumps({"file": path, "fields": fields, "units": units, **tokens}))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
