"""One table: every framework's key → rlvitals' canonical metric.

Sources: `docs/frameworks` notes (verl, TRL, OpenRLHF, slime, ROLL, AReaL, NeMo-RL, SkyRL, prime-rl,
torchtune), Tinker cookbook (`env/all/reward/total`, `env/all/correct`, `test/env/all/…`), EasyR1
(`reward/overall`, `reward/accuracy`, `val/…`), the peers' scenario files (rldoctor: TRL names;
rlprobe: `reward_mean`, `entropy_mean`, `kl_mean`, `clip_fraction`, `completion_len_mean`,
`truncation_rate`, `zero_variance_group_frac`; rlwatch: `kl_divergence`, `advantage_std`) and the
lesson's own keys.  Generic names (`reward_mean`, `kl_mean`, `train_loss`…) rank after the
frameworks' own, so a framework key wins where both are logged.  Rules the table encodes:

- **Preference.** Several keys can mean one metric; the lowest `rank` present wins and the others
  stay in `Run.extras`.  The raw score beats a KL-shaped or normalised reward (verl
  `critic/score/mean` over `critic/rewards/mean`; slime `rollout/raw_reward` over `rollout/rewards`).
- **Units.** Rates become fractions (`scale`); percentages are converted by the reader that saw the `%`.
  A key for a share of the batch (`SHARES`) whose values leave [0, 1] counts something (`truncated: 3`
  answers) and is not read as the share.
- **Proxies.** Where a metric is not logged, a stand-in is used and says so (`proxy=True`, a note):
  adv_std ≈ √(1 − frac_reward_zero_std) (with GRPO's std normalisation only groups with reward
  spread carry advantage); ratio_mean from a train/rollout mismatch metric.
- **Scope.** Evaluation keys (`eval_…`, `val/…` other than ratios) never stand in for training metrics;
  validation accuracy maps to `val_acc`.

Add a framework: add rows here, a reader, and a fixture.  Nothing else changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..i18n import Msg
from ..run import CANONICAL, Series, in_unit_range

SHARES = frozenset({"trunc", "clip_frac"})  # a share of the batch: its key's values stay in [0, 1]

__all__ = ["EXACT", "FOREIGN_NAMESPACES", "PATTERNS", "SHARES", "Alias", "canonical_key", "lookup", "resolve"]


@dataclass(frozen=True)
class Alias:
    canonical: str
    rank: int = 0  # lower wins when several keys map to one metric
    scale: float = 1.0  # multiply (e.g. 0.01 for a percent)
    transform: Callable[[np.ndarray], np.ndarray] | None = None
    proxy: bool = False
    note: str = ""


def _sqrt_one_minus(x: np.ndarray) -> np.ndarray:
    return np.sqrt(np.clip(1.0 - x, 0.0, 1.0))


def _sqrt_clip(x: np.ndarray) -> np.ndarray:
    root: np.ndarray = np.sqrt(np.clip(x, 0.0, 1.0))
    return root


def _one_minus(x: np.ndarray) -> np.ndarray:
    return 1.0 - x


def _exp_neg(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = np.exp(-np.clip(x, -50.0, 50.0))
    return out


_ADV_FROM_ZERO_STD = Alias("adv_std", 5, transform=_sqrt_one_minus, proxy=True, note=Msg("note.alias.adv_zero_std"))


def _rows(canonical: str, keys: str, *, rank: int = 0, proxy: bool = False, note: str = "") -> dict[str, Alias]:
    """Keys listed in preference order get ranks 0, 1, 2, ... (plus `rank` offset)."""
    return {k: Alias(canonical, rank + i, proxy=proxy, note=note) for i, k in enumerate(keys.split())}


EXACT: dict[str, Alias] = {
    # reward: raw score first
    **_rows(
        "reward",
        "reward critic/score/mean rollout/raw_reward objective/scores train/reward "
        "reward/avg_raw_reward rewards mean_reward reward/mean ppo_actor/task_reward/avg "
        "rollout/reward_mean env/reward_mean ppo/mean_scores score",
    ),
    # peers (rlprobe, rlwatch), Tinker (env/all/…), EasyR1 (reward/overall), hand-rolled loops
    **_rows("reward", "reward_mean env/all/reward/total reward/overall reward/total avg_reward train_reward", rank=12),
    # AReaL's, loops' plain spellings (a total over the reward's terms: CS336's `total_reward`)
    **_rows("reward", "task_reward rollout_reward_mean rollout_reward total_reward reward_total", rank=19),
    # the mean over every sample, invalid ones too (beside a mean over valid ones); the weighted sum
    # of a loop's reward terms logged as one number beside each term (`reward_scalar`)
    **_rows("reward", "reward_mean_all reward_scalar", rank=19),
    # DeepSpeed-Chat step 3 prints "average reward score: 3.58" (the reward model's score of the batch)
    **_rows("reward", "reward_score average_reward_score", rank=19),
    # reward-model over-optimisation studies: the proxy reward model the policy is trained on (its
    # truth, the gold reward model, is a correctness term: components.is_correctness_name)
    **_rows("reward", "proxy proxy_reward proxy_score proxy_rm proxy_rm_score", rank=19),
    **_rows(
        "reward",
        "critic/rewards/mean objective/rlhf_reward ppo_actor/final_reward/avg",
        rank=20,
        note=Msg("note.alias.kl_shaped"),
    ),
    **_rows("reward", "rollout/rewards", rank=30, note=Msg("note.alias.normalised")),
    # accuracy (training batches)
    **_rows(
        "acc",
        "acc accuracy critic/correct/mean rewards/accuracy_reward/mean rewards/accuracy_reward "
        "successes passrate/pass@1 reward/avg_pass_at_1 metrics/exact_match_reward correct",
    ),
    **_rows("acc", "env/all/correct reward/accuracy train_accuracy train/accuracy", rank=12),
    # a hand-rolled loop's share of answers right (the tests passed, the task solved)
    **_rows(
        "acc",
        "train_acc pass_rate success_rate solve_rate answer_accuracy percent_correct percentage_correct "
        "pct_correct fraction_correct frac_correct correct_rate correct_ratio train_success train/success "
        "train/success_rate answer_rate correct_answer_rate solved is_correct",
        rank=13,
    ),
    **_rows("acc", "mean_accuracy avg_accuracy batch_accuracy accuracies answer_acc mean_acc acc_mean", rank=18),
    # validation accuracy (own cadence)
    **_rows(
        "val_acc",
        "val_acc validation/accuracy eval/accuracy eval_accuracy eval/acc val/accuracy val/acc "
        "test/accuracy test/env/all/correct",
    ),
    # entropy
    **_rows(
        "entropy",
        "entropy actor/entropy policy/entropy_avg objective/entropy rollout/entropy "
        "critic/entropy/mean ppo_actor/update/entropy/avg train/approx_entropy policy/policy_entropy "
        "entropy/all/mean ppo/policy/entropy optim/entropy",
    ),
    **_rows("entropy", "entropy_mean mean_entropy policy_entropy token_entropy", rank=12),
    **_rows(
        "entropy", "actor/entropy_loss entropy_loss train/entropy_loss", rank=10, note=Msg("note.alias.entropy_loss")
    ),
    # KL to the reference
    **_rows(
        "kl",
        "kl actor/kl_loss actor/reward_kl_penalty critic/kl objective/kl train/kl_loss kl_loss "
        "ref_kl kl_div train/kl_penalty policy/policy_kl loss/avg_kl ppo_actor/kl_rewards/avg",
    ),
    # (Tinker cookbook: `kl_policy_base`, the policy's KL to the base model its KL penalty holds it to;
    # hand-written loops spell the reference out: `reference_kl`)
    **_rows(
        "kl",
        "kl_mean kl_divergence mean_kl kl_to_ref loss_kl exact_kl kl_ref kl_policy_base "
        "reference_kl kl_reference kl_to_reference",
        rank=12,
    ),
    # advantage spread
    **_rows("adv_std", "adv_std advantages/std critic/advantages/std advantage_std advantages_std advantage/std"),
    **_rows("adv_std", "std_advantage std_advantages", rank=8),  # a loop's own spelling
    "frac_reward_zero_std": _ADV_FROM_ZERO_STD,
    "zero_variance_group_frac": Alias(
        "adv_std", 6, transform=_sqrt_one_minus, proxy=True, note=Msg("note.alias.adv_zero_variance")
    ),
    # a loop's share of samples whose advantage is 0 (their group had no reward spread)
    "zero_advantage_fraction": Alias(
        "adv_std", 6, transform=_sqrt_one_minus, proxy=True, note=Msg("note.alias.adv_zero_advantage")
    ),
    "group/mixed_groups_ratio": Alias(
        "adv_std", 7, transform=_sqrt_clip, proxy=True, note=Msg("note.alias.adv_mixed_groups")
    ),
    # Tinker cookbook: the share of groups whose reward has any spread ("the learnability signal")
    **{
        k: Alias("adv_std", 7, transform=_sqrt_clip, proxy=True, note=Msg("note.alias.adv_frac_mixed"))
        for k in ("env/all/by_group/frac_mixed", "env/all/frac_mixed")
    },
    # clip fraction
    **_rows(
        "clip_frac",
        "clip_frac clip clipfrac actor/pg_clipfrac clip_ratio/region_mean clip_ratio "
        "policy/clipfrac_avg ppo_clip_ratio train/pg_clipfrac actor/ppo_ratio_clipfrac actor/clipfrac "
        "ppo_actor/update/clip_ratio/avg policy/loss_metrics/clip_ratio ppo/policy/clipfrac",
    ),
    **_rows("clip_frac", "clip_fraction pg_clipfrac policy/clip_fraction val/clipfrac_avg", rank=12),
    # ratio π/π_old (the one vital that should stay at 1.0)
    **_rows(
        "ratio_mean",
        "ratio_mean ratio actor/ratio_mean val/ratio train/ois ratios "
        "ppo_actor/update/importance_weight/avg train/probs_ratio importance_ratio/mean",
    ),
    **_rows(
        "ratio_mean",
        "sampling/importance_sampling_ratio/mean rollout_corr/rollout_is_mean train/token_mult_prob_error",
        rank=10,
        proxy=True,
        note=Msg("note.alias.ratio_is"),
    ),
    "training/rollout_probs_diff_mean": Alias(
        "ratio_mean", 20, transform=_one_minus, proxy=True, note=Msg("note.alias.ratio_diff")
    ),
    # TRL's mean |trainer − sampler| log-prob over the sampled tokens: exp(−it), the level of a token's
    # ratio, is 1 when they agree (its importance_sampling_ratio is per sequence in the sequence modes)
    "sampling/sampling_logp_difference/mean": Alias(
        "ratio_mean", 9, transform=_exp_neg, proxy=True, note=Msg("note.alias.ratio_logp_diff")
    ),
    # Tinker's mean of (sampler log-prob − learner log-prob) over the sampled tokens: the log of the
    # importance ratio's inverse, so exp(−it) is the ratio's level (1 when the two policies agree)
    "optim/kl_sample_train_v1": Alias(
        "ratio_mean", 21, transform=_exp_neg, proxy=True, note=Msg("note.alias.ratio_kl_sample")
    ),
    # response length
    **_rows(
        "len",
        "len response_length/mean completions/mean_length completion_length response_length "
        "rollout/response_len/mean rollout/response_lengths token/response_length/mean "
        "train/mean_gen_tokens_per_sample generate/avg_num_tokens response_lengths completion_len/mean "
        "policy/response_length tokens/responses_len_mean",
    ),
    **_rows(
        "len",
        "completion_len_mean rollout/response_length_mean mean_completion_length response_len_mean "
        "env/all/ac_tokens_per_turn response_len output_length output_len gen_len generation_length "
        "completion_tokens response_tokens mean_completion_tokens avg_response_length mean_response_length completion_len "
        "avg_response_token_length avg_completion_length",
        rank=12,
    ),
    # grad norm
    **_rows(
        "gnorm",
        "gnorm grad_norm actor/grad_norm actor_grad_norm train/grad_norm actor_train/grad_norm "
        "ppo_actor/update/grad_norm policy/grad_norm optim/grad_norm",
    ),
    **_rows("gnorm", "gradient_norm", rank=12),
    # truncation rate (fraction of answers cut at the length cap)
    **_rows(
        "trunc",
        "trunc response_length/clip_ratio completions/clipped_ratio rollout/truncated_rate "
        "response_clip_ratio rollout/truncated_ratio ppo_actor/no_eos_ratios/avg train/truncation_rate "
        "is_truncated/mean truncated",
    ),
    **_rows(
        "trunc",
        "truncation_rate max_len_hit_frac rollout/truncated truncated_ratio trunc_rate truncated_frac "
        "frac_truncated truncation_frac",
        rank=12,
    ),
    "token/total_response_length/clip_rate": Alias("trunc", 13, note=Msg("note.alias.roll_trunc")),
    # learning rate, loss
    **_rows(
        "lr",
        "lr learning_rate actor/lr actor_lr train/lr-pg_0 optim/lr ppo_actor/update/lr train/lr "
        "policy/policy_lr ppo/learning_rate",
    ),
    **_rows(
        "loss",
        "loss actor/pg_loss policy_loss train/pg_loss loss/policy_avg policy/policy_loss "
        "ppo_actor/update/actor_loss/avg train/loss loss/mean",
    ),
    **_rows("loss", "train_loss policy/loss", rank=12),
}

# Keys with a placeholder (data source, reward-function or environment name).
PATTERNS: list[tuple[re.Pattern[str], Alias]] = [
    (re.compile(r"^val-core/.+/(acc|reward)/mean@\d+$"), Alias("val_acc", 1)),
    (re.compile(r"^val/test_score/.+$"), Alias("val_acc", 2)),
    (re.compile(r"^eval_.+_pass1$"), Alias("val_acc", 3)),
    (re.compile(r"^test/env/[^/]+/correct$"), Alias("val_acc", 4)),
    (re.compile(r"^reward/avg_pass_at_\d+$"), Alias("acc", 6)),
    # the share of prompts with a right answer among k samples: a correctness score, after any mean
    (re.compile(r"^(?:train/|passrate/)?pass(?:_at_|@)\d+$"), Alias("acc", 16)),
    (re.compile(r"^env/[^/]+/correct$"), Alias("acc", 14)),
    (re.compile(r"^env/[^/]+/reward/total$"), Alias("reward", 14)),
    # (the lookahead finds the word once; `[^/]*(acc|correct)[^/]*` backtracked quadratically on long keys)
    (re.compile(r"^rewards/(?=[^/]*(?:acc|correct))[^/]*+(?:/mean)?$"), Alias("acc", 5)),
    (re.compile(r"^train/[^/]+/[^/]+/reward/mean$"), Alias("reward", 8)),
    (re.compile(r"^train/[^/]+/[^/]+/num_output_tokens/mean$"), Alias("len", 20)),
    (re.compile(r"^train/[^/]+/[^/]+/is_truncated/mean$"), Alias("trunc", 20)),
]

_EVAL_PREFIX = re.compile(r"^(eval_|eval/|val-aux/|val-core/|validation/|test/|dev_|dev/)")


# A namespace in front of a known key (`policy/entropy`, `optim/entropy`, `actor/…`, `env/all/…`,
# W&B's `train/…`) reads as that key, ranked after every key the table names itself, so a
# framework's own spelling wins where both are logged.  Namespaces that hold another model's or
# the clock's numbers never stand in for the policy's vitals.
NAMESPACE_RANK = 50
# (`rewards/<fn>`, `reward/<fn>`: the terms of a reward, components.py, never a vital by their name)
FOREIGN_NAMESPACES = frozenset(
    {
        "reward",
        "rewards",
        "reward_components",
        "reward_component",
        "critic",
        "value",
        "ref",
        "reference",
        "reward_model",
        "rm",
        "time",
        "timing",
        "perf",
        "progress",
        "system",
        "memory",
        "mem",
        "throughput",
        "profile",
        "teacher",
        # train/rollout mismatch statistics (verl rollout_corr/kl is no KL to the reference)
        "rollout_corr",
        "mismatch",
        "sampling",
    }
)


# bare words that name the metric only where the table lists them: under another namespace a
# `clip` is a count or a threshold (ROLL token/total_response_length/clip), a `ratio` any ratio
_ONLY_AS_LISTED = frozenset({"clip", "ratio", "ratios", "len", "score", "rewards", "truncated", "successes", "correct"})


def _direct(key: str) -> Alias | None:
    hit = EXACT.get(key)
    if hit is not None:
        return hit
    for pat, alias in PATTERNS:
        if pat.match(key):
            return alias
    return None


def lookup(key: str) -> Alias | None:
    """The alias row for a framework key, or None.  Any namespace in front of a known key is
    tolerated (`policy/entropy` → entropy, `env/all/kl` → kl), ranked after the table's own keys."""
    hit = _direct(key)
    if hit is not None:
        return hit
    if _EVAL_PREFIX.match(key) or "/" not in key:
        return None
    parts = key.split("/")
    if parts[0].lower() in FOREIGN_NAMESPACES:
        return None
    if any(p.isdigit() for p in parts[:-1]):
        return None  # one of many (`layers/12/grad_norm`, a head, a GPU): not the run's own vital
    for i in range(1, len(parts)):
        rest = "/".join(parts[i:])
        hit = None if rest in _ONLY_AS_LISTED else _direct(rest)
        if hit is not None:
            if hit.canonical == "val_acc":
                return None
            return Alias(hit.canonical, hit.rank + NAMESPACE_RANK * i, hit.scale, hit.transform, hit.proxy, hit.note)
    return None


def canonical_key(key: str) -> str | None:
    """The canonical metric a framework key maps to (None if it maps to none)."""
    alias = lookup(key)
    return alias.canonical if alias else None


def resolve(
    raw: dict[str, tuple[np.ndarray, np.ndarray]],
) -> tuple[dict[str, Series], dict[str, Series], dict[str, int], list[Msg]]:
    """Map framework keys to canonical series.

    Returns (series, extras, unrecognized, notes): canonical name -> Series from the preferred key;
    every key not used as a canonical source -> Series in extras; keys that map to no canonical
    metric -> count; sentences about proxies and choices.
    """
    best: dict[str, tuple[int, str, Alias]] = {}
    unrecognized: dict[str, int] = {}
    notes: list[Msg] = []
    for key, (_steps, values) in raw.items():
        alias = lookup(key)
        if alias is None or alias.canonical not in CANONICAL:
            unrecognized[key] = int(values.size)
            continue
        if not np.isfinite(values).any() and values.size and alias.proxy:
            continue
        if alias.canonical in SHARES and alias.transform is None and alias.scale == 1.0 and not in_unit_range(values):
            # `truncated: 3` of 4 episodes is a count, not the share: read as one, 3 reads "all cut"
            notes.append(Msg("note.not_a_share", key=key, canon=alias.canonical, top=f"{float(np.nanmax(values)):.4g}"))
            continue
        cur = best.get(alias.canonical)
        if cur is None or alias.rank < cur[0]:
            best[alias.canonical] = (alias.rank, key, alias)
    series: dict[str, Series] = {}
    used = set()
    for name in CANONICAL:
        if name not in best:
            continue
        _, key, alias = best[name]
        steps, values = raw[key]
        if alias.transform is not None:
            values = alias.transform(values)
        if alias.scale != 1.0:
            values = values * alias.scale
        series[name] = Series(name, steps, values, key, alias.proxy, alias.note)
        used.add(key)
        if alias.note:
            notes.append(Msg("note.alias", canon=name, key=key, note=alias.note))
    extras = {k: Series(k, s, v, k) for k, (s, v) in raw.items() if k not in used}
    return series, extras, unrecognized, notes
