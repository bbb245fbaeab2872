"""House edge and return to player of every bet of a profile.

Depends only on `table/` (profiles, cards, pay tables). Modules:
`shoe` (compositions), `exact` (side bets and insurance by exact
combinatorics), `dealer` (dealer outcome probabilities), `player` (the
player's expectations for a fixed shoe), `strategy` (basic strategy computed
from the rules), `mainbet` (combinatorial analysis of the main game), `sim`
(the fast simulator), `crosscheck` (the simulator against the table engine),
`bets` (every bet of a profile), `options` and `report`.
"""
