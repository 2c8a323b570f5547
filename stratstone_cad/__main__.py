"""``python -m stratstone_cad`` is the ``stratstone-cad`` command."""

from .cli import entry

entry()
