"""The viewer: previews of the parts and replays of the logs, on screen and off."""

DEFAULT_SIZE = (1280, 720)
"""An image's or a window's size in pixels when none is asked for (``--size``). Written
here, in a module that imports nothing, so the command line reads it without the viewer."""
