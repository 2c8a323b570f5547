"""What a game declares about its printable assets: pure Python, no CadQuery.

A game registers one :class:`~stratstone_cad.assets.game_assets.GameAssets` (``ASSETS`` in
its ``games/<game>/parts.py``, found through :data:`stratstone_cad.registry.FOLDERS`): its
parameter sections and preset, how the checked sections combine into the game's
parameters, its plan (the list of :class:`~stratstone_cad.assets.jobs.Job`), the CAD
functions the jobs call (:class:`~stratstone_cad.assets.makers.CadFunctions`) and where its
pieces stand on its board (:class:`~stratstone_cad.assets.table.Table`).

- :mod:`.jobs`: a job, the files it writes, and the job of a board (tiled to fit the bed).
- :mod:`.makers`: a game's CAD functions, named without importing them, and their B-rep twins.
- :mod:`.table`: where a game's pieces stand on its board, for the viewer.
- :mod:`.layout`: the set laid out as a game starts (the assembly's places).
- :mod:`.game_assets`: :class:`GameAssets`, the one object a game registers.

Below the games and above geometry and the engines in the layers: the build, the viewer
and the printing read these declarations; planning, naming the files and checking the
cache never load CadQuery.
"""
