"""Meshes: tessellation of CadQuery solids, boards and 2D-region parts meshed by
manifold3d, checks, STL writing.

``tessellate`` needs CadQuery; ``stack``, ``checks`` and ``stl`` need only numpy, shapely
and manifold3d, so planning, the CadQuery-free parts and the viewer can use them on any
triangle mesh without loading CadQuery.
"""
