"""The virtual shoe: ShoeLink and plain-text scanners on pseudo-terminals."""

from hwsim.shoe.cards import CardListError, load_stacked, parse_card_list, shuffled_shoe
from hwsim.shoe.faults import FAULT_KINDS, LineFaults
from hwsim.shoe.text_scanner import VirtualTextScanner
from hwsim.shoe.virtual_shoe import SentRecord, ShoeTiming, VirtualShoe

__all__ = [
    "FAULT_KINDS",
    "CardListError",
    "LineFaults",
    "SentRecord",
    "ShoeTiming",
    "VirtualShoe",
    "VirtualTextScanner",
    "load_stacked",
    "parse_card_list",
    "shuffled_shoe",
]
