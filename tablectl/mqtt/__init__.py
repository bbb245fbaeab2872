"""The table on a casino floor: its journal published to an MQTT broker, and the floor.

- `settings`: the `[mqtt]` section and `--mqtt URL --table ID` (no paho import).
- `topics`: topic names and the versioned payloads, built and checked.
- `outbox`: the journal read as an outbox, with the persisted "published up to" mark.
- `connect`: one paho client as the table and the floor both make it.
- `publisher`: the thread that drains the outbox to the broker (`in_flight`: what the
  broker has not acknowledged yet; `resend`: the floor's requests; `seq_key`: the
  message key); `service_link`: the publisher of a running table.
- `floor_store`, `floor`, `floor_view`, `floor_web`, `report`: the floor's side;
  `floor_panel`: the floor on a table's pit display.

See docs/floor.md.
"""
