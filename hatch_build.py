"""The wheel's build hook: the log format's published JSON Schema, assembled from each
game's entry (its facts' ``log_schema()``) and written into the wheel as
``stratstone_cad/log/schema.json``, so that a new game touches only its folder and the
registry's line, and the wheel still carries the whole schema for other tools to read.
The package's own code assembles the same schema at run time
(:func:`stratstone_cad.log.logfile.load_schema`); the packaging tests compare the two."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class LogSchemaHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return  # an editable install reads the tree, which assembles the schema when asked
        sys.path.insert(0, self.root)  # the tree's package, pure Python to this point (no third-party import)
        try:
            from stratstone_cad.log.logfile.schema import load_schema
        finally:
            sys.path.remove(self.root)
        folder = Path(tempfile.mkdtemp(prefix="stratstone-cad-schema-"))
        path = folder / "schema.json"
        path.write_text(json.dumps(load_schema(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        build_data["force_include"][str(path)] = "stratstone_cad/log/schema.json"
