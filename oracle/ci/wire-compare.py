#!/usr/bin/env python3
"""Compare kseg output read over the wire (kafka://) with the same command on the log directory.

  wire-compare.py count WIRE.ndjson FILES.ndjson
  wire-compare.py dump  WIRE.ndjson FILES.ndjson

Objects are grouped by partition; the fields that name the source or a byte position within it
(dir, files, file, position, batch_position) are left out. Every partition seen over the wire must
be identical in the files, and every partition in the files (except __cluster_metadata, which Fetch
does not serve) must have been seen over the wire. Prints one line per partition and a summary;
exit 1 on any difference.
"""
import json
import sys
from collections import OrderedDict

from dumpjson import objs_of

SOURCE_FIELDS = {"dir", "files", "file", "position", "batch_position"}


def partition_of(obj):
    if "name" in obj and "topic" in obj:
        return obj["name"]
    f = obj.get("file", "")
    parts = f.rstrip("/").split("/")
    return parts[-2] if len(parts) >= 2 else f


def load(path):
    out = OrderedDict()
    with open(path) as fh:
        for obj in objs_of(fh):
            if obj.get("type") not in (None, "batch", "record"):
                continue
            key = partition_of(obj)
            out.setdefault(key, []).append({k: v for k, v in obj.items() if k not in SOURCE_FIELDS})
    return out


def main():
    kind, wire_path, files_path = sys.argv[1:4]
    wire, files = load(wire_path), load(files_path)
    passed = failed = 0
    for part, objs in wire.items():
        got = files.get(part)
        if got == objs:
            passed += 1
            continue
        failed += 1
        if got is None:
            print(f"FAIL {kind} {part}: read over the wire, not in the log directory")
            continue
        for i, (a, b) in enumerate(zip(objs, got)):
            if a != b:
                diff = {k: (a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}
                print(f"FAIL {kind} {part}: object {i} differs (wire, files): {diff}")
                break
        else:
            print(f"FAIL {kind} {part}: {len(objs)} objects over the wire, {len(got)} in the files")
    for part in files:
        if part not in wire and not part.startswith("__cluster_metadata"):
            failed += 1
            print(f"FAIL {kind} {part}: in the log directory, not read over the wire")
    print(f"{kind}: {passed} partitions identical, {failed} differ")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
