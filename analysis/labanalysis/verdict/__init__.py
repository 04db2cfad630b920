"""The answer: every compared figure a row a pass, the verdict, the grid's effects, make advise, two runs compared."""
