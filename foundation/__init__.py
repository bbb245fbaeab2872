"""The foundation every package stands on: plain values and helpers with no state.

It imports nothing of the project (the standard library only), so `table/`,
`firmware_bridge/`, `vision/`, `hwsim`, `houseedge/` and `tablectl/` may all
import it without importing each other (docs/architecture.md).
"""
