"""`watch_file(path, config)`: the options as one `WatchConfig`, or as keywords that replace its fields."""

from __future__ import annotations

import io

import pytest
from watch_helpers import fake_diagnose, kv_lines, write

from rlvitals.errors import NotAFile
from rlvitals.watch import WatchConfig, watch_file

COLLAPSE = [1.5] * 20 + [0.05] * 10 + [0.005] * 10  # warning from step 20, critical from 30


def test_a_config_and_keywords_give_the_same_watch(kv_format, tmp_path):
    p = tmp_path / "run.log"
    write(p, kv_lines(COLLAPSE))
    outs = []
    for args, kw in (((WatchConfig(once=True, until="critical"),), {}), ((), {"once": True, "until": "critical"})):
        out, err = io.StringIO(), io.StringIO()
        assert watch_file(p, *args, out=out, err=err, diagnose_fn=fake_diagnose, **kw) == 3
        assert "--until critical" in err.getvalue()
        outs.append(out.getvalue())
    assert outs[0] == outs[1] and "[CRITICAL] step 39" in outs[0]


def test_keywords_replace_the_configs_fields(kv_format, tmp_path):
    p = tmp_path / "run.log"
    write(p, kv_lines(COLLAPSE))
    config = WatchConfig(once=True, until="critical")
    # until=None: no alert stops the watch, so it ends 0 with the same alerts
    out = io.StringIO()
    assert watch_file(p, config, until=None, out=out, err=io.StringIO(), diagnose_fn=fake_diagnose) == 0
    assert "[CRITICAL] step 39" in out.getvalue()
    assert config.until == "critical"  # the config itself is left as it was (frozen)


def test_the_config_checks_its_arguments_before_reading(tmp_path):
    with pytest.raises(ValueError, match="--until"):
        WatchConfig(until="loud").check(tmp_path / "x.log")
    with pytest.raises(NotAFile, match="does not exist"):
        WatchConfig(once=True).check(tmp_path / "missing.log")
    with pytest.raises(TypeError):
        watch_file(tmp_path / "x.log", no_such_option=1)
