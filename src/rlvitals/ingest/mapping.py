"""The user's word on which key is which (`--map reward='Average Reward'`), and the refusal to
diagnose a file where no vital was read.

    run = read("loop.log", mapping={"reward": "Average Reward"})

A mapping overrides the alias table: the named key becomes the canonical series (values as logged,
no unit conversion), whatever the table chose before goes back to the other keys.  Keys match as
written, else ignoring case, spaces, `_`, `-` and ` / ` spacing ("average_reward" finds
"Average Reward").  `require_vitals` raises `NoVitals` naming the keys that were seen, so a file
of unknown names gets a one-line hint.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from ..errors import InputError, NoVitals
from ..i18n import Msg
from ..run import CANONICAL, VITALS, Run, Series
from . import aliases, components
from .base import LineParser

__all__ = [
    "DIAGNOSABLE",
    "GOAL",
    "MAPPABLE",
    "MappedParser",
    "apply_mapping",
    "guess_names",
    "key_notes",
    "keys_seen",
    "norm_key",
    "parse_map",
    "require_vitals",
    "suggest_maps",
    "unmapped_keys",
]

TOP_KEYS = 15  # keys listed in the NoVitals message
# `--map goal=KEY`: the metric that says whether the run learns (diagnose keeps the user's choice)
GOAL = "goal"
MAPPABLE: tuple[str, ...] = (*CANONICAL, GOAL)
# what `diagnose` needs to draw anything: a vital, or the numbers every trainer logs (a NaN or an
# exploding loss / grad norm is diagnosed from them alone; the missing vitals say "not logged")
DIAGNOSABLE: tuple[str, ...] = (*VITALS, "gnorm", "loss")
_NORM = re.compile(r"[\s_\-]+")


def norm_key(key: str) -> str:
    """ "Average Reward" and "average_reward" and "rewards / acc" vs "rewards/acc" compare equal."""
    return _NORM.sub("", key.strip().lower())


def parse_map(items: Iterable[str] | None) -> dict[str, str]:
    """`["reward=Average Reward", "kl=KL"]` (the CLI's repeated --map) -> {"reward": "Average Reward", …}."""
    out: dict[str, str] = {}
    for item in items or ():
        canon, sep, key = item.partition("=")
        canon, key = canon.strip(), key.strip()
        if not sep or not canon or not key:
            raise InputError.of("ingest.err.map_syntax", arg=item)
        if canon not in MAPPABLE:
            raise InputError.of("ingest.err.map_canon", canon=canon, known=", ".join(MAPPABLE))
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
    "guessed" (a plain name read as the vital it is, `guess_names`)."""
    run = replace(
        run,
        series=dict(run.series),
        extras=dict(run.extras),
        unrecognized=dict(run.unrecognized),
        notes=list(run.notes),
        meta=dict(run.meta),
    )
    applied: dict[str, str] = {}
    for canon, key in mapping.items():
        if canon not in MAPPABLE:
            raise InputError.of("ingest.err.map_canon", canon=canon, known=", ".join(MAPPABLE))
        if canon == GOAL:
            continue
        hit = _find(run, key)
        if hit is None:
            if not strict:
                continue
            raise InputError.of("ingest.err.map_key", canon=canon, key=key, keys=_top(keys_seen(run)))
        found, src = hit
        old = run.series.get(canon)
        if how == "user" and old is not None and old.source == found:  # a guess the user confirms
            run.notes = [
                n
                for n in run.notes
                if not (
                    getattr(n, "key", None) == "ingest.note.guessed" and getattr(n, "fields", {}).get("canon") == canon
                )
            ]
        if old is not None and old.source != found and old.source and not old.proxy:
            run.extras.setdefault(old.source, Series(old.source, old.steps, old.values, old.source))
        note = Msg("note.alias.user" if how == "user" else "note.alias.guessed")
        run.series[canon] = Series(canon, src.steps, src.values, found, note=note)
        run.extras.pop(found, None)
        run.unrecognized.pop(found, None)
        applied[canon] = found
        if how == "user":
            run.notes.append(Msg("ingest.note.mapped", canon=canon, key=found, given=key))
        else:
            run.notes.append(Msg("ingest.note.guessed", canon=canon, key=found))
    run.series = {n: run.series[n] for n in CANONICAL if n in run.series}
    if GOAL in mapping:
        if _map_goal(run, mapping[GOAL], strict):
            applied[GOAL] = run.meta["goal"]["key"]
    elif applied:
        components.set_goal(run)  # the reader's choice, on the mapped series
    run.meta["mapping"] = applied
    return run


def _map_goal(run: Run, key: str, strict: bool) -> bool:
    """`--map goal=KEY`: KEY (a canonical metric's name or source, a reward term, an eval metric or
    any other key) is the goal; another numeric key becomes a correctness term named by it."""
    if key in run.series:
        components.set_goal(run, metric=key, key=run.series[key].source or key, given=key)
        return True
    for name, s in run.series.items():
        if s.source and norm_key(s.source) == norm_key(key):
            components.set_goal(run, metric=name, key=s.source, given=key)
            return True
    for name, s in run.components.items():
        if norm_key(name) == norm_key(key) or norm_key(s.source) == norm_key(key):
            run.component_kinds = {**run.component_kinds, name: "correctness"}
            components.set_goal(run, metric=f"component:{name}", key=s.source or name, given=key)
            return True
    for ev in run.evals:
        if norm_key(ev) == norm_key(key):
            components.set_goal(run, metric=f"eval:{ev}", key=ev, given=key)
            return True
    hit = _find(run, key)
    if hit is None:
        if strict:
            raise InputError.of("ingest.err.map_key", canon=GOAL, key=key, keys=_top(keys_seen(run)))
        return False
    found, src = hit
    run.components = {**run.components, found: src}
    run.component_kinds = {**run.component_kinds, found: "correctness"}
    components.set_goal(run, metric=f"component:{found}", key=found, given=key)
    return True


# words that make an unmapped key a plausible source of a missing metric (checked on the key's
# lower-cased last part, whole words first: `avg_return` → reward, `approx_kl` → kl)
_HINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("reward", ("reward", "return", "returns", "score")),
    ("acc", ("acc", "accuracy", "correct", "success", "solved", "solve", "pass", "exact")),
    ("entropy", ("entropy", "ent")),
    ("kl", ("kl",)),
    ("adv_std", ("adv", "advantage", "advantages")),
    ("clip_frac", ("clip", "clipfrac", "clipped")),
    ("ratio_mean", ("ratio",)),
    ("len", ("length", "len", "tokens")),
    ("gnorm", ("grad", "gnorm", "gradnorm")),
    ("loss", ("loss",)),
)
_WORD = re.compile(r"[a-z]+")
# words a metric's name may carry beside its own (`avg_return`, `episode_len`, `approx_kl`,
# `sampled_token_entropy_estimate`); any other word makes it something else (`asst_token_ratio`,
# `aborted_ratio`, `w_exact`, `kl_sample_v1`)
_NEUTRAL = frozenset(
    _WORD.findall(
        "mean avg average batch train training policy actor approx episode ep all total "
        "raw rollout task sample sampled token estimate estimated per step"
    )
)
# namespaces of the clock and the machine, never a vital (`timing_s/adv` is a duration)
_FOREIGN = re.compile(r"(^|/)(time|timing|perf|progress|system|mem|memory|throughput|profile)[^/]*/")
_NOT_A_SOURCE = re.compile(
    r"(^|[/_.])(std|min|max|var|count|time|timing|sec|secs|seconds|throughput|mfu|"
    r"mem|memory|epoch|step|steps|lr)($|[/_.])"
)
MAX_UNMAPPED_LISTED = 8


def unmapped_keys(run: Run) -> list[str]:
    """Numeric keys read but mapped to nothing: not a metric's source, not a reward term, not an eval."""
    used = {s.source for s in run.series.values()} | {s.source for s in run.components.values()} | set(run.evals)
    return [k for k in run.unrecognized if k not in used and k in run.extras]


def suggest_maps(run: Run) -> list[tuple[str, str]]:
    """(metric, key) for each missing metric that an unmapped key plausibly is: `--map metric=key`."""
    keys = unmapped_keys(run)
    out: list[tuple[str, str]] = []
    taken: set[str] = set()
    for canon, words in _HINTS:
        if canon in run.series:
            continue
        best: tuple[int, int, str] | None = None
        for key in keys:
            low = key.lower()
            leaf = low.rsplit("/", 1)[-1]
            if key in taken or _NOT_A_SOURCE.search(leaf) or _FOREIGN.search(low):
                continue
            toks = _WORD.findall(leaf)
            own = [t for t in toks if t in words or any(t.startswith(w) for w in words if len(w) >= 4)]
            if not own or any(t not in _NEUTRAL for t in toks if t not in own):
                continue
            cand = (0 if any(t in words for t in own) else 1, len(key), key)
            if best is None or cand < best:
                best = cand
        if best is not None:
            out.append((canon, best[2]))
            taken.add(best[2])
    return out


def key_notes(run: Run) -> Run:
    """Name the keys nothing read and suggest `--map` lines, when a metric is missing and an
    unmapped key plausibly is it, or when the run has no goal at all (no reward nor accuracy)."""
    hints = suggest_maps(run)
    unmapped = unmapped_keys(run)
    if "goal" not in run.meta:
        run.notes.append(Msg("ingest.note.no_goal"))
    if not unmapped or not (hints or "goal" not in run.meta):
        return run
    shown = ", ".join(unmapped[:MAX_UNMAPPED_LISTED]) + (
        f", … +{len(unmapped) - MAX_UNMAPPED_LISTED}" if len(unmapped) > MAX_UNMAPPED_LISTED else ""
    )
    run.notes.append(Msg("ingest.note.unmapped", n=len(unmapped), keys=shown))
    if hints:
        run.notes.append(Msg("ingest.note.suggest", maps=" ".join(f"--map {c}={k}" for c, k in hints)))
    run.meta["suggested_maps"] = dict(hints)
    return run


def require_vitals(run: Run, label: object, *, strict: bool = False) -> None:
    """Raise NoVitals when the run holds numbers but no canonical metric (`read`), or with `strict`
    none of the eight vitals nor a loss or grad norm (`diagnose`: a verdict from the learning rate
    alone would be a guess; a loss that turns NaN is a finding)."""
    if any(v in run.series for v in (DIAGNOSABLE if strict else CANONICAL)):
        return
    seen = keys_seen(run)
    hints = suggest_maps(run)
    # a suggested key, else one that reads like a score or a mean, before the first (often a counter: `call`)
    likely = (k for ws in (("reward", "score", "return"), _MEANS) for k in seen if any(w in k.lower() for w in ws))
    example = hints[0][1] if hints else next(likely, next(iter(seen), "KEY"))
    canon = hints[0][0] if hints else "reward"
    raise NoVitals.of(
        "ingest.err.no_vitals",
        path=label,
        format=run.format,
        n=len(seen),
        vitals=", ".join(VITALS),
        keys=_top(seen),
        example=example,
        canon=canon,
    )


class MappedParser:
    """A line parser whose snapshots read plain names as vitals (`guess_names`, as `read` does) and
    apply the user's mapping over them (`watch --map`); feeds pass through."""

    def __init__(self, inner: LineParser, mapping: Mapping[str, str]) -> None:
        self.inner = inner
        self.mapping = dict(mapping)
        for canon in self.mapping:
            if canon not in MAPPABLE:
                raise InputError.of("ingest.err.map_canon", canon=canon, known=", ".join(MAPPABLE))

    def feed(self, line: str) -> bool:
        return bool(self.inner.feed(line))

    def feed_last(self, line: str) -> bool:
        return bool(self.inner.feed_last(line))

    def snapshot(self) -> Run:
        return self._mapped(self.inner.snapshot())

    def finish(self) -> Run:
        return self._mapped(self.inner.finish())

    def _mapped(self, run: Run) -> Run:
        run = guess_names(run)
        return apply_mapping(run, self.mapping, strict=False) if self.mapping else run

    def __getattr__(self, name: str) -> Any:  # whatever the inner parser has (its builder, lineno)
        return getattr(self.inner, name)


# words before a quantity that leave it as it is: `train_reward`, an episode's `final_reward`, `gold_acc`
_QUALIFIERS = frozenset(
    {"average", "avg", "mean", "train", "training", "batch", "total", "current", "policy", "final", "gold"}
)
_MEANS = frozenset({"mean", "avg", "average"})
# a name for the container, not the quantity: a loop's dumped `rewards_curve`, `kl_history`
_CONTAINERS = frozenset({"curve", "curves", "history", "series", "trace", "values"})


def _candidates(key: str) -> list[str]:
    """Spellings of a hand-written name the alias table may know: "Mean Reward" → mean_reward,
    "Average Reward" → reward, "Avg. KL" → kl, "policy_entropy_mean" → entropy_mean,
    "completion_length_mean" → completion_length (a mean over the batch is what a vital is),
    "rewards_curve" → rewards (the container's name is not the quantity's)."""
    words = [w.strip(".") for w in key.lower().replace("-", " ").replace("_", " ").split()]
    words = [w for w in words if w]
    out = ["_".join(words)]
    while len(words) > 1 and words[0] in _QUALIFIERS:
        words = words[1:]
        out.append("_".join(words))
    if len(words) > 1 and words[-1] in _CONTAINERS:
        words = words[:-1]
        out.append("_".join(words))
    if len(words) > 1 and words[-1] in _MEANS:
        out.append("_".join(words[:-1]))
    return out


def guess_names(run: Run) -> Run:
    """Read plain names as the vitals they are ("Average Reward" as reward, "KL" as kl, a loop's
    `policy_entropy_mean` as entropy) when the log has no key of its own for them, as if the user
    had said `--map`: the source stays as written, a note says so, and a user's `--map` still wins
    (it is applied after).  Every reader's run goes through it (`read`, and `watch` by MappedParser)."""
    guesses: dict[str, str] = {}
    for key in run.extras:
        if aliases.lookup(key) is not None:
            continue
        for cand in _candidates(key):
            alias = aliases.lookup(cand)
            if alias is None:
                continue
            if (
                alias.canonical not in run.series
                and alias.canonical not in guesses
                and not alias.proxy
                and alias.transform is None
                and alias.scale == 1.0
            ):
                guesses[alias.canonical] = key
            break
    if not guesses:
        return run
    run = apply_mapping(run, guesses, how="guessed")
    run.meta.pop("mapping", None)
    run.meta["guessed"] = guesses
    return run
