"""The differential: which look-alikes a finding is told apart from, and with which normal metric.

For each finding, its look-alikes (the lesson's confusable pairs and their kin); for each look-alike,
the predicates that rule it out (predicates.py) and the reason a report shows; and the metric that
would decide it when the log lacks it.  Every "ruled out" line of every finding comes from here.

    differential(ctx, "sync_failure", fired={"sync_failure"})  # -> (ruled_out, missing)
"""

from __future__ import annotations

from .context import Ctx, ro
from .model import RuledOut
from .predicates import pred

__all__ = ["DECIDES", "LOOKALIKES", "RULERS", "differential"]


# For each look-alike: the predicates that rule it out (each that holds is listed) and the i18n
# reason shown with it.  The reason key is the predicate's name unless given.
RULERS: dict[str, tuple[tuple[str, str], ...]] = {
    "entropy_collapse": (("entropy_healthy", "entropy_healthy"),),
    "sync_failure": (("ratio_steady", "ratio_steady"),),
    "data_too_easy": (("adv_std_normal", "adv_std_normal"), ("entropy_to_zero", "entropy_to_zero")),
    "data_too_hard": (("answers_cut", "answers_cut"), ("goal_not_zero", "acc_not_zero")),
    "truncation_starvation": (("trunc_low", "trunc_low"),),
    "kl_blowup": (("kl_steady", "kl_steady"), ("kl_moved_with_entropy", "kl_follows_entropy")),
    "numeric_instability": (("all_finite", "all_finite"),),
    "lr_too_high": (("clip_normal", "clip_normal"), ("gnorm_normal", "gnorm_normal")),
    "batch_noise": (("clip_high", "clip_high"), ("gnorm_high", "gnorm_high")),
    "length_hacking": (("len_not_exploding", "len_not_exploding"),),
    "stalled": (("answers_cut", "answers_cut"), ("goal_improving", "goal_improving")),
    "reward_hacking": (),
    "entropy_explosion": (("entropy_healthy", "entropy_healthy"),),
    "not_learning": (("goal_improving", "goal_improving"),),
}

# The look-alikes each finding is told apart from (the lesson's confusable pairs and their kin).
LOOKALIKES: dict[str, tuple[str, ...]] = {
    "entropy_collapse": ("sync_failure", "data_too_easy", "kl_blowup"),
    "sync_failure": ("entropy_collapse", "data_too_easy"),
    "data_too_easy": ("entropy_collapse", "data_too_hard"),
    "data_too_hard": ("truncation_starvation", "entropy_collapse", "sync_failure"),
    "stalled": ("entropy_collapse", "sync_failure", "truncation_starvation", "kl_blowup"),
    "truncation_starvation": ("data_too_hard", "entropy_collapse", "stalled"),
    "reward_hacking": ("length_hacking", "kl_blowup", "numeric_instability"),
    "length_hacking": ("data_too_hard", "entropy_collapse", "entropy_explosion"),
    "kl_blowup": ("lr_too_high", "numeric_instability"),
    "lr_too_high": ("batch_noise", "numeric_instability"),
    "batch_noise": ("lr_too_high",),
    "numeric_instability": ("lr_too_high",),
    "entropy_explosion": ("kl_blowup",),
    "not_learning": ("entropy_collapse", "sync_failure", "data_too_hard", "truncation_starvation", "kl_blowup"),
    "plateau": ("entropy_collapse", "sync_failure", "stalled"),   # the lesson: 平掉 = converged, or stuck (A1 vs A2)
    "outlier_step": ("kl_blowup", "numeric_instability"),
}

# The metric that would decide a look-alike when it is missing.
DECIDES: dict[str, str] = {
    "entropy_collapse": "entropy", "sync_failure": "ratio_mean", "data_too_easy": "adv_std",
    "truncation_starvation": "trunc", "kl_blowup": "kl", "lr_too_high": "clip_frac", "length_hacking": "len",
    "data_too_hard": "acc", "entropy_explosion": "entropy",
}


def differential(ctx: Ctx, finding_id: str, fired: set[str]) -> tuple[tuple[RuledOut, ...], tuple[str, ...]]:
    """Ruled-out look-alikes (each with the predicate that excludes it) and the metrics that would decide the rest.

    A look-alike that fired itself (`fired`) is never listed as ruled out.
    """
    ruled: list[RuledOut] = []
    missing: list[str] = []
    for look in LOOKALIKES.get(finding_id, ()):
        if look in fired or look == finding_id:
            continue
        found = False
        for pname, reason in RULERS.get(look, ()):
            p = pred(ctx, pname)
            if p.holds:
                ruled.append(ro(look, p.metric, p.value, p.reason or reason))
                found = True
        if not found:
            m = DECIDES.get(look)
            if m is not None and not ctx.has(m) and m not in missing:
                missing.append(m)
    return tuple(ruled), tuple(missing)
