"""Write the README's screenshots of the HTML report and of a comparison, in English and Chinese.

    .venv/bin/python scripts/screenshots.py            # -> docs/img/{report,compare}-{en,zh}.png

Needs chromium and playwright (tests/browser.py); a CJK font for the Chinese ones (fonts-wqy-microhei).
The report is of the bundled real notebook run whose format term is gamed; the comparison is the
lab's pair A (entropy collapse against a broken weight sync).  The PNGs are cut to the top of the
page and reduced to 256 colours so that they stay small.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    from browser import Browser, why_no_browser
    from PIL import Image

    import rlvitals
    from rlvitals.compare import summarize
    from rlvitals.render.compare import compare_html
    from rlvitals.render.html import write_report
    from rlvitals.simulate import lesson_pairs

    if why_no_browser():
        print(f"cannot take screenshots: {why_no_browser()}", file=sys.stderr)
        return 1
    out_dir = ROOT / "docs" / "img"
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="rlvitals-shots-"))
    run = rlvitals.read(ROOT / "tests" / "fixtures" / "real" / "unsloth-mistral-7b-grpo-gsm8k.ipynb")
    diag = rlvitals.diagnose_run(run)
    pair = lesson_pairs(None)["A"]
    rows = [summarize(c.run, rlvitals.diagnose_run(c.run), c.key) for c in (pair.left, pair.right)]
    b = Browser()
    try:
        for lang in ("en", "zh"):
            pages = {"report": write_report(run, tmp / f"report-{lang}.html", lang=lang, diagnosis=diag)}
            cmp_path = tmp / f"compare-{lang}.html"
            cmp_path.write_text(compare_html(rows, lang), encoding="utf-8")
            pages["compare"] = cmp_path
            for kind, path in pages.items():
                page, errors = b.open(path)
                page.set_viewport_size({"width": 1100, "height": 860})
                page.wait_for_timeout(300)           # the resize redraw
                box = page.query_selector(".rlv-chart canvas.ov").bounding_box()
                page.mouse.move(box["x"] + box["width"] * 0.62, box["y"] + box["height"] * 0.5)
                shot = tmp / f"{kind}-{lang}.png"
                page.screenshot(path=str(shot))
                page.close()
                if errors:
                    print(f"{kind} {lang}: console errors {errors}", file=sys.stderr)
                    return 1
                img = Image.open(shot).convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
                dest = out_dir / f"{kind}-{lang}.png"
                img.save(dest, optimize=True)
                print(f"→ {dest.relative_to(ROOT)} ({dest.stat().st_size // 1024} KiB)")
    finally:
        b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
