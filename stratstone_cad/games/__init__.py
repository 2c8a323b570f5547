"""The games: one folder each, holding everything that is that game's and nothing of another's.

``<game>/rules.py`` is its rules engine and the game's facts; ``parts.py`` its parameter
sections, their checks and its plan of printable parts; ``cad.py`` its CAD functions;
``preset.toml`` its default parameters. :mod:`stratstone_cad.registry` lists the games.
"""
