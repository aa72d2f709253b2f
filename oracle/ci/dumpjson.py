"""Reading `kseg dump --format json` output in the CI scripts."""
import json


def objs_of(lines):
    """Yields the objects of dump's NDJSON, each batch, record and index entry with the "file"
    its file object named (schema 2 names a file once, before its batches)."""
    cur = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        o = json.loads(line)
        if o.get("type") == "file":
            cur = o.get("file", "")
        elif "name" not in o:
            o.setdefault("file", cur)
        yield o
