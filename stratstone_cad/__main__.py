"""``python -m stratstone_cad`` is the ``stratstone-cad`` command."""

from stratstone_cad.cli import entry

entry()
