"""What the replay draws over its scene to say why a ply is what it is, as the games' own
apps do: the ply in words, and on the board what the rules counted.

- The caption (upper left): the move, the engine's explanation of it
  (:meth:`~stratstone_cad.engine.protocol.Game.explain`, wrapped to the image's width), the
  facts after it and, at the end, the result; on a white panel, so that it reads over the
  board where a long explanation reaches it.
- The terrain game: the path walked, a tube over the cells' tops climbing each step, with
  each step's cost at the cell it enters (a Runner's jump or diagonal step an arc, named);
  an exit leaves over the rim. An attack puts a halo over the attacker's square and one
  over the defender's, each with its sum beside it (the terms are in the caption). With
  ``reach`` (the app's "Try it"), the squares the piece to move could have reached, lit,
  each with its cost; its special moves starred; its exit an arrow on the rim.
- Sage Stones: the column the dice allow, a translucent band with an outline over its
  wells; each trap a line from the gem placed to the far one, over the gems it traps
  (drawn from the start of the ply: before they lift away).
- Stratstone: the sowing path from the stack picked up, on the board between the stacks,
  each sown square numbered; at the end, a ring round the top stone of each square of the
  winning line(s) and a band across their squares.

Where the drawings go is worked out without VTK (:class:`~.plan.Plan`, a ply's :class:`~.plan.Drawing`):
the window draws them with VTK (:class:`~.actors.Overlays`), the shared page with three.js from the
glTF's extras (:mod:`~stratstone_cad.viewer.gltf`).

No drawing covers the top of a piece at rest (a bar across Stratstone's stacks would hide
the colours that make the line): the drawings go round pieces, under them, or over their
heads. Everything is read from the ply's events (the rules' own numbers, never counted
again here) and, for the reach, from the engine's ``reach`` of the state before the ply.
The actors are added once; a new ply sets a few small meshes and labels into them, a
frame within a ply changes nothing but the caption (and the winning line, at the end).

Colours: magenta for what the move does (its path, a trap, the attacker's halo and sum),
cyan for what it is measured against or aims at (the defender, the allowed column, the
winning line, a special move), white for the squares within reach. On the boards (greens,
sand, browns, pale rock, print grey) and the pieces (red, blue, yellow, tan, the gems)
neither is near any colour in use, nor near the from and to marks' blue and orange.

The package, one module a concern (``__init__`` holds this overview only and re-exports
nothing: each name is imported from the one module that defines it):

- :mod:`.style`: the colours, opacities and sizes (the window's and the shared page's);
- :mod:`.text`: the caption and the labels (chips) drawn over the scene, and font sizes;
- :mod:`.shapes`: the meshes the drawings are made of (tubes, flat polygons, stars, halos);
- :mod:`.plan`: where a ply's drawings go, without VTK (:class:`~.plan.Plan`, :class:`~.plan.Drawing`),
  and the reach's options;
- :mod:`.actors`: the VTK actors that draw a plan in the replay window (:class:`~.actors.Overlays`).
"""
