"""stratstone-cad: printable assets, rules engines and 3D replays for tabletop games.

Importing the package is cheap: the CAD (CadQuery) and viewer (PyVista) layers are
imported only by the modules that need them.
"""

__version__ = "0.1.0"
