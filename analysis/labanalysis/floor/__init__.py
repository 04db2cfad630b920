"""make floor: each model's own memory per parked task."""
