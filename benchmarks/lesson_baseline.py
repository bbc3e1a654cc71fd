"""The lesson's own parser (`scripts/plot_log.py`, the 20 lines in the lesson), kept as the speed baseline.

Only the parsing half is here (plotting is not what `bench_read.py` times).  It is kept as the lesson
wrote it, bugs included: `[\\d.]+` reads `kl=1.5e-05` as 1.5, drops negative numbers, `nan` and `inf`,
and leaves `acc=21.1%` as 21.1.  Do not "fix" it: it is the yardstick.

    python benchmarks/lesson_baseline.py run.log     # prints rows parsed and seconds
"""

import re
import sys
import time

KEYS = ["reward", "acc", "entropy", "kl", "adv_std", "clip", "ratio", "len"]


def parse(path):
    rows = []
    for line in open(path):
        m = re.match(r"\[\s*(\d+)\]", line)
        if not m:
            continue
        row = {"step": int(m.group(1))}
        for k in KEYS:
            v = re.search(rf"\b{k}=([\d.]+)%?", line)
            if v:
                row[k] = float(v.group(1))
        rows.append(row)
    return rows


if __name__ == "__main__":
    t0 = time.perf_counter()
    rows = parse(sys.argv[1])
    print(f"{len(rows)} rows in {time.perf_counter() - t0:.2f} s")
