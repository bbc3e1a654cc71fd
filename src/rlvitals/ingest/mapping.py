"""The user's word on which key is which (`--map reward='Average Reward'`), and the refusal to
diagnose a file where no vital was read.

    run = read("loop.log", mapping={"reward": "Average Reward"})

A mapping overrides the alias table: the named key becomes the canonical series (values as logged,
no unit conversion), whatever the table chose before goes back to the other keys.  Keys match as
written, else ignoring case, spaces, `_`, `-` and ` / ` spacing ("average_reward" finds
"Average Reward").  `require_vitals` raises `NoVitals` naming the keys that were seen, so a file
of unknown names gets a one-line hint instead of a verdict drawn from nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace

from ..errors import InputError, NoVitals
from ..i18n import Msg
from ..run import CANONICAL, VITALS, Run, Series

__all__ = ["MappedParser", "apply_mapping", "keys_seen", "norm_key", "parse_map", "require_vitals"]

TOP_KEYS = 15                  # keys listed in the NoVitals message
_NORM = re.compile(r"[\s_\-]+")


def norm_key(key: str) -> str:
    """"Average Reward" and "average_reward" and "rewards / acc" vs "rewards/acc" compare equal."""
    return _NORM.sub("", key.strip().lower())


def parse_map(items: Iterable[str] | None) -> dict[str, str]:
    """`["reward=Average Reward", "kl=KL"]` (the CLI's repeated --map) -> {"reward": "Average Reward", …}."""
    out: dict[str, str] = {}
    for item in items or ():
        canon, sep, key = item.partition("=")
        canon, key = canon.strip(), key.strip()
        if not sep or not canon or not key:
            raise InputError.of("ingest.err.map_syntax", arg=item)
        if canon not in CANONICAL:
            raise InputError.of("ingest.err.map_canon", canon=canon, known=", ".join(CANONICAL))
        out[canon] = key
    return out


def keys_seen(run: Run) -> dict[str, int]:
    """Every numeric key read from the log (as logged) -> its number of values."""
    seen = {s.source or name: len(s) for name, s in run.series.items()}
    for key, s in run.extras.items():
        seen.setdefault(key, len(s))
    return seen


def _find(run: Run, key: str) -> tuple[str, Series] | None:
    if key in run.extras:
        return key, run.extras[key]
    for s in run.series.values():
        if s.source == key and not s.proxy:
            return key, s
    want = norm_key(key)
    for k, s in run.extras.items():
        if norm_key(k) == want:
            return k, s
    for s in run.series.values():
        if s.source and norm_key(s.source) == want and not s.proxy:
            return s.source, s
    return None


def _top(seen: Mapping[str, int], limit: int = TOP_KEYS) -> str:
    items = sorted(seen.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ", ".join(f"{k} ({n})" for k, n in items[:limit])
    if len(items) > limit:
        text += f", … +{len(items) - limit}"
    return text


def apply_mapping(run: Run, mapping: Mapping[str, str], *, strict: bool = True, how: str = "user") -> Run:
    """A copy of `run` where each `canonical <- key` of `mapping` holds.  A key the log lacks is an
    error, unless not `strict` (a live log may not have printed it yet).  `how`: "user" (--map) or
    "guessed" (the generic reader reading "Average Reward" as reward)."""
    run = replace(run, series=dict(run.series), extras=dict(run.extras), unrecognized=dict(run.unrecognized),
                  notes=list(run.notes), meta=dict(run.meta))
    applied: dict[str, str] = {}
    for canon, key in mapping.items():
        if canon not in CANONICAL:
            raise InputError.of("ingest.err.map_canon", canon=canon, known=", ".join(CANONICAL))
        hit = _find(run, key)
        if hit is None:
            if not strict:
                continue
            raise InputError.of("ingest.err.map_key", canon=canon, key=key, keys=_top(keys_seen(run)))
        found, src = hit
        old = run.series.get(canon)
        if how == "user" and old is not None and old.source == found:   # a guess the user confirms
            run.notes = [n for n in run.notes if not (getattr(n, "key", None) == "ingest.note.guessed"
                                                      and getattr(n, "fields", {}).get("canon") == canon)]
        if old is not None and old.source != found and old.source and not old.proxy:
            run.extras.setdefault(old.source, Series(old.source, old.steps, old.values, old.source))
        note = ("mapped by the user (--map)" if how == "user"
                else "name matched by the generic reader (say otherwise with --map)")
        run.series[canon] = Series(canon, src.steps, src.values, found, note=note)
        run.extras.pop(found, None)
        run.unrecognized.pop(found, None)
        applied[canon] = found
        if how == "user":
            run.notes.append(Msg("ingest.note.mapped", canon=canon, key=found, given=key))
        else:
            run.notes.append(Msg("ingest.note.guessed", canon=canon, key=found))
    run.series = {n: run.series[n] for n in CANONICAL if n in run.series}
    run.meta["mapping"] = applied
    return run


def require_vitals(run: Run, label: object, *, strict: bool = False) -> None:
    """Raise NoVitals when the run holds numbers but no canonical metric (`read`), or with `strict`
    none of the eight vitals (`diagnose`: a verdict from loss and lr alone would be a guess)."""
    if any(v in run.series for v in (VITALS if strict else CANONICAL)):
        return
    seen = keys_seen(run)
    example = next((k for k in seen if "reward" in k.lower() or "score" in k.lower()), next(iter(seen), "KEY"))
    raise NoVitals.of("ingest.err.no_vitals", path=label, format=run.format, n=len(seen),
                      vitals=", ".join(VITALS), keys=_top(seen), example=example)


class MappedParser:
    """A line parser whose snapshots apply a mapping (for `watch --map`); feeds pass through."""

    def __init__(self, inner, mapping: Mapping[str, str]) -> None:
        self.inner = inner
        self.mapping = dict(mapping)
        for canon in self.mapping:
            if canon not in CANONICAL:
                raise InputError.of("ingest.err.map_canon", canon=canon, known=", ".join(CANONICAL))

    def feed(self, line: str) -> bool:
        return bool(self.inner.feed(line))

    def feed_last(self, line: str) -> bool:
        return bool(self.inner.feed_last(line))

    def snapshot(self) -> Run:
        return apply_mapping(self.inner.snapshot(), self.mapping, strict=False)

    def finish(self) -> Run:
        return apply_mapping(self.inner.finish(), self.mapping, strict=False)

    def __getattr__(self, name: str):
        return getattr(self.inner, name)
