// The set kept drawn: a frame in two passes for a scene where only the drawings over it change
// (the studio's Play room: a click lights a piece's reach over a still position). The set's solid
// meshes (the board and the pieces: every opaque mesh under the glTF's root) are drawn with the
// lights and the shadows into a texture, with their depth, only when they change (the camera
// turned, a piece moved, the view's size); every frame copies that texture and its depth onto the
// canvas and draws the rest (the drawings, the marks, the see-through meshes) over it, tested
// against the set's depth as in one pass. In software GL (no GPU) a frame of the whole set costs
// 0.2-0.35 s; a click's (the copy and the drawings) about a tenth of it (docs/benchmarks.md).

import * as THREE from 'three';

const COPY_VERTEX = `
void main() { gl_Position = vec4(position.xy, 0.0, 1.0); }`;

// the depth to test the rest against, worked out once the set is drawn: the texture's depth is
// one sample's of each pixel, where the canvas tests each of its samples, so it is put a pixel's
// step further (the smaller step to a neighbour, across and up: a piece's outline keeps its own
// depth), or the drawings lying on the board (lifted a little) would fight with its bevels;
// packed in RGBA (three.js's packing), which every WebGL can draw into
const DEPTH_FRAGMENT = `
#include <packing>
uniform sampler2D depth;
float at(ivec2 p, ivec2 last) { return texelFetch(depth, clamp(p, ivec2(0), last), 0).r; }
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy), last = textureSize(depth, 0) - 1;
  float d = at(p, last);
  float across = min(abs(at(p + ivec2(1, 0), last) - d), abs(d - at(p - ivec2(1, 0), last)));
  float up = min(abs(at(p + ivec2(0, 1), last) - d), abs(d - at(p - ivec2(0, 1), last)));
  gl_FragColor = packDepthToRGBA(min(1.0, d + max(across, up)));
}`;

// texel for texel (no filtering): the colour stored as sRGB (the texture decodes it to linear)
// written as the canvas is (the renderer's output colour space), and that depth
const COPY_FRAGMENT = `
#include <packing>
uniform sampler2D colour;
uniform sampler2D depth;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  gl_FragColor = texelFetch(colour, p, 0);
  gl_FragDepth = unpackRGBAToDepth(texelFetch(depth, p, 0));
  #include <colorspace_fragment>
}`;

function pass(material) {
  // a scene of one quad over the whole view, drawn with material
  const quad = new THREE.Mesh(new THREE.PlaneGeometry(2, 2), material);
  quad.frustumCulled = false;
  const scene = new THREE.Scene();
  scene.add(quad);
  return scene;
}

export class KeptSet {
  constructor(renderer) {
    this.renderer = renderer;
    this.target = null;
    this.stale = true;
    this.drawn = 0; // the times the set was drawn (a test's question: a click's frame does not)
    this.copy = new THREE.ShaderMaterial({
      uniforms: { colour: { value: null }, depth: { value: null } },
      vertexShader: COPY_VERTEX, fragmentShader: COPY_FRAGMENT,
      depthTest: true, depthWrite: true, depthFunc: THREE.AlwaysDepth, // every pixel's depth written
    });
    this.copyScene = pass(this.copy);
    this.depth = new THREE.ShaderMaterial({
      uniforms: { depth: { value: null } }, vertexShader: COPY_VERTEX, fragmentShader: DEPTH_FRAGMENT,
      depthTest: false, depthWrite: false,
    });
    this.depthScene = pass(this.depth);
    this.depthTarget = null;
    this.size = new THREE.Vector2();
  }

  fit() {
    // a texture the size of the canvas's drawing buffer, multisampled as the canvas is
    const size = this.renderer.getDrawingBufferSize(this.size);
    if (this.target && this.target.width === size.x && this.target.height === size.y) return;
    this.dispose();
    this.target = new THREE.WebGLRenderTarget(size.x, size.y, {
      samples: 4, colorSpace: THREE.SRGBColorSpace, depthTexture: new THREE.DepthTexture(size.x, size.y, THREE.FloatType),
    });
    this.depthTarget = new THREE.WebGLRenderTarget(size.x, size.y, { depthBuffer: false });
    this.copy.uniforms.colour.value = this.target.texture;
    this.copy.uniforms.depth.value = this.depthTarget.texture;
    this.depth.uniforms.depth.value = this.target.depthTexture;
  }

  dispose() {
    for (const t of [this.target, this.depthTarget]) if (t) t.dispose();
    this.target = this.depthTarget = null;
    this.stale = true;
  }

  render(scene, camera, root) {
    // a frame: the set drawn again if it changed (this.stale), then copied, the rest over it
    this.fit();
    const solid = new Set(), rest = new Set();
    scene.traverseVisible((o) => {
      if (!o.isMesh) return;
      const materials = [].concat(o.material);
      const set = root && under(o, root) && !materials.some((m) => m.transparent);
      for (const m of materials) if (m.visible) (set ? solid : rest).add(m);
    });
    for (const m of solid) rest.delete(m);
    const r = this.renderer;
    if (this.stale) {
      shown(rest, false);
      r.setRenderTarget(this.target);
      r.render(scene, camera);
      r.setRenderTarget(this.depthTarget);
      r.render(this.depthScene, camera);
      r.setRenderTarget(null);
      shown(rest, true);
      this.stale = false;
      this.drawn += 1;
    }
    const background = scene.background, autoClear = r.autoClear;
    shown(solid, false);
    scene.background = null;
    r.autoClear = false;
    r.render(this.copyScene, camera);
    r.render(scene, camera);
    r.autoClear = autoClear;
    scene.background = background;
    shown(solid, true);
  }
}

function under(o, root) {
  for (; o; o = o.parent) if (o === root) return true;
  return false;
}

function shown(materials, on) {
  for (const m of materials) m.visible = on;
}
