// The replay page's player: the game's animated glTF (inlined in the page as base64),
// played with three.js. Bundled with three.js into stratstone_cad/viewer/web/player.min.js
// by tools/web/build.sh; the page (stratstone_cad/viewer/web.py) calls StratstonePlayer.start().
//
// The same controls as the replay window: Left/Right a ply, Home/End the start and the
// end, Space play/pause; a slider; orbit, pan and zoom by mouse and touch (OrbitControls);
// buttons for a phone. The overlay says the ply, the player, the move, the dice, the ply
// in words, the facts after it and, at the end, the result. The URL fragment names the
// ply shown (#ply=12) and follows it, so a link opens at a position. Nothing is fetched:
// the glTF is decoded from the page and parsed in memory (GLTFLoader.parse).

import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

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

export function start() {
  const api = { ready: false, error: null, frames: 0 };
  window.stratstone = api;
  const view = document.getElementById('view');
  const overlay = document.getElementById('overlay');
  const slider = document.getElementById('slider');
  const playButton = document.getElementById('play');

  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  view.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f1ea);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x8a8070, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 2.2);
  sun.position.set(-0.4, 1.0, 0.6);
  scene.add(sun);
  const camera = new THREE.PerspectiveCamera(30, 1, 0.005, 20);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.enableDamping = false;

  let plies = [], count = 0, seconds = 1, mixer = null, action = null, extras = {};
  let ply = 0, time = 0, playing = false, last = null;
  const nodes = {};
  const marks = [];

  function resize() {
    const w = view.clientWidth, h = view.clientHeight;
    renderer.setSize(w, h, false);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
  }

  function setTime(t) {
    time = Math.max(0, Math.min(t, count * seconds));
    if (action) {
      action.time = time;
      mixer.update(0);
    }
  }

  function overlayText() {
    const lines = [];
    if (extras.kind === 'set') {
      const parts = extras.parts || [];
      lines.push(extras.title);
      lines.push(parts.slice(0, 12).join(', ') + (parts.length > 12 ? ` and ${parts.length - 12} more` : ''));
    } else if (ply === 0) {
      lines.push(`${extras.title}: start, ${count} ${count === 1 ? 'ply' : 'plies'}`);
      lines.push((extras.header.players || []).join(', '));
    } else {
      const p = plies[ply - 1];
      let head = `ply ${p.ply}/${count}   ${p.player}   ${p.move}`;
      if (p.dice) head += `   dice ${p.dice.join('-')}`;
      lines.push(head);
      if (p.words) lines.push(p.words);
      for (const [key, value] of Object.entries(p.facts || {})) {
        if (value && typeof value === 'object' && !Array.isArray(value)) {
          lines.push(`${key.replace(/_/g, ' ')}: ` + Object.entries(value).map(([a, b]) => `${a} ${b}`).join(', '));
        }
      }
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

  function go(k, animate = false) {
    ply = Math.max(0, Math.min(count, k));
    setTime(animate && ply > 0 ? (ply - 1) * seconds : ply * seconds);
    slider.value = String(ply);
    overlay.textContent = overlayText();
    showMarks();
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
    renderer.render(scene, camera);
    api.frames += 1;
  }

  function frameBoard(board) {
    const box = new THREE.Box3().setFromObject(board);
    for (const node of Object.values(nodes)) box.expandByObject(node);
    const centre = box.getCenter(new THREE.Vector3());
    centre.y = box.min.y;
    const size = box.getSize(new THREE.Vector3());
    const span = Math.max(size.x, size.z);
    const elevation = THREE.MathUtils.degToRad(40);
    const fit = span / (2 * Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2)) / Math.min(camera.aspect, 1.35);
    const distance = 1.05 * fit + size.y;
    camera.position.set(centre.x, centre.y + distance * Math.sin(elevation), centre.z + distance * Math.cos(elevation));
    controls.target.copy(centre);
    controls.update();
  }

  api.go = (k) => go(k);
  api.ply = () => ply;
  api.playing = () => playing;
  api.drawMs = (n) => {
    // the time of n frames drawn and finished (a benchmark's question: the GL's own cost)
    const gl = renderer.getContext();
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      renderer.render(scene, camera);
      gl.finish();
    }
    return (performance.now() - start) / n;
  };
  api.time = () => time;
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

  new ResizeObserver(() => { resize(); renderer.render(scene, camera); }).observe(view); // the overlay's lines vary
  window.addEventListener('hashchange', () => { const k = fromHash(); if (k !== null && k !== ply) go(k); });
  window.addEventListener('keydown', (e) => {
    const keys = { ArrowRight: () => go(ply + 1), ArrowLeft: () => go(ply - 1), Home: () => go(0),
      End: () => go(count), ' ': toggle };
    const act = keys[e.key];
    if (!act) return;
    e.preventDefault(); // the slider, focused, would move too
    if (e.key !== ' ' && playing) pause();
    act();
  });
  slider.addEventListener('input', () => {
    if (playing) pause();
    go(Number(slider.value));
  });
  document.getElementById('prev').addEventListener('click', () => go(ply - 1));
  document.getElementById('next').addEventListener('click', () => go(ply + 1));
  playButton.addEventListener('click', toggle);

  const data = bytesOf(document.getElementById('glb').textContent.trim());
  new GLTFLoader().parse(data, '', (gltf) => {
    extras = gltf.scene.userData || {};
    extras.title = extras.title || 'replay'; // three.js makes names safe for its bindings: not the title
    plies = extras.plies || [];
    count = plies.length;
    seconds = extras.secondsPerPly || 1;
    scene.add(gltf.scene);
    gltf.scene.traverse((o) => { if (o.name) nodes[o.name] = o; });
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
    if (extras.kind === 'set') document.getElementById('bar').style.display = 'none'; // nothing to step through
    resize();
    frameBoard(nodes.board || gltf.scene);
    document.title = `${extras.title}: replay`;
    const k = fromHash();
    go(k === null ? 0 : k);
    api.ready = true;
    requestAnimationFrame(tick);
  }, (error) => {
    api.error = String(error);
    overlay.textContent = `This replay could not be read: ${error}`;
  });
}
