"""Wait for a condition instead of sleeping a fixed time: tests and the hardware suite poll
what they are waiting for, so a fast machine does not wait for nothing and a slow one gets
the whole deadline before the check fails."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

DEFAULT_INTERVAL_S = 0.05


class PollTimeout(AssertionError):
    """The condition did not hold before the deadline; the message says what was awaited and
    what was seen last. An AssertionError, so pytest reports it as a failed check."""


def poll_until(
    condition: Callable[[], T],
    timeout: float,
    what: str = "condition",
    interval: float = DEFAULT_INTERVAL_S,
    ignore: tuple = (),
) -> T:
    """Call `condition` until it returns something truthy and return that; raise PollTimeout
    after `timeout` seconds. Exceptions listed in `ignore` count as "not yet" (say, a server
    that is not listening yet); the last one is named in the timeout message."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            result = condition()
            if result:
                return result
            last = result
        except ignore as e:
            last = e
        if time.monotonic() >= deadline:
            raise PollTimeout(f"{what}: not reached within {timeout:g} s (last seen: {last!r})")
        time.sleep(interval)


def wait_until(condition: Callable[[], T], timeout: float, interval: float = DEFAULT_INTERVAL_S) -> T:
    """Like poll_until, but at the deadline return the last (falsy) value instead of raising,
    for a caller whose assert shows what was seen: `assert wait_until(f, 5), f()`."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result or time.monotonic() >= deadline:
            return result
        time.sleep(interval)
