"""Arithmetic the rules share: guards, the constants of robust statistics, standard errors.

Nothing here is a decision: every number a rule decides on is a row of thresholds.TABLE, read
through `get()`.  These are the numbers of the arithmetic around those decisions -- a floor that
keeps a division or a logarithm defined, the factor that turns a MAD into a standard deviation, the
standard error of a difference of two means -- named once so that no rule repeats them inline.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "EPS",
    "HALF",
    "MAD_SIGMA",
    "MEDIAN_SE",
    "MICRO",
    "SQRT2",
    "TENTH",
    "TINY",
    "ls_fit",
    "pair_se",
    "robust_sd",
]

# Floors that keep a ratio, a logarithm or a noise defined when a value is exactly 0.  Each is far
# below any logged value's own noise, so it changes nothing else.
EPS = 1e-12  # a noise or a spread of exactly 0 (a constant stretch)
TINY = 1e-9  # a level of exactly 0 (a reward of 0 at every step, a length before its log)
MICRO = 1e-6  # a KL level before a ratio (logged KLs of a moving policy are 1e-4 and up)

# Robust statistics of a normal sample.
MAD_SIGMA = 1.4826  # sigma = MAD x 1.4826
MEDIAN_SE = 1.253  # the standard error of a median is sqrt(pi / 2) = 1.253 times a mean's
SQRT2 = float(np.sqrt(2.0))  # the noise of a first difference is sqrt(2) times a point's

# Shares of a run by convention, not by choice.
HALF = 0.5  # the second half of a run (context.late_gain, a deep entropy's goal judged over it)
TENTH = 0.1  # the start and end levels are means over a tenth of the points (symptoms)


def pair_se(k: int | float) -> float:
    """The standard error of the difference of two means of k points each, per unit of step noise."""
    return float(np.sqrt(2.0 / k))


def robust_sd(x: np.ndarray) -> float:
    """sigma from the median absolute deviation (MAD x 1.4826): one outlier does not move it."""
    return float(MAD_SIGMA * np.median(np.abs(x - np.median(x))))


def ls_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """The least-squares slope of y on x and its z (slope over its standard error); (0, 0) with fewer
    than 3 points or an x that does not vary."""
    xc = x.astype(float) - float(np.mean(x))
    sxx = float(xc @ xc)
    if y.size < 3 or sxx <= 0:
        return 0.0, 0.0
    slope = float(xc @ (y - y.mean())) / sxx
    res = y - y.mean() - slope * xc
    se = float(np.sqrt(float(res @ res) / (y.size - 2) / sxx))
    return slope, (slope / se if se > 0 else (np.inf if slope > 0 else 0.0))
