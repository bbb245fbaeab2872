"""`tablectl panel test` on mock pins: the walk, presses, and option errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["panel", "test", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_mock_walk_shows_every_state_of_every_box_then_each_lamp(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(["--mock", "--step-ms", "0", "--press", "stand"], capsys)
    assert code == 0
    lines = out.splitlines()
    # 7 boxes x 6 states, 4 lamps, all off, the button header, one press, the count.
    assert len(lines) == 7 * 6 + 4 + 1 + 3
    assert lines[1].startswith("box 1: turn (white, blinking)")
    assert lines[1].endswith("1:turn~ 2:off 3:off 4:off 5:off 6:off 7:off | "
                             "draw stand alarm shoe_fault")
    assert lines[29].startswith("box 5: blackjack (magenta)")
    assert lines[41].startswith("box 7: blackjack (magenta)")
    assert lines[41].endswith("7:blackjack | draw stand alarm shoe_fault")
    assert lines[45].endswith("| draw stand alarm SHOE_FAULT")
    assert lines[46].startswith("all off")
    assert lines[48].startswith("button stand pressed at +")
    assert lines[49] == "1 button press(es) reported"


def test_pin_map_from_a_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        "[table]\nprofile = 'casinos-austria'\n\n"
        "[panel]\nlamps = { draw = 23, stand = 24, alarm = 25, shoe_fault = 8 }\n"
        "[panel.boxes]\n1 = { rgb = [4, 17, 27] }\n"
        "[panel.buttons]\nnext = 2\n",
        encoding="utf-8",
    )
    code, out, _ = run(["--mock", "--config", str(config), "--step-ms", "0",
                        "--press", "next"], capsys)
    assert code == 0
    assert "box 1: won (green)" in out and "box 2" not in out
    assert "buttons (next)" in out and "button next pressed" in out


def test_a_bad_pin_map_is_reported_and_nothing_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        "[panel]\nlamps = { draw = 4, stand = 24, alarm = 25, shoe_fault = 8 }\n"
        "[panel.boxes]\n1 = { rgb = [4, 17, 27] }\n",
        encoding="utf-8",
    )
    code, out, err = run(["--mock", "--config", str(config)], capsys)
    assert code == 2 and out == ""
    assert "GPIO4 is already used by boxes.1.rgb red" in err


def test_option_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["--press", "stand"], capsys)
    assert code == 2 and "--press needs --mock" in err
    code, _, err = run(["--mock", "--press", "hit"], capsys)
    assert code == 2 and "no button named hit" in err and "has: stand" in err
    code, _, err = run(["--mock", "--config", str(tmp_path / "missing.toml")], capsys)
    assert code == 2 and "cannot read the file" in err
    with pytest.raises(SystemExit):
        main(["panel", "test", "--step-ms", "-5"])
    assert "negative" in capsys.readouterr().err


def test_unusable_gpio_pins_are_reported_with_what_to_do(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-pin-library")
    code, out, err = run(["--step-ms", "0", "--listen-s", "0"], capsys)
    assert code == 1 and out == ""
    assert "cannot open the GPIO pins" in err and "--mock" in err


def test_gpiozero_mock_factory_from_the_environment_is_the_mock_panel(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # gpiozero's MockFactory has no PWM; the RGB boxes need it (PinPWMUnsupported before).
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    code, out, err = run(["--step-ms", "0", "--press", "stand"], capsys)
    assert code == 0, err
    assert "box 7: blackjack (magenta)" in out and "button stand pressed" in out
