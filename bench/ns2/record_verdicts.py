#!/usr/bin/env python3
"""Record ns-2.35's verdicts on a paper's claims, for summaries made without ``--ns2``.

    .venv/bin/cclab reproduce PAPER --ns2 --out DIR        # full sizes
    .venv/bin/python bench/ns2/record_verdicts.py DIR [--force]

reads ``DIR/claims.csv`` (its ``ns2_verdict`` and ``ns2_evidence`` columns) and
``DIR/meta.json`` (the command, the sizes) and writes
``python/cclab/papers/PAPER/ns2_verdicts.json``. A reproduction then explains each claim
it does not support by ns-2's recorded verdict on the same points
(:func:`cclab.papers.claims.explain`): ns-2 doing better is a cclab defect, ns-2 doing no
better the paper's setup or reading. Claims of figures ns-2 cannot run are recorded with
the reason instead of a verdict. Only full-size runs are accepted, and (without
``--force``) none that judges fewer claims than the record it replaces: Westwood's need
ns-2.35 built with UCLA's agent (``CCLAB_NS=…``, bench/ns2/westwood_ucla.md).
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main(argv: list[str]) -> int:
    flags = {arg for arg in argv if arg.startswith("--")}
    argv = [arg for arg in argv if not arg.startswith("--")]
    if len(argv) != 1 or flags - {"--force"}:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out = Path(argv[0])
    meta = json.loads((out / "meta.json").read_text(encoding="utf-8"))
    paper = meta["experiment"].split(":", 1)[0]
    if meta["sizes"]["name"] != "full":
        print(f"error: {out}: a {meta['sizes']['name']} reproduction; record a full one", file=sys.stderr)
        return 2
    with open(out / "claims.csv", newline="", encoding="utf-8") as file:
        rows = list(csv.DictReader(file))
    if not rows or "ns2_verdict" not in rows[0]:
        print(f"error: {out}/claims.csv has no ns-2 verdicts: reproduce with --ns2", file=sys.stderr)
        return 2
    claims = [{"figure": row["figure"], "claim": int(row["claim"]), "statement": row["statement"],
               "verdict": row["ns2_verdict"], "evidence": row["ns2_evidence"], "partial": row.get("ns2_partial", ""),
               "cclab_verdict": row["verdict"]}
              for row in rows]
    document = {"command": meta["command"] or f"cclab reproduce {paper} --ns2", "made_utc": meta["created_utc"],
                "cclab_version": meta["cclab_version"], "git_commit": meta["git_commit"],
                "seeds": meta["sizes"]["seeds"], "claims": claims}
    target = REPO / "python" / "cclab" / "papers" / paper / "ns2_verdicts.json"
    judged = sum(1 for claim in claims if claim["verdict"])
    if target.is_file() and "--force" not in flags:
        before = sum(1 for claim in json.loads(target.read_text(encoding="utf-8"))["claims"] if claim["verdict"])
        if judged < before:  # e.g. Westwood run with Debian's ns, which lacks the UCLA agent
            print(f"error: {out}: ns-2 judged {judged} claims, the record {before}: was it run with the ns it "
                  "needs (CCLAB_NS; bench/ns2/westwood_ucla.md)? --force records it anyway", file=sys.stderr)
            return 2
    target.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {target.relative_to(REPO)}: {judged} of {len(claims)} claims with an ns-2 verdict")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
