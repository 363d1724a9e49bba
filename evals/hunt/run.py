"""Re-run the blind hunt's narratives through `clauseguard batch` and score them with the author's labels.

    .venv/bin/python evals/hunt/run.py [OUT_DIR]

Prints counts: DETERMINE right (OK), DETERMINE with the wrong outcome (WRONG), DETERMINE on a case the
labels make unknown (DET_ON_UNKNOWN), and REFUSE / REVIEW; then the WRONG and DET_ON_UNKNOWN ids.
Needs ../shared/external beside the repository for the 'ext' half.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPORA = {"ext": "../shared/external/mkrafa/corpus.json", "demo": "demo"}


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="hunt-"))
    out.mkdir(parents=True, exist_ok=True)
    cases = json.loads((ROOT / "evals" / "hunt" / "cases.json").read_text("utf-8"))["cases"]
    verdicts: collections.Counter[str] = collections.Counter()
    wrong: list[str] = []
    for key, corpus in CORPORA.items():
        mine = [c for c in cases if c["corpus"] == key]
        requests, answers = out / f"{key}.in.jsonl", out / f"{key}.out.jsonl"
        requests.write_text("".join(json.dumps({**c["args"], "narrative": c["narrative"]}) + "\n" for c in mine), "utf-8")
        answers.unlink(missing_ok=True)
        command = [str(ROOT / ".venv" / "bin" / "clauseguard"), "--corpus", corpus, "batch", str(requests),
                   "-o", str(answers), "--workers", "2"]
        subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,  # noqa: S603 - our own CLI
                       env={**os.environ, "CLAUSEGUARD_HOME": str(out / "home")})
        for case, line in zip(mine, answers.read_text("utf-8").splitlines(), strict=True):
            response = json.loads(line)["response"]
            expected = set(case["exp"].split("|"))
            if response.get("gate") != "DETERMINE":
                verdicts["REFUSE/REVIEW"] += 1
                continue
            letter = {"COVERED": "C", "NOT_COVERED": "N"}.get(response.get("outcome"), "?")
            verdict = "OK" if letter in expected else "DET_ON_UNKNOWN" if expected == {"U"} else "WRONG"
            verdicts[verdict] += 1
            if verdict != "OK":
                wrong.append(f"{case['id']} {verdict}")
    print(json.dumps(dict(sorted(verdicts.items()))))
    print("\n".join(wrong))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
