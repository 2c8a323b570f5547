"""The processes below a process, as the tests that kill builds look at them (from /proc)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, their children...), from /proc."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = set(), [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def in_session(sid: int) -> set[int]:
    """Every process of the session ``sid`` (a process started with ``start_new_session``:
    its own pid), its own included, from /proc: orphans too, which ``descendants`` loses
    once their parent has gone."""
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z" and int(fields[3]) == sid:
                out.add(int(d.name))
    return out


def cpu_ticks(pids: Iterable[int]) -> int:
    """The CPU time the processes ``pids`` have used (user and system, clock ticks); a process
    gone counts 0."""
    total = 0
    for q in pids:
        try:
            fields = Path(f"/proc/{q}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += int(fields[11]) + int(fields[12])
    return total
