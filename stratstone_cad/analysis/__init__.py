"""Analysis on OpenSpiel: every registered engine wrapped as an OpenSpiel game
(:mod:`~stratstone_cad.analysis.spiel`) and the players that search it
(:mod:`~stratstone_cad.analysis.players`: ``search`` beside ``random`` and ``greedy``).

This layer uses the engines and the registry (and may read logs); the viewer and the
command line use it; it imports no CAD, mesh or VTK module and never the viewer
(import contracts in ``pyproject.toml``). OpenSpiel is imported on first use only, so a
command that plays no search player never loads it.
"""
