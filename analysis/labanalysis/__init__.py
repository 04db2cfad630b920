"""Turns a bench run folder (results/<timestamp>-<profile>/) into tables and plots for the report."""
