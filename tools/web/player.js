// The replay page's player: the game's animated glTF (inlined in the page as base64),
// played with three.js. Bundled with three.js into stratstone_cad/viewer/web/player.min.js
// by tools/web/build.sh; the page (stratstone_cad/viewer/web.py) calls StratstonePlayer.start().
//
// The same controls as the replay window: Left/Right a ply, Home/End the start and the
// end, Space play/pause; a slider; orbit, pan and zoom by mouse and touch (OrbitControls);
// buttons for a phone. The overlay says the ply, the player, the move, the dice, the ply
// in words, the facts after it and, at the end, the result. The URL fragment names the
// ply shown (#ply=12) and follows it, so a link opens at a position. Nothing is fetched:
// the glTF is decoded from the page and parsed in memory (GLTFLoader.parse). A set's scene
// (the studio's preview of a part) is replaced in place by window.stratstone.show(bytes):
// the studio's page hands it the part's new glTF after a change, with no page loaded again.
//
// Over the scene, the drawings that explain a ply, as the replay window draws them
// (stratstone_cad/viewer/overlays.py works out where they go; the glTF's extras carry
// them a ply at a time): the path as a tube with each step's cost, an attack's halos and
// sums, the reach (a button and the R key show or hide it), Sage Stones' allowed column
// and traps, Stratstone's sowing with its numbers and, once the last ply is done, the
// winning line; the legend of levels in the upper right corner. One key light casts
// shadows. With a review (replay --review): each ply's class in the overlay, the best move
// as a green ghost where the one played was a mistake or a blunder, and the evaluation
// strip along the timeline (a click goes to its ply). The studio's Play room draws a selected
// piece's reach over the position (api.overlay) and finds what a click meets (api.pick); it keeps
// the set drawn (api.keepSet, kept.js), so a click's frame draws the reach alone over it.

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import { KeptSet } from './kept.js';

function bytesOf(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes.buffer;
}

function frame(pitch) {
  // a square frame one cell wide, a tenth of it thick, lying flat (glTF: Y up)
  const o = pitch / 2 - 0.0005;
  const i = o - 0.09 * pitch;
  const shape = new THREE.Shape([new THREE.Vector2(-o, -o), new THREE.Vector2(o, -o), new THREE.Vector2(o, o),
    new THREE.Vector2(-o, o)]);
  shape.holes.push(new THREE.Path([new THREE.Vector2(-i, -i), new THREE.Vector2(-i, i), new THREE.Vector2(i, i),
    new THREE.Vector2(i, -i)]));
  const geometry = new THREE.ShapeGeometry(shape);
  geometry.rotateX(-Math.PI / 2);
  return geometry;
}

function points(flat) {
  const out = [];
  for (let i = 0; i + 2 < flat.length; i += 3) out.push(new THREE.Vector3(flat[i], flat[i + 1], flat[i + 2]));
  return out;
}

const UP = new THREE.Vector3(0, 1, 0);

function tubes(lines, radius) {
  // polylines as round tubes with a ball at each point, as the window draws them
  const parts = [];
  for (const line of lines) {
    const pts = points(line);
    pts.forEach((a, i) => {
      parts.push(new THREE.SphereGeometry(radius, 12, 8).translate(a.x, a.y, a.z));
      const b = pts[i + 1];
      if (!b || a.distanceTo(b) < 1e-9) return;
      const along = b.clone().sub(a);
      const mid = a.clone().add(b).multiplyScalar(0.5);
      const piece = new THREE.CylinderGeometry(radius, radius, along.length(), 12, 1, true);
      piece.applyQuaternion(new THREE.Quaternion().setFromUnitVectors(UP, along.normalize()));
      parts.push(piece.translate(mid.x, mid.y, mid.z));
    });
  }
  return parts.length ? mergeGeometries(parts) : null;
}

function flats(polygons) {
  // flat polygons (level: each at one height), triangulated in the ground's plane
  const position = [], index = [];
  for (const poly of polygons) {
    const pts = points(poly), base = position.length / 3;
    for (const p of pts) position.push(p.x, p.y, p.z);
    for (const t of THREE.ShapeUtils.triangulateShape(pts.map((p) => new THREE.Vector2(p.x, p.z)), [])) {
      index.push(base + t[0], base + t[1], base + t[2]);
    }
  }
  if (!index.length) return null;
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.Float32BufferAttribute(position, 3));
  geometry.setIndex(index);
  geometry.computeVertexNormals();
  return geometry;
}

function ring(radius, tube, radial) {
  return new THREE.TorusGeometry(radius, tube, radial, 48).rotateX(Math.PI / 2); // flat on the ground
}

function ink(hex) {
  // black or white, whichever reads on the colour (#rrggbb): the window's rule
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  return 0.299 * r + 0.587 * g + 0.114 * b > 0.55 ? '#000000' : '#ffffff';
}

class Drawings {
  // one ply's drawings: meshes in the scene, chips (HTML) over the view
  constructor(scene, layer, style, nodes) {
    this.scene = scene;
    this.layer = layer;
    this.style = style;
    this.nodes = nodes; // the scene's nodes by name: the ghost's piece is a copy of one
    this.group = new THREE.Group();
    this.win = new THREE.Group(); // the winning line: shown once the ply is done
    this.ghostPiece = new THREE.Group(); // its meshes share the piece's geometry: never disposed here
    scene.add(this.group, this.win, this.ghostPiece);
    this.chips = [];
    this.reach = [];
    this.materials = {};
  }

  material(hex, opacity = 1) {
    const key = `${hex}/${opacity}`;
    if (!this.materials[key]) {
      const m = new THREE.MeshLambertMaterial({ color: hex, emissive: hex, emissiveIntensity: 0.45,
        side: THREE.DoubleSide, transparent: opacity < 1, opacity, depthWrite: opacity >= 1,
        polygonOffset: true, polygonOffsetFactor: -1, polygonOffsetUnits: -4 });
      this.materials[key] = m;
    }
    return this.materials[key];
  }

  add(group, geometry, hex, opacity = 1, name = '') {
    if (!geometry) return null;
    const mesh = new THREE.Mesh(geometry, this.material(hex, opacity));
    mesh.name = name;
    group.add(mesh);
    return mesh;
  }

  chip(at, text, hex, side = '', kind = '') {
    const el = document.createElement('span');
    el.className = 'chip';
    el.textContent = text;
    el.style.background = hex;
    el.style.color = ink(hex);
    el.dataset.kind = kind;
    el.dataset.side = side;
    this.layer.appendChild(el);
    const chip = { el, at: new THREE.Vector3(at[0], at[1], at[2]), side, kind, text };
    this.chips.push(chip);
    return chip;
  }

  clear() {
    for (const group of [this.group, this.win]) {
      for (const child of [...group.children]) {
        group.remove(child);
        child.geometry.dispose();
      }
    }
    for (const child of [...this.ghostPiece.children]) {
      this.ghostPiece.remove(child);
      child.traverse((o) => { if (o.isMesh) o.material.dispose(); });
    }
    for (const c of this.chips) c.el.remove();
    this.chips = [];
    this.reach = [];
  }

  set(draw) {
    // a ply's drawings (viewer/overlays.py's Drawing, from the extras; none: the start)
    this.clear();
    if (!draw) return;
    const s = this.style;
    this.add(this.group, tubes(draw.tubes || [], s.tube), s.path, 1, 'path');
    this.add(this.group, flats(draw.band || []), s.mark, s.bandOpacity, 'band');
    this.add(this.group, flats(draw.edges || []), s.mark, 1, 'band-edge');
    this.add(this.win, flats(draw.cells || []), s.mark, s.bandOpacity, 'win-band');
    if ((draw.rings || []).length) {
      this.add(this.win, mergeGeometries(draw.rings.map((c) => ring(s.ring, s.ringTube, 10).translate(c[0], c[1], c[2]))),
        s.mark, 1, 'win');
    }
    (draw.halos || []).forEach((at, i) => {
      if (at) this.add(this.group, ring(s.halo, s.haloTube, 12).translate(at[0], at[1], at[2]), i ? s.mark : s.path, 1,
        `halo-${i}`);
    });
    // the review's best move where the one played was a mistake or a blunder: a green ghost
    this.add(this.group, tubes(draw.ghost || [], s.tube), s.ghost, s.ghostOpacity, 'ghost');
    this.add(this.group, flats(draw.ghostSquare || []), s.ghost, s.ghostOpacity, 'ghost-square');
    const ghost = draw.ghostPiece, piece = ghost && this.nodes[ghost.node];
    if (piece) { // the piece itself, see-through, where the best move would rest it
      const copy = piece.clone();
      copy.traverse((o) => {
        if (!o.isMesh) return;
        o.material = o.material.clone();
        Object.assign(o.material, { transparent: true, opacity: s.ghostPieceOpacity, depthWrite: false });
        o.castShadow = false;
      });
      copy.position.set(ghost.at[0], ghost.at[1], ghost.at[2]);
      copy.scale.set(1, 1, 1);
      copy.visible = true;
      copy.name = 'ghost-piece';
      this.ghostPiece.add(copy);
    }
    const lit = this.add(this.group, flats(draw.lit || []), s.reach, s.reachOpacity, 'reach');
    const stars = this.add(this.group, flats(draw.stars || []), s.mark, 1, 'stars');
    this.reach = [lit, stars].filter(Boolean);
    // the chips, each drawn over those before it: the reach's costs, the path's steps, the sums
    for (const [x, y, z, text] of draw.costs || []) this.reach.push(this.chip([x, y, z], text, s.reach, '', 'cost'));
    for (const [x, y, z, text] of draw.steps || []) this.chip([x, y, z], text, s.path, '', 'step');
    (draw.sums || []).forEach((sum, i) => {
      for (const [x, y, z, text] of sum.chips) this.chip([x, y, z], text, i ? s.mark : s.path, sum.side, 'sum');
    });
  }

  showReach(on) {
    for (const r of this.reach) {
      if (r.el) r.el.hidden = !on;
      else r.visible = on;
    }
  }

  place(camera, width, height) {
    // each chip over its point of the scene; hidden behind the camera
    const v = new THREE.Vector3();
    for (const c of this.chips) {
      v.copy(c.at).project(camera);
      const off = v.z > 1 || v.z < -1;
      c.el.style.visibility = off ? 'hidden' : '';
      const x = (v.x + 1) / 2 * width, y = (1 - v.y) / 2 * height;
      const dx = c.side === 'left' ? '-100%' : c.side === 'right' ? '0%' : '-50%';
      c.el.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(${dx}, -50%)`;
    }
  }
}

export function start() {
  const api = { ready: false, error: null, frames: 0 };
  window.stratstone = api;
  const view = document.getElementById('view');
  const overlay = document.getElementById('overlay');
  const slider = document.getElementById('slider');
  const playButton = document.getElementById('play');
  const reachButton = document.getElementById('reach');
  const strip = document.getElementById('strip');
  const layer = document.createElement('div');
  layer.id = 'chips';
  view.appendChild(layer);

  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  renderer.shadowMap.enabled = true;
  renderer.shadowMap.type = THREE.PCFShadowMap; // three.js 0.187's soft filter (its PCFSoftShadowMap falls back to it)
  // The light stays where it is, so the shadow map is drawn again only when a piece moves (not
  // when the camera turns); and a frame is drawn only when something changed (see tick).
  renderer.shadowMap.autoUpdate = false;
  view.insertBefore(renderer.domElement, layer);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f1ea);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8070, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 2.2);
  sun.position.set(-0.4, 1.0, 0.6);
  sun.castShadow = true;
  sun.shadow.mapSize.set(2048, 2048);
  sun.shadow.bias = -0.0005;
  sun.shadow.normalBias = 0.0005;
  scene.add(sun, sun.target);
  const camera = new THREE.PerspectiveCamera(30, 1, 0.005, 20);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.enableDamping = false;

  let plies = [], count = 0, seconds = 1, mixer = null, action = null, extras = {};
  let ply = 0, time = 0, playing = false, last = null, drawings = null, drawn = -1, reachOn = false, isolated = null;
  let dirty = true; // a frame to draw: nothing is drawn while nothing changes (a still page costs no CPU)
  let over = false; // a frame to draw where only the drawings over the set changed (api.overlay, the R key)
  let keptSet = null; // the set kept drawn between frames (api.keepSet: the Play room's clicks)
  const redraw = () => { dirty = true; };
  controls.addEventListener('change', redraw);
  let moved = false; // the camera turned or zoomed by hand: a new size keeps it where it is
  controls.addEventListener('start', () => { moved = true; });
  // the camera turned by hand: each of its frames drawn whole (as without the set kept, a copy of
  // the set a frame would only add to them), the set kept again once it stops
  // (a click is a start and an end with no change between: nothing drawn for it)
  let turning = false, turned = false;
  controls.addEventListener('start', () => { turning = true; turned = false; });
  controls.addEventListener('change', () => { turned = turning; });
  controls.addEventListener('end', () => { turning = false; dirty = dirty || turned; turned = false; });
  let framedWidth = 0, framedHeight = 0, framed = null; // the view's size the board was framed for, and what
  const nodes = {};
  const pieces = []; // the nodes that are pieces (the scene's but the board)
  const marks = [];
  let root = null; // the glTF's scene shown (api.show replaces a set's)
  const afterDraw = []; // what waits for the next frame drawn (api.show's promises)

  function resize() {
    const w = view.clientWidth, h = view.clientHeight;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
    // the window's chips: 18 px at 1280 x 720; in a narrow view (a phone held upright) as the
    // board's width allows, so the chips do not cover the squares they name
    layer.style.fontSize = `${Math.max(11, Math.round(Math.min(h, w * 9 / 16) / 40))}px`;
    dirty = true;
  }

  function setTime(t) {
    time = Math.max(0, Math.min(t, count * seconds));
    if (action) {
      action.time = time;
      mixer.update(0);
    }
    renderer.shadowMap.needsUpdate = true;
    dirty = true;
  }

  function overlayText() {
    const lines = [];
    if (extras.kind === 'set') {
      const parts = extras.parts || [];
      lines.push(extras.title);
      lines.push(parts.slice(0, 12).join(', ') + (parts.length > 12 ? ` and ${parts.length - 12} more` : ''));
    } else if (ply === 0 && extras.start) {
      lines.push(...extras.start); // the window's caption of the start: the game (or a puzzle's task), who moves first
    } else if (ply === 0) {
      lines.push(`${extras.title}: start, ${count} ${count === 1 ? 'ply' : 'plies'}`);
      lines.push((extras.header.players || []).join(', '));
    } else {
      const p = plies[ply - 1];
      let head = `ply ${p.ply}/${count}   ${p.player}   ${p.move}`;
      if (p.dice) head += `   dice ${p.dice.join('-')}`;
      if (extras.puzzle && ply === count) {
        // a puzzle's position: its task (whose move, win or save, how deep; the answer on request), as the window's
        lines.push(...extras.puzzle, `the position after ${head.replace(/   /g, ' ')}`);
        if (p.key) lines.push(p.key);
        return lines.join('\n');
      }
      lines.push(head);
      if (p.review) lines.push(p.review.caption);
      if (p.words) lines.push(p.words);
      for (const [key, value] of Object.entries(p.facts || {})) {
        if (value && typeof value === 'object' && !Array.isArray(value)) {
          lines.push(`${key.replace(/_/g, ' ')}: ` + Object.entries(value).map(([a, b]) => `${a} ${b}`).join(', '));
        }
      }
      if (p.key) lines.push(p.key); // what each mark drawn means, last as in the window
      if (ply === count && extras.result) lines.push(extras.result);
    }
    return lines.join('\n');
  }

  function showMarks() {
    const squares = ply ? (plies[ply - 1].marks || []) : [];
    marks.forEach((mark, i) => {
      const at = squares[i];
      mark.visible = Boolean(at) && !(i === 1 && squares.length === 1);
      if (mark.visible) mark.position.set(at[0], at[1] + 0.0006, at[2]);
    });
  }

  function showDice() {
    // a game's dice (Sage Stones' three), the set's own die: each turned to the ply's roll
    // face up; before the first roll as printed and see-through (stratstone_cad/viewer/replay/dice.py)
    const dice = extras.dice;
    if (!dice) return;
    const roll = ply ? (plies[ply - 1].dice || null) : null;
    dice.nodes.forEach((name, i) => {
      const node = nodes[name];
      if (!node) return;
      const value = roll && roll[i] !== undefined ? String(roll[i]) : null;
      node.quaternion.fromArray(dice.turns[i][value === null ? 'unrolled' : value]);
      node.traverse((o) => {
        if (!o.isMesh) return;
        if (!o.userData.ownMaterial) { // the die's own: its colour's material may be another part's too
          o.material = o.material.clone();
          o.userData.ownMaterial = true;
        }
        o.material.transparent = value === null;
        o.material.opacity = value === null ? dice.unrolledOpacity : 1;
        o.castShadow = value !== null;
      });
    });
    renderer.shadowMap.needsUpdate = true;
  }

  function showReach(on) {
    reachOn = on;
    reachButton.setAttribute('aria-pressed', String(on));
    if (drawings) drawings.showReach(on);
    over = true;
  }

  function drawStrip() {
    // the review's evaluation strip along the timeline, as the pictures' (viewer/review_strip.py):
    // a column a ply (the start first) lit to the expected score, the line at an even share,
    // a dot over each inaccuracy, mistake and blunder, the ply shown between two blue lines
    const review = extras.review;
    if (!review) return;
    const w = Math.max(1, Math.round(strip.clientWidth * devicePixelRatio));
    const h = Math.max(1, Math.round(strip.clientHeight * devicePixelRatio));
    if (strip.width !== w || strip.height !== h) Object.assign(strip, { width: w, height: h });
    const g = strip.getContext('2d');
    const n = Math.max(1, count), bar = h - 4;
    const edge = (i) => Math.round(i * w / (n + 1));
    g.fillStyle = '#282828';
    g.fillRect(0, 0, w, h);
    review.columns.forEach(([score, colour], i) => {
      const light = Math.round(bar * score);
      g.fillStyle = colour;
      g.fillRect(edge(i), h - 2 - light, Math.max(1, edge(i + 1) - edge(i)), light);
    });
    g.fillStyle = '#787878';
    g.fillRect(0, h - 2 - Math.round(bar * review.even), w, 1);
    const d = Math.max(2, Math.floor(h / 6));
    plies.forEach((p, i) => {
      const colour = p.review && review.classes[p.review.class];
      if (!colour) return;
      g.fillStyle = colour;
      const cx = Math.floor((edge(i + 1) + edge(i + 2)) / 2);
      g.fillRect(Math.max(0, cx - d), 0, 2 * d, 2 * d);
    });
    g.fillStyle = '#3c8cff';
    for (const x of [edge(Math.min(ply, n)), edge(Math.min(ply, n) + 1)]) g.fillRect(Math.max(0, x - 1), 0, 2, h);
  }

  function go(k, animate = false) {
    ply = Math.max(0, Math.min(count, k));
    setTime(animate && ply > 0 ? (ply - 1) * seconds : ply * seconds);
    slider.value = String(ply);
    overlay.textContent = overlayText();
    showMarks();
    showDice();
    if (drawings && drawn !== ply) {
      drawings.set(ply ? plies[ply - 1].draw : null);
      drawings.showReach(reachOn);
      drawn = ply;
    }
    drawStrip();
    const hash = `#ply=${ply}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  function pause() {
    playing = false;
    playButton.textContent = 'play';
  }

  function toggle() {
    if (playing) {
      pause();
      return;
    }
    if (ply >= count) go(0);
    playing = true;
    if (time >= ply * seconds) go(ply + 1, true);
    playButton.textContent = 'pause';
    last = null;
  }

  function fromHash() {
    const m = /^#ply=(\d+)$/.exec(location.hash);
    return m ? Number(m[1]) : null;
  }

  function tick(now) {
    requestAnimationFrame(tick);
    if (playing && last !== null) {
      let t = time + (now - last) / 1000;
      if (t >= ply * seconds) {
        if (ply >= count) {
          pause();
          t = count * seconds;
        } else {
          go(ply + 1, true);
          t = Math.max(t, (ply - 1) * seconds);
        }
      }
      setTime(Math.min(t, ply * seconds));
    }
    last = now;
    if (playing || dirty || over) draw();
  }

  function render(set) {
    // a frame: the whole scene, or with the set kept (api.keepSet) the set drawn again only if
    // it changed (set), then the drawings over it
    if (!keptSet || turned) {
      renderer.render(scene, camera);
      if (keptSet) keptSet.stale = true;
      return;
    }
    if (set) keptSet.stale = true;
    keptSet.render(scene, camera, root);
  }

  function draw() {
    const whole = dirty || playing;
    dirty = false;
    over = false;
    if (drawings) {
      drawings.win.visible = ply > 0 && time >= ply * seconds - 1e-6; // the winning line, once the ply is done
      if (isolated) for (const m of [...drawings.group.children, ...drawings.win.children]) m.visible = isolated.includes(m.name);
      drawings.place(camera, view.clientWidth, view.clientHeight);
    }
    render(whole);
    api.frames += 1;
    while (afterDraw.length) afterDraw.shift()();
  }

  function frameBoard(board) {
    const box = new THREE.Box3().setFromObject(board);
    for (const node of Object.values(nodes)) box.expandByObject(node);
    const centre = box.getCenter(new THREE.Vector3());
    centre.y = box.min.y;
    const size = box.getSize(new THREE.Vector3());
    // the distance at which every corner of the box (the board and the pieces) is in view,
    // across and up and down, the camera 40 degrees above the board looking at its centre:
    // a corner at (x, y) across and up from the centre and z nearer the camera shows inside
    // the frame when the distance is at least z + |x| / tan(half the width's angle) (the
    // same for y); 6 % to spare. A phone held upright (a narrow view) is fitted across.
    const elevation = THREE.MathUtils.degToRad(40);
    const back = new THREE.Vector3(0, Math.sin(elevation), Math.cos(elevation)); // from the centre to the camera
    const up = new THREE.Vector3(0, Math.cos(elevation), -Math.sin(elevation));
    const tanV = Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2), tanH = tanV * camera.aspect;
    const corners = [];
    for (const x of [box.min.x, box.max.x]) for (const y of [box.min.y, box.max.y]) for (const z of [box.min.z, box.max.z]) {
      corners.push(new THREE.Vector3(x, y, z));
    }
    let distance = 0;
    for (let pass = 0; pass < 3; pass += 1) { // then the box centred up and down, and fitted again
      distance = 0;
      for (const c of corners) {
        const v = c.clone().sub(centre);
        const near = v.dot(back);
        distance = Math.max(distance, near + Math.abs(v.x) / (0.94 * tanH), near + Math.abs(v.dot(up)) / (0.94 * tanV));
      }
      const ups = corners.map((c) => { const v = c.clone().sub(centre); return v.dot(up) / (distance - v.dot(back)); });
      centre.addScaledVector(up, 0.5 * (Math.max(...ups) + Math.min(...ups)) * distance);
    }
    camera.position.copy(centre).addScaledVector(back, distance);
    api.framed = [box.min.toArray(), box.max.toArray()]; // what the camera was fitted to (the tests check it)
    controls.target.copy(centre);
    controls.update();
    framedWidth = view.clientWidth;
    framedHeight = view.clientHeight;
    // the key light's shadows over the whole table: its camera round the board and the pieces
    const radius = 0.5 * Math.hypot(size.x, size.y, size.z);
    const middle = box.getCenter(new THREE.Vector3());
    sun.target.position.copy(middle);
    sun.position.copy(middle).add(new THREE.Vector3(-0.4, 1.0, 0.6).normalize().multiplyScalar(3 * radius));
    Object.assign(sun.shadow.camera, { left: -radius, right: radius, top: radius, bottom: -radius, near: radius,
      far: 5 * radius });
    sun.shadow.camera.updateProjectionMatrix();
    renderer.shadowMap.needsUpdate = true;
  }

  api.go = (k, animate = false) => go(k, animate);
  api.isolate = (names) => {
    // a test's view: only the drawings named (their chips hidden), no piece; null: all again
    isolated = names;
    dirty = true;
    renderer.shadowMap.needsUpdate = true; // the pieces hidden or shown again
    for (const piece of pieces) piece.visible = !names;
    if (drawings) {
      for (const c of drawings.chips) c.el.style.display = names ? 'none' : '';
      if (!names) {
        for (const m of [...drawings.group.children, ...drawings.win.children]) m.visible = true;
        drawings.showReach(reachOn);
      }
    }
  };
  api.redraw = redraw; // a test's wish for a frame drawn now (api.frames counts them)
  api.ply = () => ply;
  api.playing = () => playing;
  api.drawMs = (n, moving = true, set = true) => {
    // the time of n frames drawn and finished (a benchmark's question: the GL's own cost), of play
    // (moving: the shadow map drawn again) or of the camera turning (the map kept); with the set
    // kept (api.keepSet), of a click's frame (set false: the drawings over the set kept). Each
    // frame is waited for by reading a pixel back: Chromium's gl.finish() returns before its GPU
    // process has drawn, and frames left queued there would delay whatever the browser does next.
    const gl = renderer.getContext();
    const pixel = new Uint8Array(4);
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      renderer.shadowMap.needsUpdate = moving;
      render(set);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    }
    return (performance.now() - start) / n;
  };
  api.time = () => time;
  api.pixels = () => {
    // a test's screenshot of the canvas alone (faster than the browser's): where the canvas is,
    // its size and the last frame drawn, RGB rows from the top, base64
    const gl = renderer.getContext();
    const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    const rgba = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
    let text = '';
    for (let row = h - 1; row >= 0; row--) {
      for (let i = row * w * 4; i < (row + 1) * w * 4; i += 4) text += String.fromCharCode(rgba[i], rgba[i + 1], rgba[i + 2]);
    }
    const rect = renderer.domElement.getBoundingClientRect();
    return [Math.round(rect.left), Math.round(rect.top), w, h, btoa(text)];
  };
  api.reach = (on) => { if (on !== undefined) showReach(Boolean(on)); return reachOn; };
  api.chips = () => (drawings ? drawings.chips : []).filter((c) => !c.el.hidden).map((c) => {
    const r = c.el.getBoundingClientRect();
    return { text: c.text, kind: c.kind, side: c.side, left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
  api.drawn = () => (drawings ? [...drawings.group.children, ...drawings.win.children] : [])
    .filter((m) => m.visible && m.parent.visible).map((m) => m.name);
  api.project = (name) => {
    // the screen point (CSS pixels from the canvas's top left) of a node's mesh centre
    const node = nodes[name];
    if (!node || !node.visible || node.scale.x === 0) return null;
    const centre = new THREE.Box3().setFromObject(node).getCenter(new THREE.Vector3()).project(camera);
    const rect = renderer.domElement.getBoundingClientRect();
    return [rect.left + (centre.x + 1) / 2 * rect.width, rect.top + (1 - centre.y) / 2 * rect.height];
  };

  api.projectPoint = (p) => {
    // the screen point (CSS pixels) of a point of the scene (glTF's metres, Y up)
    const v = new THREE.Vector3(p[0], p[1], p[2]).project(camera);
    const rect = renderer.domElement.getBoundingClientRect();
    return [rect.left + (v.x + 1) / 2 * rect.width, rect.top + (1 - v.y) / 2 * rect.height];
  };

  api.overlay = (draw) => {
    // the studio's Play room: a selection's drawings (its reach lit with the costs, in the extras'
    // form) over the position shown, in place of the ply's own; null: the ply's own again
    if (!drawings) return;
    drawings.set(draw || (ply ? plies[ply - 1].draw : null));
    drawings.showReach(draw ? true : reachOn);
    drawn = draw ? -1 : ply;
    over = true;
  };
  api.keepSet = (on) => {
    // the set (the board and the pieces) drawn once and kept while only the drawings over it
    // change (kept.js): a click's frame then costs the drawings, not the whole set again
    if (keptSet) keptSet.dispose();
    keptSet = on ? new KeptSet(renderer) : null;
    dirty = true;
    if (on && drawings) {
      // the reach's materials made and compiled now, not at the first click (a shader program
      // takes 0.3-0.5 s to compile in software GL)
      const s = drawings.style, warm = new THREE.Group();
      for (const [hex, opacity] of [[s.reach, s.reachOpacity], [s.mark, 1]]) {
        warm.add(new THREE.Mesh(new THREE.PlaneGeometry(1e-6, 1e-6), drawings.material(hex, opacity)));
      }
      scene.add(warm);
      renderer.compile(scene, camera);
      scene.remove(warm);
      for (const m of warm.children) m.geometry.dispose();
    }
  };
  api.setDrawn = () => (keptSet ? keptSet.drawn : null); // the times the kept set was drawn
  const raycaster = new THREE.Raycaster();
  api.pick = (x, y) => {
    // what a click at (x, y) (CSS pixels of this page) meets first: the board or a piece shown, as
    // {node: its name, point: where the ray meets it, centre: the node's middle} (metres, Y up); null: nothing
    const rect = renderer.domElement.getBoundingClientRect();
    raycaster.setFromCamera(new THREE.Vector2((x - rect.left) / rect.width * 2 - 1,
      1 - (y - rect.top) / rect.height * 2), camera);
    root.updateMatrixWorld(true);
    const shown = (o) => { for (; o; o = o.parent) if (!o.visible || o.scale.x === 0) return false; return true; };
    for (const hit of raycaster.intersectObject(root, true)) {
      if (!shown(hit.object)) continue;
      let node = hit.object;
      while (node.parent && node.parent !== root) node = node.parent;
      const centre = new THREE.Box3().setFromObject(node).getCenter(new THREE.Vector3());
      return { node: node.name, point: hit.point.toArray(), centre: centre.toArray() };
    }
    return null;
  };

  // the view's size changes with the overlay's lines: drawn at once at the new size (not a
  // frame later, stretched), the chips placed for it
  new ResizeObserver(() => {
    resize();
    if (!api.ready) return;
    // a new width or a much taller or lower view (a phone turned, a window resized; not a
    // caption's lines, a few per cent): the board framed again for it, unless the camera was
    // moved by hand
    const taller = Math.abs(view.clientHeight - framedHeight) > 0.15 * framedHeight;
    if (!moved && framed && (Math.abs(view.clientWidth - framedWidth) > 1 || taller)) frameBoard(framed);
    draw();
  }).observe(view);
  // a phone may take the GL context away (the browser in the background); three.js restores it
  renderer.domElement.addEventListener('webglcontextrestored', () => {
    renderer.shadowMap.needsUpdate = true;
    dirty = true;
  });
  window.addEventListener('hashchange', () => { const k = fromHash(); if (k !== null && k !== ply) go(k); });
  window.addEventListener('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return; // the browser's (Ctrl+R reloads, Alt+Left goes back)
    const keys = { ArrowRight: () => go(ply + 1), ArrowLeft: () => go(ply - 1), Home: () => go(0),
      End: () => go(count), ' ': toggle, r: () => showReach(!reachOn), R: () => showReach(!reachOn) };
    const act = keys[e.key];
    if (!act) return;
    e.preventDefault(); // the slider, focused, would move too
    if (e.key !== ' ' && e.key.toLowerCase() !== 'r' && playing) pause();
    act();
  });
  slider.addEventListener('input', () => {
    if (playing) pause();
    go(Number(slider.value));
  });
  document.getElementById('prev').addEventListener('click', () => go(ply - 1));
  document.getElementById('next').addEventListener('click', () => go(ply + 1));
  playButton.addEventListener('click', toggle);
  reachButton.addEventListener('click', () => showReach(!reachOn));

  function adopt(gltf) {
    // a parsed glTF made the scene's: its nodes named, its pieces casting shadows
    root = gltf.scene;
    scene.add(root);
    root.traverse((o) => { if (o.name) nodes[o.name] = o; });
    pieces.push(...root.children.filter((o) => o.name !== 'board'));
    root.traverse((o) => {
      if (!o.isMesh) return;
      o.receiveShadow = true;
      o.castShadow = !(o.name === 'board' || (o.parent && o.parent.name === 'board'));
    });
  }

  api.show = (buffer) => new Promise((resolve, reject) => {
    // a set's scene replaced by another set's (the studio's part after a change), without a
    // new page: the camera kept where a hand moved it, else the new scene framed; resolved
    // once a frame of it is drawn. The bytes are copied into this page's own ArrayBuffer:
    // one from the parent page is not this window's ArrayBuffer, and the loader would take
    // it for JSON text.
    new GLTFLoader().parse(new Uint8Array(buffer).slice().buffer, '', (gltf) => {
      const next = gltf.scene.userData || {};
      if (extras.kind !== 'set' || next.kind !== 'set') {
        reject(new Error('only a set replaces a set'));
        return;
      }
      const old = root;
      scene.remove(old);
      for (const name of Object.keys(nodes)) delete nodes[name];
      pieces.length = 0;
      extras = next;
      extras.title = extras.title || 'replay';
      adopt(gltf);
      const kept = moved ? [camera.position.clone(), controls.target.clone()] : null;
      framed = nodes.board || root;
      frameBoard(framed); // the light's shadows fitted to the new scene, and the camera unless moved
      if (kept) {
        camera.position.copy(kept[0]);
        controls.target.copy(kept[1]);
        controls.update();
      }
      go(0);
      afterDraw.push(() => {
        // the old scene's buffers freed once the new one is drawn: its shader programs,
        // still in use then, serve the new materials (freed first, each would be compiled
        // again: 0.2 s a frame in software GL)
        old.traverse((o) => {
          if (!o.isMesh) return;
          o.geometry.dispose();
          for (const m of [].concat(o.material)) m.dispose();
        });
        resolve();
      });
      dirty = true;
    }, reject);
  });

  const data = bytesOf(document.getElementById('glb').textContent.trim());
  new GLTFLoader().parse(data, '', (gltf) => {
    extras = gltf.scene.userData || {};
    extras.title = extras.title || 'replay'; // three.js makes names safe for its bindings: not the title
    plies = extras.plies || [];
    count = plies.length;
    seconds = extras.secondsPerPly || 1;
    adopt(gltf);
    if (extras.overlay) {
      drawings = new Drawings(scene, layer, extras.overlay, nodes);
      reachOn = Boolean(extras.overlay.showReach);
    }
    const anyReach = plies.some((p) => p.draw && (p.draw.lit || p.draw.stars || p.draw.costs));
    reachButton.style.display = anyReach ? '' : 'none';
    document.getElementById('reach-help').style.display = anyReach ? '' : 'none';
    showReach(reachOn);
    if (extras.levels) {
      const legend = document.createElement('div');
      legend.id = 'legend';
      legend.appendChild(Object.assign(document.createElement('div'), { textContent: 'level' }));
      for (const [level, colour] of extras.levels) {
        const row = document.createElement('div');
        row.className = 'level';
        const swatch = Object.assign(document.createElement('span'), { className: 'swatch' });
        swatch.style.background = colour;
        row.append(swatch, String(level));
        legend.appendChild(row);
      }
      view.appendChild(legend);
    }
    if (gltf.animations.length) {
      mixer = new THREE.AnimationMixer(gltf.scene);
      action = mixer.clipAction(gltf.animations[0]);
      action.setLoop(THREE.LoopOnce, 1);
      action.clampWhenFinished = true;
      action.play();
      action.paused = true;
    }
    const pitch = extras.pitch || 0.03;
    for (const colour of [0x2f6fdf, 0xf08c00]) {
      const mark = new THREE.Mesh(frame(pitch), new THREE.MeshBasicMaterial({ color: colour, side: THREE.DoubleSide }));
      mark.visible = false;
      scene.add(mark);
      marks.push(mark);
    }
    slider.max = String(count);
    if (extras.review) {
      strip.hidden = false;
      // a click or a tap on the strip goes to its ply (the start is the first column)
      strip.addEventListener('click', (e) => {
        const rect = strip.getBoundingClientRect();
        if (playing) pause();
        go(Math.floor((e.clientX - rect.left) / rect.width * (count + 1)));
      });
      new ResizeObserver(drawStrip).observe(strip);
    }
    if (extras.kind === 'set') document.getElementById('bar').style.display = 'none'; // nothing to step through
    resize();
    framed = nodes.board || root;
    frameBoard(framed);
    document.title = `${extras.title}: replay`;
    const k = fromHash();
    go(k === null ? (extras.puzzle ? count : 0) : k); // a puzzle opens at its position
    api.ready = true;
    requestAnimationFrame(tick);
  }, (error) => {
    api.error = String(error);
    overlay.textContent = `This replay could not be read: ${error}`;
  });
}
