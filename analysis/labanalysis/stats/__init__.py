"""The lab's statistics, each computed in one place: a figure across passes (across), two servers' ratio in the rounds that
measured both and an order of servers by such ratios (rounds), whether a figure repeated in a second run (runs), and a server's
capacity from its CPU against the rate it served (capacity). Nothing here reads a run folder; the experiments' modules hand these
numbers and show what comes back.
"""

from .across import ONE_PASS, Across, across, apart, order, range_order, separated
from .capacity import NO_FIT, CapacityFit, capacity_fit
from .rounds import LEAD_AT_LEAST, apart_in_rounds, clear_lead, in_rounds, ranked_in_rounds
from .runs import MOVED_AT_MOST, Repeat, repeated

__all__ = [
    "LEAD_AT_LEAST",
    "MOVED_AT_MOST",
    "NO_FIT",
    "ONE_PASS",
    "Across",
    "CapacityFit",
    "Repeat",
    "across",
    "apart",
    "apart_in_rounds",
    "capacity_fit",
    "clear_lead",
    "in_rounds",
    "order",
    "range_order",
    "ranked_in_rounds",
    "repeated",
    "separated",
]
