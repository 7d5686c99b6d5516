"""Every command's --help renders: no argparse internals, no traceback, every command listed."""

from __future__ import annotations

import argparse

import pytest

from sage_desk.cli import COMMANDS, build_parser, main


def _help_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_the_top_level_help_lists_every_command_readably(capsys):
    text = _help_of([], capsys)
    for name in COMMANDS:
        assert f"    {name}" in text, name
    assert "option_strings" not in text and "{'" not in text
    assert "% agreement" in text  # the agreement line, its percent sign kept as written


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_command_help_renders(command, capsys):
    text = _help_of([command], capsys)
    assert text.startswith(f"usage: sage-desk {command}")
    assert "option_strings" not in text and "Traceback" not in text
    # every option's help made it through %-formatting (a bare % raises or prints a dict)
    for action in build_parser()._subparsers._group_actions[0].choices[command]._actions:  # type: ignore[union-attr]
        for flag in action.option_strings if action.help != argparse.SUPPRESS else ():
            assert flag in text, (command, flag)
