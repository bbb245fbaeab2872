"""Camera frames in, cards and their places out: sources, recognizer, layout, tracker.

See docs/vision.md. This package imports neither `table`, `firmware_bridge`,
`tablectl` nor `hwsim`.
"""
