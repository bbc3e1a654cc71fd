"""Every finding in one place: its spec, and who owns a case when two findings fire together.

A finding is a `FindingSpec` (its verdict, its module, the look-alikes it is told apart from and the
normal metrics that rule each out, the metric that decides it when missing, and how its effect on the
goal is judged) and a row or two of `RELATIONS`.  Everything that orders, suppresses or words a
finding reads these two tables: `model.FINDING_IDS`, `verdict.PRIORITY / SUPPRESSES / CHAINS /
UPSTREAM / HARM_KIND`, `differential.LOOKALIKES / RULERS / DECIDES`, the module list of
`diagnose()` and docs/findings.md.  A detector returns evidence and a severity and never decides for
another finding: standing back is a relation here.  Adding a finding is its spec, its module
(`diagnose/<id>.py` with `ID` and `check(ctx)`), its action (actions.py) and its words
(i18n/findings.py); tests/diagnose/test_registry.py checks that all of them exist
(docs/architecture.md walks through an example).

This module imports nothing of the package: the model and every stage may read it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HARM_KINDS", "RELATIONS", "SPECS", "FindingSpec", "Relation", "spec"]

# How a finding's effect on the goal is judged before it may set the verdict (verdict._material):
#   own       material in its own metric's range by its own definition (entropy to 0, answers
#             cut): keeps its severity unless the task is solved (the goal at its ceiling)
#   settled   own while it still moves (a KL multiplying); once it stopped (kl_blowup.settled), only
#             if a truth did not end a material amount above its level at the onset -- never
#             cleared by the reward alone, which the move may have bought (numeric_instability's
#             100x points that each came back are judged so too, by any goal: verdict._harm)
#   step      one step that came back: sets the verdict only if the goal fell after it
#   transient jitter: only if the goal did not hold its level in a run that learns -- unless its own
#             evidence is material (lr_too_high's clip fraction)
#   cheat     a reward parting from the truth: only if the truth fell behind the reward
#   drift     a slow departure: only if the goal did not gain after it -- unless it is far (ratio_far)
#   never     about the goal itself, already read "learning", or a NaN: never judged so
HARM_KINDS = ("own", "settled", "step", "transient", "cheat", "drift", "never")


@dataclass(frozen=True)
class FindingSpec:
    id: str
    verdict: str  # the verdict it implies when it sets it
    lookalikes: tuple[str, ...] = ()  # the findings it is told apart from (the lesson's pairs)
    ruled_out_by: tuple[tuple[str, str], ...] = ()  # (predicate, i18n reason) ruling *it* out as a look-alike
    decides: str | None = None  # the metric that decides it when the log lacks it
    harm: str = "own"  # how its effect on the goal is judged (HARM_KINDS)
    rule: bool = True  # a module diagnose/<id>.py; False: added by verdict.resolve


# In the order used after severity: the more specific cause first.
SPECS: tuple[FindingSpec, ...] = (
    FindingSpec("numeric_instability", "dead", ("lr_too_high",), (("all_finite", "all_finite"),), harm="never"),
    FindingSpec(
        "sync_failure",
        "dead",
        ("entropy_collapse", "data_too_easy"),
        (("ratio_steady", "ratio_steady"),),
        "ratio_mean",
        harm="drift",
    ),
    FindingSpec(
        "truncation_starvation",
        "dead",
        ("data_too_hard", "entropy_collapse", "stalled"),
        (("trunc_low", "trunc_low"), ("finished_scored_alike", "finished_scored_alike")),
        "trunc",
    ),
    FindingSpec(
        "entropy_collapse",
        "dead",
        ("sync_failure", "data_too_easy", "kl_blowup"),
        (("entropy_healthy", "entropy_healthy"),),
        "entropy",
    ),
    FindingSpec(
        "kl_blowup",
        "dead",
        ("lr_too_high", "numeric_instability"),
        (("kl_steady", "kl_steady"), ("kl_moved_with_entropy", "kl_follows_entropy")),
        "kl",
        harm="settled",
    ),
    FindingSpec("entropy_explosion", "dead", ("kl_blowup",), (("entropy_healthy", "entropy_healthy"),), "entropy"),
    FindingSpec(
        "length_hacking",
        "cheating",
        ("data_too_hard", "entropy_collapse", "entropy_explosion"),
        (("len_not_exploding", "len_not_exploding"),),
        "len",
    ),
    FindingSpec("reward_hacking", "cheating", ("length_hacking", "kl_blowup", "numeric_instability"), harm="cheat"),
    FindingSpec(
        "data_too_hard",
        "dead",
        ("truncation_starvation", "entropy_collapse", "sync_failure"),
        (("answers_cut", "answers_cut"), ("goal_not_zero", "acc_not_zero")),
        "acc",
        harm="never",
    ),
    FindingSpec(
        "stalled",
        "dead",
        ("entropy_collapse", "sync_failure", "truncation_starvation", "kl_blowup"),
        (("answers_cut", "answers_cut"), ("goal_improving", "goal_improving")),
    ),
    # the goal does not improve and no specific cause fired: never "nothing to change"
    FindingSpec(
        "not_learning",
        "dead",
        ("entropy_collapse", "sync_failure", "data_too_hard", "truncation_starvation", "kl_blowup"),
        (("goal_improving", "goal_improving"),),
        harm="never",
        rule=False,
    ),
    FindingSpec(
        "lr_too_high",
        "unstable",
        ("batch_noise", "numeric_instability"),
        (("clip_normal", "clip_normal"), ("gnorm_normal", "gnorm_normal")),
        "clip_frac",
        harm="transient",
    ),
    # a single-step outlier (a KL spike gone the next step): evidence of one bad step, not a trend
    FindingSpec("outlier_step", "unstable", ("kl_blowup", "numeric_instability"), harm="step"),
    FindingSpec(
        "data_too_easy",
        "learning",
        ("entropy_collapse", "data_too_hard"),
        (("adv_std_normal", "adv_std_normal"), ("entropy_to_zero", "entropy_to_zero")),
        "adv_std",
        harm="never",
    ),
    FindingSpec(
        "batch_noise",
        "learning",
        ("lr_too_high",),
        (("clip_high", "clip_high"), ("gnorm_high", "gnorm_high")),
        harm="never",
    ),
    # the lesson: 平掉 = converged, or stuck (A1 vs A2)
    FindingSpec("plateau", "learning", ("entropy_collapse", "sync_failure", "stalled"), harm="never"),
)


@dataclass(frozen=True)
class Relation:
    """Who owns a case when two findings fire together.

    explains: `owner`, at warning or above, explains `other`, which is dropped (a NaN explains the
              KL and the reward that follow it).
    chain:    they cause one another: the one that began first owns the pair (verdict._chain_losers);
              when they began together, `owner` (if given) is the one upstream.
    defers:   `other` stands back while the named predicate `when` (predicates.PREDICATES) holds: the
              case is `owner`'s to name, whether or not `owner` fires.  verdict.resolve drops it before
              anything else reads the findings, so its detector reports its own evidence only.
    """

    kind: str
    owner: str
    other: str
    why: str = ""
    when: str = ""


_AFTERMATH = ("stalled", "not_learning")


def _explains(owner: str, *others: str, why: str = "") -> tuple[Relation, ...]:
    return tuple(Relation("explains", owner, o, why) for o in others)


def _defers(other: str, owner: str, when: str, why: str) -> Relation:
    return Relation("defers", owner, other, why, when)


RELATIONS: tuple[Relation, ...] = (
    *_explains(
        "numeric_instability",
        "kl_blowup",
        "lr_too_high",
        "reward_hacking",
        "length_hacking",
        "outlier_step",
        "entropy_explosion",
        "batch_noise",
        *_AFTERMATH,
        why="a NaN poisons every metric after it",
    ),
    *_explains(
        "sync_failure",
        "entropy_collapse",
        "data_too_hard",
        *_AFTERMATH,
        why="stale weights make the groups uniform and the policy look frozen",
    ),
    *_explains(
        "kl_blowup",
        "entropy_explosion",
        "outlier_step",
        "length_hacking",
        *_AFTERMATH,
        why="a policy run away from the reference writes long gibberish",
    ),
    *_explains(
        "truncation_starvation",
        "length_hacking",
        "data_too_hard",
        "reward_hacking",
        *_AFTERMATH,
        why="answers cut at the cap score 0 and look all wrong",
    ),
    *_explains(
        "entropy_collapse",
        "data_too_easy",
        "data_too_hard",
        *_AFTERMATH,
        why="identical samples make every group uniform (the lesson's pair B)",
    ),
    *_explains("entropy_explosion", "length_hacking", *_AFTERMATH, why="a flat policy rambles to the cap"),
    *_explains("length_hacking", "reward_hacking", why="the specific exploit is named first"),
    *_explains("data_too_hard", "reward_hacking", *_AFTERMATH, why="an all-wrong truth cannot follow any reward"),
    *_explains("reward_hacking", *_AFTERMATH, why="the reward is learned, the goal is not"),
    *_explains("stalled", "not_learning", why="nothing moves: the named cause of a goal that does not"),
    *_explains(
        "stalled",
        "lr_too_high",
        why="the policy does not move (entropy and KL still): a jumpy grad norm is the measurement's, not overshooting steps",
    ),
    *_explains("lr_too_high", "batch_noise", why="the jitter comes from the updates (the lesson's pair D)"),
    _defers(
        "kl_blowup",
        "entropy_collapse",
        "kl_sharpening",
        "the KL is what the entropy's slide costs (谁先动谁是因), not a blow-up",
    ),
    _defers("kl_blowup", "entropy_explosion", "kl_flattening", "the KL is what the entropy's run-up costs"),
    _defers(
        "kl_blowup",
        "lr_too_high",
        "kl_lifted_by_updates",
        "a KL taking off while the clip fraction and the grad norm are up is the learning rate's",
    ),
    _defers(
        "reward_hacking",
        "length_hacking",
        "reward_paid_in_length",
        "the answers grow with the parting and the truth gains nothing: length is the channel",
    ),
    _defers(
        "data_too_easy",
        "entropy_collapse",
        "entropy_gone_no_progress",
        "entropy gone and no progress: the groups are uniform because the samples are identical",
    ),
    _defers(
        "data_too_easy",
        "entropy_collapse",
        "policy_narrowing",
        "the entropy falls faster than adv_std, the answers not mostly right: the policy narrows (pair B)",
    ),
    _defers(
        "truncation_starvation",
        "kl_blowup",
        "kl_jumped_at_cut",
        "the KL jumped as the answers ran long: garbage answers fill the cap after the break",
    ),
    _defers("data_too_hard", "truncation_starvation", "answers_cut", "cut answers score 0 and look all wrong"),
    _defers(
        "truncation_starvation",
        "data_too_hard",
        "finished_scored_alike",
        "half the answers finish and no group has any spread: the finished ones scored what the cut ones did",
    ),
    _defers(
        "data_too_hard",
        "entropy_collapse",
        "entropy_to_zero",
        "identical samples make every group uniform, right or wrong",
    ),
    _defers(
        "data_too_hard",
        "reward_hacking",
        "reward_climbs_alone",
        "a reward climbing over an all-wrong accuracy is being learned or gamed, not starved",
    ),
    _defers(
        "reward_hacking",
        "length_hacking",
        "length_term_jumped",
        "the reward parted from its truth through a logged length term: the length is the channel",
    ),
    _defers(
        "length_hacking",
        "truncation_starvation",
        "cut_undecided",
        "answers running into the cap with nothing yet to say the reward paid for them: the cap may be "
        "cutting them (the lesson's pair C, decided by the reward)",
    ),
    _defers(
        "length_hacking",
        "kl_blowup",
        "len_with_kl_breaking",
        "answers growing while the KL breaks away are the break-up's, not a term paying for length",
    ),
    _defers(
        "length_hacking",
        "entropy_explosion",
        "len_with_entropy_breaking",
        "answers growing while the entropy runs up are a flat policy rambling",
    ),
    _defers(
        "entropy_explosion",
        "kl_blowup",
        "entropy_with_kl_leaving",
        "an entropy running up while the KL leaves its line may follow a blow-up (entropy 上升 = 可能 KL 跑飞)",
    ),
    Relation("chain", "", "kl_blowup|entropy_explosion", "the KL drags the entropy, or the entropy drags the KL"),
    Relation("chain", "", "kl_blowup|entropy_collapse", "a collapse pulls the KL along with it"),
    Relation(
        "chain",
        "",
        "kl_blowup|reward_hacking",
        "a policy chasing a gamed reward is dragged from the reference; a policy run away games what it can",
    ),
    Relation(
        "chain",
        "",
        "kl_blowup|sync_failure",
        "a policy that jumped far in one update also moves the importance ratio off 1 in that update",
    ),
    Relation(
        "chain",
        "entropy_explosion",
        "entropy_explosion|truncation_starvation",
        "gibberish from an entropy run-up fills the answers to the cap; a cap cannot raise the entropy",
    ),
)


_BY_ID = {s.id: s for s in SPECS}


def spec(finding_id: str) -> FindingSpec:
    return _BY_ID[finding_id]
