"""Journal event to the pit display: how long after the table applied (and appended)
an event a watcher has it, on the simulated table running flat out.

The simulated table (tablectl/sim.py) deals `--rounds` rounds with 7 boxes and no
pause, its API and display on a free loopback port. Each update the display's
stream sends carries `changed_at`, when the first event it shows was applied on
the table's loop (the same moment the event is appended to the journal). Two
watchers measure `now - changed_at` as each update arrives:

- `--sse-clients` plain stream readers in this process (default 1);
- with `--browser` (Debian's chromium and chromium-driver, through Selenium),
  the display page itself, logged in, measured in the page after it has drawn
  the update.

Target: p99 <= 100 ms. Prints the percentiles, the updates received and the
rounds per second the table kept meanwhile.

    .venv/bin/python benchmarks/bench_display_latency.py [--rounds N] [--browser]
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tablectl.auth import UsersFile
from tablectl.sim import SimOptions, SimulatedTable

PASSWORD = "benchmark password"


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    if not ordered:
        return "no updates"

    def at(share: float) -> float:
        return 1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    return (f"{len(ordered)} updates, ms: p50 {at(0.5):.1f}  p90 {at(0.9):.1f}  "
            f"p99 {at(0.99):.1f}  max {1000 * ordered[-1]:.1f}")


def read_stream(port: int, token: str, latencies: list[float], stop: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/display/stream", headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    while not stop.is_set():
        line = response.fp.readline()
        if not line:
            break
        if line.startswith(b"data: "):
            state = json.loads(line[6:])
            latencies.append(time.time() - state["changed_at"])
    conn.close()


def open_browser(url: str, user: str) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        raise SystemExit("--browser needs chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 f"--user-data-dir={tempfile.mkdtemp(prefix='bench-chromium-')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.get(url)
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "login-user").is_displayed())
    driver.execute_script("window.tablectlLatencies = [];")
    driver.find_element(By.ID, "login-user").send_keys(user)
    driver.find_element(By.ID, "login-password").send_keys(PASSWORD)
    driver.find_element(By.ID, "login-submit").click()
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "status").text == "live")
    return driver


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--sse-clients", type=int, default=1)
    parser.add_argument("--browser", action="store_true")
    args = parser.parse_args()
    import logging

    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="bench-display-") as folder:
        users = Path(folder) / "users.json"
        UsersFile(users).add_person("watcher", "pit", PASSWORD)
        sim = SimulatedTable(SimOptions(journal=str(Path(folder) / "journal.sqlite"),
                                        rounds=args.rounds, api_port=0, users=str(users),
                                        mistake_rate=0.02), out=io.StringIO())
        sim.start()
        assert sim.daemon is not None and sim.daemon.api is not None
        api = sim.daemon.api
        token = sim.daemon.auth.issue_token("bench", "pit")
        stop = threading.Event()
        streams: list[list[float]] = [[] for _ in range(args.sse_clients)]
        readers = [threading.Thread(target=read_stream, args=(api.address[1], token, mine, stop),
                                    daemon=True) for mine in streams]
        for reader in readers:
            reader.start()
        driver = open_browser(api.url + "/", "watcher") if args.browser else None
        started = time.monotonic()
        sim.run()  # until the dealer has dealt every round
        elapsed = time.monotonic() - started
        stop.set()
        browser_latencies: list[float] = []
        if driver is not None:
            browser_latencies = [float(v) for v in
                                 driver.execute_script("return window.tablectlLatencies;")]
            driver.quit()
        print(f"{sim.rounds_played} rounds flat out in {elapsed:.1f} s "
              f"({sim.rounds_played / elapsed:.0f} rounds/s) with the display watched")
        for number, mine in enumerate(streams, 1):
            # The first update is the table as it stood when the reader connected.
            print(f"stream reader {number}: {percentiles(mine[1:])}")
        if driver is not None:
            print(f"browser (drawn): {percentiles(browser_latencies[1:])}")
        print("target: p99 <= 100 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
