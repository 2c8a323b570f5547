"""Meshes: tessellation of CAD solids, checks, STL writing.

``tessellate`` needs CadQuery; ``checks`` and ``stl`` need only numpy, trimesh and
manifold3d, so tests and the viewer can use them on any triangle mesh.
"""
