"""The lab's statistics, each computed in one place: a figure across passes (across), two servers' ratio in the rounds that
measured both and an order of servers by such ratios (rounds), whether a figure repeated in a second run (runs), and a server's
capacity from its CPU against the rate it served (capacity). Nothing here reads a run folder; the experiments' modules hand these
numbers and show what comes back.
"""

from .across import ONE_PASS, Across, across, apart, separated
from .capacity import CapacityFit, capacity_fit
from .rounds import in_rounds, ranked_in_rounds
from .runs import MOVED_AT_MOST, Repeat, repeated

__all__ = [
    "MOVED_AT_MOST",
    "ONE_PASS",
    "Across",
    "CapacityFit",
    "Repeat",
    "across",
    "apart",
    "capacity_fit",
    "in_rounds",
    "ranked_in_rounds",
    "repeated",
    "separated",
]
