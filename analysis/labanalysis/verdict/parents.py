"""A model beside the models it is made of (servers.json's models' madeOf): coroutines on virtual threads against coroutines and
against virtual threads, on each shape of work the verdict judges, on each engine that ran both.

The verdict ranks every model at once and names at most the first few; a reader who asks whether moving coroutines onto virtual
threads gains or loses wants each parent set against the model alone. Each pair is judged by the verdict's rule (stats.clear_lead:
at least stats.LEAD_AT_LEAST in every round, the passes' own intervals apart), round by round, so the host's drift cancels.
"""

from __future__ import annotations

import pandas as pd

from ..folder import catalogue
from . import perpass, verdict
from .engine_verdict import pair_cell, pair_effect

COLUMNS = ["work", "judged on", "model", "against", "on", "in the rounds", "it"]


def table(per_pass: pd.DataFrame) -> pd.DataFrame:
    """A row per model made of others, shape of work, engine that ran it and model it is made of (COLUMNS), from perpass.table's rows
    as the verdict keeps them (perpass.for_verdict); empty where no model made of others ran beside one it is made of."""
    kept = perpass.for_verdict(per_pass)
    rows = []
    for model, parents in catalogue.MADE_OF.items():
        for shape in verdict.SHAPES:
            figure = verdict.judged_on(shape, kept)
            if figure is None:
                continue
            measured = kept[(kept["figure"] == figure.key) & kept["value"].notna()]
            for engine in dict.fromkeys(measured.loc[measured["model"] == model, "engine"]):
                for parent in parents:
                    pair = measured[(measured["engine"] == engine) & measured["model"].isin([model, parent])]
                    if pair["model"].nunique() < 2:
                        continue
                    effect = pair_effect(pair, "model", engine, figure)
                    rows.append(
                        {
                            "work": shape.work,
                            "judged on": figure.label,
                            "model": _words(model),
                            "against": _words(parent),
                            "on": catalogue.engine_label(engine),
                            "in the rounds": pair_cell(effect, _words),
                            "it": ("gains" if effect.first == model else "loses") if effect.named else "neither gains nor loses clearly",
                        }
                    )
    return pd.DataFrame(rows, columns=COLUMNS)


def _words(model: str) -> str:
    return catalogue.MODEL_WORDS.get(model, model)
