"""Rules engines: pure Python (stdlib + jsonschema), no CAD or VTK import.

- :mod:`.core`: the shared protocol (State, moves, events, errors, the game registry)
- :mod:`.stratstone`, :mod:`.sage_stones`: the engines (registered as ``stratstone`` and
  ``sage-stones``; the terrain engine registers itself the same way)
- :mod:`.log`: the JSON Lines engine log (streaming read, schema + rules check, atomic write)
- :mod:`.players`: built-in ``random`` and ``greedy`` players
- :mod:`.commands`: ``play`` and ``check_log``, called by the CLI
"""

from stratstone_cad.games.core import Event, Game, Result, State, game_names, get_game, register

__all__ = ["Event", "Game", "Result", "State", "game_names", "get_game", "register"]
