"""The numpy number reader gives exactly what float() gives, and flags what is not a number."""

from __future__ import annotations

import numpy as np

from rlvitals.ingest.fastnum import numeric_buffer, parse_tokens, read_rows, token_bounds


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


def _spellings(x: np.ndarray, rng) -> list[str]:
    """One float each, written as loggers write them: repr, %g, %e, %E, a '+' sign, exponents with
    and without their sign, long mantissas (17 significant digits and more)."""
    ways = [
        repr,
        lambda v: f"{v:g}",
        lambda v: f"{v:.4e}",
        lambda v: f"{v:.9E}",
        lambda v: f"{v:+.6f}",
        lambda v: f"{v:.3e}".replace("e+", "e").replace("e-0", "e-"),
        lambda v: f"{v:.17g}",
        lambda v: f"{v:.19e}",
        lambda v: f"{v:.20f}",
    ]
    return [ways[w](v) for v, w in zip(x.tolist(), rng.integers(0, len(ways), x.size).tolist())]


def test_every_spelling_equals_float_bit_for_bit():
    rng = np.random.default_rng(1)
    x = rng.normal(0, 1, 20000) * 10.0 ** rng.integers(-30, 30, 20000)
    tokens = _spellings(x, rng)
    tokens += [
        "1e5",
        "1E+5",
        "-1.5e-300",
        "2.5e-320",
        "1e308",
        "00000000000000000000000001.5",
        "-0.0e0",
        "9007199254740993",
        "9007199254740993e-5",
        "0.1000000000000000055511151231257827",
    ]
    vals, ok = _parse(tokens)
    assert ok.all()
    expect = np.array([float(t) for t in tokens])
    assert np.array_equal(vals.view(np.int64), expect.view(np.int64))  # same bits, signs of zero too


def test_exponent_shapes_that_are_not_numbers_are_flagged():
    vals, ok = _parse(["1e", "e5", "1e-", "1e+-5", "1.5e5.5", "1" + "0" * 20, "1e400", "1.5e-7"])
    assert ok.tolist() == [False] * 5 + [True, False, True]
    assert vals[5] == 1e20 and vals[-1] == 1.5e-7


def test_read_rows_equals_float_bit_for_bit():
    rng = np.random.default_rng(2)
    x = rng.normal(0, 1, 3000) * 10.0 ** rng.integers(-30, 30, 3000)
    tokens = _spellings(x, rng) + ["+5", "-.5", "5.", "007", "-0", "2.5e-320", "1e-400"]
    tokens += ["1"] * (-len(tokens) % 3)
    lines = [" ".join([str(i), "e", *tokens[i : i + 3]]).encode() for i in range(0, len(tokens), 3)]
    got = read_rows(lines, 5, 0, [2, 3, 4])
    assert got is not None and np.array(got[1]).shape == (3, len(lines))
    assert got[0].tolist() == list(range(0, len(tokens), 3))
    expect = np.array([float(t) for t in tokens])
    assert np.array_equal(np.array(got[1]).T.ravel().view(np.int64), expect.view(np.int64))


def test_read_rows_refuses_what_the_careful_path_must_see():
    good = [b"1 e 2.5", b"2 ee 3e-5"]
    steps, values = read_rows(good, 3, 0, [2])
    assert steps.tolist() == [1, 2] and [v.tolist() for v in values] == [[2.5, 3e-5]]
    assert read_rows([*good, b"3 e 1 2"], 3, 0, [2]) is None  # a token too many
    assert read_rows([*good, b"3 e"], 3, 0, [2]) is None  # one too few
    for bad in (b"1.2.3", b"1e", b"--1", b"e", b"1e400", b"-1e999"):
        assert read_rows([*good, b"3 e " + bad], 3, 0, [2]) is None
    assert read_rows([*good, b"x e 1"], 3, 0, [2]) is None
    assert read_rows([*good, b"1.5 e 1"], 3, 0, [2])[0].tolist() == [1, 2, 1.5]  # steps_ok refuses it
    assert [v.size for v in read_rows([], 3, 0, [2])[1]] == [0]
