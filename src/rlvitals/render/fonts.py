"""A font that can draw Chinese in a figure: the lesson's figures carry Chinese words with --lang zh.

    cjk_font() -> str | None      # a family registered with matplotlib, or None (English words then)

RLVITALS_CJK_FONT may name a font file; otherwise a font matplotlib already knows, then a file in
the usual font folders.  matplotlib is imported only when a font is looked for.
"""

from __future__ import annotations

import fnmatch
import functools
import os

__all__ = ["cjk_font"]

_CJK_NAMES = (
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "Sarasa Gothic SC",
    "Droid Sans Fallback",
    "AR PL UMing CN",
    "SimHei",
    "Microsoft YaHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Heiti SC",
    "STHeiti",
    "Arial Unicode MS",
)
_CJK_FILES = (
    "wqy-microhei*",
    "wqy-zenhei*",
    "notosanscjk*",
    "notoserifcjk*",
    "notosanssc*",
    "sourcehansans*",
    "sarasa*",
    "droidsansfallback*",
    "uming*",
    "ukai*",
    "simhei*",
    "msyh*",
    "pingfang*",
    "hiragino sans gb*",
    "stheiti*",
)
_FONT_DIRS = (
    "/usr/share/fonts",
    "/usr/local/share/fonts",
    "~/.local/share/fonts",
    "~/.fonts",
    "/System/Library/Fonts",
    "/Library/Fonts",
    "C:/Windows/Fonts",
)


@functools.lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The family name of a font that can draw Chinese, registered with matplotlib; None if none.

    RLVITALS_CJK_FONT may name a font file.  Otherwise a font matplotlib already knows, then a
    file found in the usual font folders (Debian's fonts-wqy-microhei, fonts-noto-cjk, ...).
    """
    from matplotlib import font_manager

    def register(path: str) -> str | None:
        try:
            font_manager.fontManager.addfont(path)
            return font_manager.FontProperties(fname=path).get_name()
        except (OSError, RuntimeError, ValueError):
            return None

    env = os.environ.get("RLVITALS_CJK_FONT")
    if env and os.path.isfile(env) and (name := register(env)):
        return name
    known = {f.name for f in font_manager.fontManager.ttflist}
    for name in _CJK_NAMES:
        if name in known:
            return name
    for folder in _FONT_DIRS:
        for root, _, files in os.walk(os.path.expanduser(folder)):
            for f in sorted(files):
                low = f.lower()
                if low.endswith((".ttf", ".ttc", ".otf")) and any(fnmatch.fnmatch(low, p) for p in _CJK_FILES):
                    if name := register(os.path.join(root, f)):
                        return name
    return None
