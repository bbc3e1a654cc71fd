"""The numpy number reader gives exactly what float() gives, and flags what is not a number."""

from __future__ import annotations

import numpy as np

from rlvitals.ingest.fastnum import numeric_buffer, parse_tokens, token_bounds


def _parse(tokens: list[str]):
    a = numeric_buffer((" ".join(tokens) + "\n").encode())
    s, e = token_bounds(a)
    assert s.size == len(tokens)
    return parse_tokens(a, s, e)


def test_equals_float_on_many_shapes():
    rng = np.random.default_rng(0)
    x = rng.normal(0, 10, 3000) * 10.0 ** rng.integers(-4, 5, 3000)
    tokens = [f"{v:.{d}f}" for v, d in zip(x, rng.integers(0, 8, 3000))]
    tokens += ["0", "-0", "+5", "-.5", "5.", "007", "123456789012345", "1234567890123456789", "0.1234567890123456"]
    vals, ok = _parse(tokens)
    assert ok.all()
    expect = [float(t) for t in tokens]
    assert vals.tolist() == expect
    assert np.signbit(vals[tokens.index("-0")])


def test_not_numbers_are_flagged():
    vals, ok = _parse(["1.2.3", "-", ".", "1-2", "--1", "0.5"])
    assert ok.tolist() == [False] * 5 + [True]
    assert vals[-1] == 0.5
