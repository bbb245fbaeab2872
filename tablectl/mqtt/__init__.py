"""The table on a casino floor: its journal published to an MQTT broker, and the floor.

- `settings`: the `[mqtt]` section and `--mqtt URL --table ID` (no paho import).
- `topics`: topic names and the versioned payloads, built and checked.
- `outbox`: the journal read as an outbox, with the persisted "published up to" mark.
- `connect`: one paho client as the table and the floor both make it.
- `publisher`: the thread that drains the outbox to the broker.
- `floor_store`, `floor`, `floor_view`, `floor_web`, `report`: the floor's side.

See docs/floor.md.
"""
