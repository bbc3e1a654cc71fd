"""Bad input: one clear error, never a traceback; through `read()` and through the CLI."""

from __future__ import annotations

import pytest

from rlvitals import cli
from rlvitals.errors import BinaryInput, EmptyInput, InputError, NoMetrics, NotAFile, UnknownFormat
from rlvitals.ingest import FORMATS, read, read_text


@pytest.fixture
def bad(tmp_path):
    files = {
        "empty": ("empty.log", b""),
        "blank": ("blank.log", b"\n\n   \n"),
        "binary": ("bin.log", bytes(range(256)) * 4),
        "latin1": ("latin1.log", "[ 1] récompense=0.5\n".encode("latin-1") * 3),
        "prose": ("prose.log", b"This is a story.\nIt has no metrics at all.\n"),
        "nometrics": ("nom.log", b"[ 1] reward=abc\n[ 2] reward=def\n"),
    }
    out = {}
    for key, (name, data) in files.items():
        out[key] = tmp_path / name
        out[key].write_bytes(data)
    out["dir"] = tmp_path / "adir"
    out["dir"].mkdir()
    out["missing"] = tmp_path / "nope.log"
    return out


@pytest.mark.parametrize(
    "key, exc, words",
    [
        ("empty", EmptyInput, "is empty"),
        ("blank", EmptyInput, "is empty"),
        ("binary", BinaryInput, "binary"),
        ("latin1", InputError, "not UTF-8"),
        ("prose", UnknownFormat, "tried: lesson"),
        ("nometrics", NoMetrics, "not one metric"),
        ("dir", NotAFile, "directory"),
        ("missing", NotAFile, "does not exist"),
    ],
)
def test_read_errors(bad, key, exc, words):
    with pytest.raises(exc) as e:
        read(bad[key])
    msg = str(e.value)
    assert words in msg and "\n" not in msg


def test_unknown_format_name():
    with pytest.raises(InputError, match="known formats"):
        read_text("[1] reward=1\n", "no-such-format")


def test_formats_listed_by_name():
    for name in ("lesson", "verl-console", "verl-jsonl", "jsonl", "csv", "tensorboard"):
        assert name in FORMATS and FORMATS[name].description


@pytest.mark.parametrize("key", ["empty", "binary", "latin1", "prose", "nometrics", "dir", "missing"])
def test_cli_one_line_exit_2(bad, key, capsys):
    code = cli.main(["vitals", str(bad[key])])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("rlvitals: error:") and "Traceback" not in err
