"""One paho client (MQTT 5), made the same way for a table and for the floor."""

from __future__ import annotations

import socket
import ssl
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tablectl.mqtt.settings import Broker

# Reason codes of a CONNACK that no retry will change: the broker's configuration
# (or this side's credentials) must be fixed first.
REFUSED = {
    0x84: "the broker does not speak MQTT 5",
    0x85: "the broker refused the client id",
    0x86: "the broker refused the user name or password",
    0x87: "the broker refused the user name or password (not authorized)",
    0x8A: "the broker has banned this client",
    0x8C: "the broker refused the authentication method",
}


class BrokerError(Exception):
    """The broker cannot be used; the message says what to fix."""


def make_client(broker: Broker, client_id: str) -> mqtt.Client:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv5)
    if broker.username is not None:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        try:
            client.tls_set(ca_certs=broker.ca_file, certfile=broker.cert_file,
                           keyfile=broker.key_file)
        except (OSError, ssl.SSLError) as error:
            raise BrokerError(f"the TLS files for {broker.address} cannot be used: "
                              f"{error}") from error
    client.reconnect_delay_set(min_delay=1, max_delay=5)
    return client


def session_properties(expiry_s: int) -> Properties:
    """CONNECT properties: keep the session (subscriptions, queued messages) for
    `expiry_s` after a disconnect."""
    properties = Properties(PacketTypes.CONNECT)
    properties.SessionExpiryInterval = expiry_s
    return properties


def refused_reason(reason_code: Any) -> str | None:
    """What a failed CONNACK means, or None when a retry may succeed (or it is a success)."""
    value = getattr(reason_code, "value", reason_code)
    if not isinstance(value, int) or value < 0x80:
        return None
    return REFUSED.get(value, f"the broker refused the connection ({reason_code})")


def first_connect(client: mqtt.Client, broker: Broker, *, clean_start: bool,
                  properties: Properties | None = None) -> None:
    """Connect once now (so that a wrong address is said at once), then leave the
    reconnecting to paho's loop thread. Raises BrokerError."""
    try:
        client.connect(broker.host, broker.port, keepalive=broker.keepalive,
                       clean_start=clean_start, properties=properties)
    except socket.gaierror as error:
        raise BrokerError(f"{broker.address}: the host {broker.host!r} is not known "
                          f"({error.strerror}); check the broker URL") from error
    except ssl.SSLError as error:
        raise BrokerError(f"{broker.address}: the TLS handshake failed ({error.reason}); "
                          "check the CA file and that the port speaks TLS") from error
    except OSError as error:
        raise BrokerError(f"{broker.address}: cannot reach the broker "
                          f"({error.strerror or error}); is it running, and is this "
                          "the right host and port?") from error
