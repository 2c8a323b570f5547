"""A stand-in for ``random.Random`` that lets a test list every choice a player could make."""

from __future__ import annotations


class Pick:
    """Picks the k-th of whatever it is offered (``randrange(n)`` gives ``k % n``) and
    remembers how many that was, so that a test can ask again with every other k."""

    def __init__(self, k: int) -> None:
        self.k, self.offered = k, 1

    def randrange(self, n: int) -> int:
        self.offered = n
        return self.k % n
