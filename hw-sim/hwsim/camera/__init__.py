"""Simulated overhead camera: card designs, card and scene rendering, scene datasets.

`render` draws cards and whole table scenes with their ground truth,
`dataset` writes benchmark sets, `table_frames` draws the simulated table's
current cards for hardware-in-the-loop tests.
"""
