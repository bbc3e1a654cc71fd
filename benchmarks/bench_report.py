"""Size and speed of the HTML report on a long run.  A script, not a test.

    python benchmarks/bench_report.py                  # 1,000,000 steps × 10 metrics
    python benchmarks/bench_report.py --steps 200000   # a shorter run
    python benchmarks/bench_report.py --open           # also open it in headless Chromium (needs playwright)

Targets (issue: a report people would rather look at): the 1,000,000-step report is under 3 MB
and written in under 5 s.  "written" is `write_report` given the run and its diagnosis (the
diagnosis of the same run is timed on its own line: it reads every point, the display does not).
--open loads the file in Chromium and reports the load time, the charts drawn and any console error.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_plot import Clock, long_run, peak_mib


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--open", action="store_true", help="open the report in headless Chromium")
    ap.add_argument("-o", "--output", default=None, help="keep the report here")
    args = ap.parse_args()

    import rlvitals
    from rlvitals.render.html import write_report

    run = long_run(args.steps)
    with Clock() as dclock:
        diag = rlvitals.diagnose_run(run)
    out = Path(args.output) if args.output else Path(tempfile.mkdtemp(prefix="rlvitals-bench-")) / "report.html"
    with Clock() as clock:
        write_report(run, out, diagnosis=diag)
    size = out.stat().st_size
    print(f"diagnose {args.steps:,} steps: {dclock}")
    print(
        f"report   {args.steps:,} steps × {len(run.series)} metrics: {clock}, {size / 1e6:.2f} MB, peak {peak_mib():.0f} MiB"
        f"  [targets: < 5 s, < 3 MB] {'OK' if clock.wall < 5 and size < 3e6 else 'MISSED'}"
    )
    if args.open:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from browser import Browser, why_no_browser

        if why_no_browser():
            print(f"open: skipped ({why_no_browser()})")
            return 0
        b = Browser()
        try:
            with Clock() as oclock:
                page, errors = b.open(out)
            drawn = page.eval_on_selector_all(".rlv-chart", "els => els.map(e => +e.getAttribute('data-drawn'))")
            print(
                f"open in chromium: {oclock}, {len(drawn)} charts drawn ({min(drawn)}–{max(drawn)} points), "
                f"console errors: {len(errors)}"
            )
        finally:
            b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
