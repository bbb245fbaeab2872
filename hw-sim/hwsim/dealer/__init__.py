"""The virtual dealer: deals real rounds at a simulated table.

It reaches the table only through a `TableLink` (in-process `InProcessTable`,
or the daemon's local API) and the cards only through a `CardShoe`
(`InProcessShoe`, or `VirtualShoeCards` over the virtual shoe on a pty).
See docs/dealer.md.
"""

from hwsim.dealer.dealer import DealerStats, VirtualDealer
from hwsim.dealer.inprocess import InProcessShoe, InProcessTable
from hwsim.dealer.protocols import CardShoe, DealerError, Sent, TableLink, TableUnavailable
from hwsim.dealer.pty_shoe import VirtualShoeCards
from hwsim.dealer.shoes import seeded_shoe

__all__ = [
    "CardShoe",
    "DealerError",
    "DealerStats",
    "InProcessShoe",
    "InProcessTable",
    "Sent",
    "TableLink",
    "TableUnavailable",
    "VirtualDealer",
    "VirtualShoeCards",
    "seeded_shoe",
]
