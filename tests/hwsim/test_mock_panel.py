"""The virtual panel: a real Panel on mock pins, read back from the pin levels."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockPWMPin
from hwsim.panel import MockPanel

from firmware_bridge.panel import BoxLamp, ButtonPress, LampPicture


@pytest.fixture
def mock() -> Iterator[MockPanel]:
    with MockPanel() as built:
        yield built


def test_built_in_map_on_pwm_mock_pins(mock: MockPanel) -> None:
    assert isinstance(mock.factory.pin(4), MockPWMPin)
    assert sorted(mock.pin_map.boxes) == [1, 2, 3, 4, 5, 6, 7]
    assert mock.render() == ("1:off 2:off 3:off 4:off 5:off 6:off 7:off | "
                             "draw stand alarm shoe_fault")


def test_colours_and_states_read_back_from_the_pins(mock: MockPanel) -> None:
    picture = (
        LampPicture(stand=True, shoe_fault=True)
        .with_box(1, BoxLamp.BET)
        .with_box(2, BoxLamp.WON)
        .with_box(3, BoxLamp.LOST)
        .with_box(4, BoxLamp.PUSH)
        .with_box(5, BoxLamp.BLACKJACK)
    )
    mock.panel.apply(picture)
    # Default box 2 is GPIO22/10/9 (red/green/blue): green alone is high.
    assert (mock.pin_level(22), mock.pin_level(10), mock.pin_level(9)) == (0.0, 1.0, 0.0)
    assert mock.box_colour(1) == (0.0, 0.0, 1.0)
    assert mock.box_colour(5) == (1.0, 0.0, 1.0)
    assert [mock.box_state(b) for b in range(1, 6)] == [
        BoxLamp.BET, BoxLamp.WON, BoxLamp.LOST, BoxLamp.PUSH, BoxLamp.BLACKJACK
    ]
    assert [mock.lamp(n) for n in ("draw", "stand", "alarm", "shoe_fault")] == [
        False, True, False, True
    ]
    assert mock.render() == (
        "1:bet 2:won 3:lost 4:push 5:blackjack 6:off 7:off | draw STAND alarm SHOE_FAULT"
    )


def test_a_blinking_box_renders_with_a_mark(mock: MockPanel) -> None:
    mock.panel.apply(LampPicture(draw=True).with_box(3, BoxLamp.TURN))
    assert mock.is_blinking(3) and not mock.is_blinking(2)
    assert mock.render() == ("1:off 2:off 3:turn~ 4:off 5:off 6:off 7:off | "
                             "DRAW stand alarm shoe_fault")
    assert mock.box_colour(3) in ((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))


def test_common_anode_and_single_led_boxes_read_back() -> None:
    section = {
        "boxes": {
            "1": {"rgb": [4, 17, 27], "common_anode": True},
            "2": {"leds": {"bet": 5, "turn": 6, "won": 13, "lost": 19, "push": 26,
                           "blackjack": 21}},
        },
        "lamps": {"draw": 23, "stand": 24, "alarm": 25, "shoe_fault": 8},
        "lamps_active_high": False,
    }
    with MockPanel(section) as mock:
        mock.panel.apply(
            LampPicture(alarm=True).with_box(1, BoxLamp.LOST).with_box(2, BoxLamp.PUSH)
        )
        # Common anode: the red component is lit by pulling its pin low.
        assert (mock.pin_level(4), mock.pin_level(17), mock.pin_level(27)) == (0.0, 1.0, 1.0)
        assert mock.box_colour(1) == (1.0, 0.0, 0.0)
        assert mock.box_state(2) is BoxLamp.PUSH and mock.pin_level(26) == 1.0
        assert mock.pin_level(25) == 0.0 and mock.lamp("alarm")
        assert mock.render() == "1:lost 2:push | draw stand ALARM shoe_fault"
        with pytest.raises(TypeError, match="single LEDs"):
            mock.box_colour(2)


def test_virtual_buttons_press_and_release(mock: MockPanel) -> None:
    heard: list[ButtonPress] = []
    mock.panel.on_button(heard.append)
    mock.press("stand")
    assert mock.pin_level(2) == 0.0  # the default buttons pull up: pressed is low
    mock.release("stand")
    assert [p.name for p in heard] == ["stand"]
    assert mock.panel.events.get_nowait().name == "stand"
    with pytest.raises(KeyError, match="no button named 'hit'; buttons: stand"):
        mock.press("hit")


@pytest.mark.parametrize("history", [3, None], ids=["last-three", "all"])
def test_each_pin_keeps_its_last_changes_only_so_a_long_run_stays_flat(
        history: int | None) -> None:
    with MockPanel(history=history) as mock:
        draw = mock.factory.pin(mock.pin_map.lamps["draw"])
        draw.clear_states()
        for n in range(10):
            mock.panel.apply(LampPicture(draw=n % 2 == 0))
        seen = [state.state for state in draw.states]
        assert len(seen) == (3 if history == 3 else 11)
        assert seen[-3:] == [False, True, False]  # the newest changes
        assert mock.lamp("draw") is False
    with pytest.raises(ValueError, match="history"):
        MockPanel(history=0)
