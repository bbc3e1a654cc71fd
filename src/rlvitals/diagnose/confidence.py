"""How sure a rule is of a finding it reports (`Finding.confidence`): one scale for every rule.

The confidence is shown to the reader and orders findings only after severity and priority (that
is, never between two kinds of finding); no finding is kept, dropped or graded by it.  So its levels
are a reading aid, not thresholds: they are not rows of thresholds.TABLE and never calibrated.  A
rule picks the level its test earns and adds a `SIGN` for each corroborating sign, capped at 1.
"""

from __future__ import annotations

__all__ = [
    "ALL_WRONG",
    "CERTAIN",
    "DECADE",
    "FAIR",
    "FIRM",
    "LOST_WEIGHT",
    "LOW",
    "MODEST",
    "SIGN",
    "SOLID",
    "STRONG",
    "SURE",
    "VERY_STRONG",
    "WEAK",
]

LOW = 0.4  # a note whose deciding metric is not logged; a plateau still creeping up
WEAK = 0.5  # one curve's last stretch against its own line, nothing else to corroborate
MODEST = 0.55  # a fall under way with no consequence shown yet (entropy_collapse before its signs)
FAIR = 0.6  # an on-the-way test beyond a far z bar, or a second metric agreeing
FIRM = 0.7  # a whole-run test, or an on-the-way test that a second measure confirms
SOLID = 0.75  # a whole-run test whose deciding metric is a stand-in (no trunc rate; a parting)
STRONG = 0.8  # the lesson's own pattern over the whole run
VERY_STRONG = 0.85  # that pattern with the mechanism logged (a reward term, the groups all wrong)
SURE = 0.9  # read off the metric that defines the finding (a trunc rate, a critical explosion)
CERTAIN = 0.95  # a NaN is a NaN

SIGN = 0.1  # each corroborating sign
DECADE = 0.05  # kl_blowup: each decade of the KL's surge
LOST_WEIGHT = 0.5  # reward_hacking: per unit of the truth lost since the parting
ALL_WRONG = 0.03  # data_too_hard: an accuracy ending below this is all wrong beyond doubt (one sign more)
