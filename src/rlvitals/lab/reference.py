"""The lesson's reference material, shown in the lab (`ref TOPIC`) and by `rlvitals lab --ref TOPIC`.

"The lesson" is the Chinese course page rlvitals is built to (「闯关：读第一次训练曲线」): its
healthy table, its four shape words, the adv_std bands and their two opposite causes, its
one-page judgement table, its four confusable pairs and its closing points.  The Chinese is the
lesson's own text (without its plotting code); the English is a translation.  Each topic is one
i18n string (`lab.ref.<topic>`): lines starting with "|" are table rows (cells split on "|"),
drawn aligned when they fit the width and as one item per row when they do not.
"""

from __future__ import annotations

from ..i18n import t
from ..render.charts import display_width, pad

__all__ = ["TOPICS", "TOPIC_WORDS", "format_table", "reference", "topic_of"]

# Topic -> the words that open it (English, Chinese, short forms).  Order = the lesson's order.
TOPIC_WORDS: dict[str, tuple[str, ...]] = {
    "plot": ("plot", "figure", "draw", "画图", "画", "图"),
    "healthy": ("healthy", "health", "l2", "健康", "健康的形状"),
    "shapes": ("shapes", "shape", "words", "形状", "形状词", "词汇"),
    "adv_std": ("adv_std", "adv", "advstd", "bands", "优势"),
    "table": ("table", "diagnostic", "judgement", "判读表", "表", "一张判读表"),
    "pairs": ("pairs", "pair", "配对", "四组"),
    "summary": ("summary", "points", "落点", "要点", "总结"),
}
TOPICS: tuple[str, ...] = tuple(TOPIC_WORDS)


def topic_of(word: str) -> str | None:
    """A typed topic -> its id (exact word, else a unique prefix of one), or None."""
    w = word.strip().lower().replace("-", "_").replace(" ", "_")
    if not w:
        return None
    for topic, words in TOPIC_WORDS.items():
        if w in words:
            return topic
    hits = {topic for topic, words in TOPIC_WORDS.items() if any(x.startswith(w) for x in words)}
    return hits.pop() if len(hits) == 1 else None


def _local(topic: str) -> str:
    """The topic's first Chinese word (its name in the Chinese index)."""
    return next((w for w in TOPIC_WORDS[topic] if not w.isascii()), topic)


def reference(topic: str | None, lang: str) -> list[str]:
    """The text of one topic (its table rows still marked with "|"), or the list of topics."""
    if topic is None:
        names = [f"{tp}（{_local(tp)}）" if lang == "zh" else tp for tp in TOPICS]
        return [t("lab.ref.what", lang), t("lab.ref.index", lang, topics=" · ".join(names))]
    return [t(f"lab.ref.{topic}", lang)]


def format_table(rows: list[str], width: int) -> list[str]:
    """Table rows ("| a | b | c |") aligned in columns; if that is wider than `width`, one item
    per row ("a — b · c") so nothing is cut.  The first row is the header."""
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    n = max(len(c) for c in cells)
    cells = [c + [""] * (n - len(c)) for c in cells]
    widths = [max(display_width(c[i]) for c in cells) for i in range(n)]
    if sum(widths) + 3 * (n - 1) + 2 <= width:
        out = []
        for k, c in enumerate(cells):
            out.append("  " + " │ ".join(pad(x, widths[i]) for i, x in enumerate(c)).rstrip())
            if k == 0:
                out.append("  " + "─┼─".join("─" * w for w in widths))
        return out
    head = cells[0]
    out = ["  " + " · ".join(x for x in head if x)]
    for c in cells[1:]:
        rest = " · ".join(x for x in c[1:] if x)
        out.append(f"  {c[0]} — {rest}" if c[0] else f"  {rest}")
    return out
