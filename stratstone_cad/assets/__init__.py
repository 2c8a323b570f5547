"""Each game's printable assets: its parameters, their checks and its plan of jobs.

One module per game (pure Python, no CadQuery): ``stratstone``, ``sage_stones``,
``terrain``. Each defines its parameter sections (defaults in ``models/<game>.toml``),
``combine`` (the checks between sections, on the heights after snapping to the layers)
and ``plan`` (the jobs: which CAD function makes which file, given what), and exports
them as ``ASSETS``; :mod:`stratstone_cad.catalog` lists them. The CAD functions live in
``stratstone_cad/cad/<game>.py``; ``marks`` holds what the stones and the gems share.
"""
