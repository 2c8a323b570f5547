// The studio's page: a control for each parameter, made from its declaration (/api/form),
// the settings in the URL (set=NAME=VALUE, as `build --set` takes them), the part made by
// the server and shown in the replay page's player (an iframe, loaded once: a change hands
// the player the part's new glTF), its facts and downloads.
'use strict';
const state = { form: null, values: {}, preset: {}, game: '', part: '', printer: '', client: Math.random().toString(36).slice(2),
                part_ctl: null, plate_ctl: null, plate_timer: null, timer: null,
                // opened from another site's page (the server says so): nothing is built until the person asks
                held: document.body.dataset.held === 'another-site' };
window.studio = { previews: 0, shownAt: 0, error: '', ready: false };
const $ = (id) => document.getElementById(id);
const text = (v) => Array.isArray(v) ? v.join(',') : String(v);
const WHOLE_SET = 'the whole set';  // the part list's first entry: every part as it stands on the table
const TYPING_PAUSE_MS = 40;  // a change asked for once typing or a slider pauses this long
const PLATE_PAUSE_MS = 1000;  // the settings at rest this long: the plate's figures asked for
const PLATE_PROGRESS_MS = 1000;  // how often a plate's progress is asked for while it is built

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function query(extra = {}) {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(state.values)) {
    if (text(value) !== text(state.preset[name])) q.append('set', `${name}=${text(value)}`);
  }
  if (state.printer) q.set('printer', state.printer);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return q;
}

function writeUrl() {
  const q = query({ game: state.game, part: state.part });
  history.replaceState(null, '', '/?' + q.toString());
  const sets = q.getAll('set').map((s) => ` --set ${s}`).join('');
  // the box shows the command once the studio has accepted its settings (showCommand)
  state.command = `stratstone-cad build ${state.game}${state.printer ? ' --printer ' + state.printer : ''}${sets}`;
}

function showCommand(refusal) {
  // accepted: the settings' command; refused: the last accepted one stays, marked as such
  if (!refusal) {
    $('command').textContent = state.command;
    $('command-note').textContent = '';
    return;
  }
  $('command-note').textContent = `not applied: ${refusal} (the command above is the last one accepted)`;
}

function setValue(name, value) {
  state.values[name] = value;
  const field = document.querySelector(`.field[data-name="${name}"]`);
  if (field) field.classList.toggle('changed', text(value) !== text(state.preset[name]));
  clearTimeout(state.timer);
  state.timer = setTimeout(refresh, TYPING_PAUSE_MS);
}

function numberControl(f, row) {
  const num = el('input', { type: 'number', step: f.kind === 'int' ? '1' : 'any', 'aria-label': f.name });
  num.value = text(state.values[f.name]);
  if (f.lo !== null && f.hi !== null) {
    const step = f.kind === 'int' ? 1 : Math.max((f.hi - f.lo) / 500, 0.001);
    const range = el('input', { type: 'range', min: f.lo, max: f.hi, step, 'aria-label': f.name + ' slider' });
    range.value = num.value;
    range.addEventListener('input', () => { num.value = range.value; setValue(f.name, range.value); });
    num.addEventListener('input', () => { range.value = num.value; setValue(f.name, num.value); });
    row.append(range);
  } else {
    num.addEventListener('input', () => setValue(f.name, num.value));
  }
  row.append(num, el('span', { text: f.unit }));
  return () => { num.value = text(state.values[f.name]); const r = row.querySelector('input[type=range]'); if (r) r.value = num.value; };
}

function choiceSelect(choices, value, label, onChange) {
  const s = el('select', { 'aria-label': label });
  for (const c of choices) s.append(el('option', { value: c, text: c }));
  s.value = value;
  s.addEventListener('change', () => onChange(s.value));
  return s;
}

function control(f, row) {
  if (f.kind === 'bool') {
    const box = el('input', { type: 'checkbox', role: 'switch', 'aria-label': f.name });
    box.checked = text(state.values[f.name]) === 'true';
    box.addEventListener('change', () => setValue(f.name, box.checked ? 'true' : 'false'));
    row.append(box);
    return () => { box.checked = text(state.values[f.name]) === 'true'; };
  }
  if (f.kind === 'str' && f.choices) {
    const s = choiceSelect(f.choices, text(state.values[f.name]), f.name, (v) => setValue(f.name, v));
    row.append(s);
    return () => { s.value = text(state.values[f.name]); };
  }
  if (f.kind === 'list' && f.choices) {
    const items = String(text(state.values[f.name])).split(',');
    const selects = items.map((v, i) => choiceSelect(f.choices, v, `${f.name} ${i + 1}`, () =>
      setValue(f.name, selects.map((s) => s.value).join(','))));
    row.append(...selects);
    return () => { String(text(state.values[f.name])).split(',').forEach((v, i) => { if (selects[i]) selects[i].value = v; }); };
  }
  if (f.kind === 'int' || f.kind === 'float') {
    const redraw = numberControl(f, row);
    if (f.map_seed) { // the seed of the game's map (its facts' MAP_PARAMETERS): a new map in a click
      const again = el('button', { type: 'button', text: 'new terrain' });
      again.addEventListener('click', () => { setValue(f.name, String(Math.floor(Math.random() * 1e6))); redraw(); });
      row.append(again);
    }
    return redraw;
  }
  const input = el('input', { type: 'text', 'aria-label': f.name });
  input.value = text(state.values[f.name]);
  input.addEventListener('change', () => setValue(f.name, input.value));
  row.append(input);
  return () => { input.value = text(state.values[f.name]); };
}

function buildControls() {
  const box = $('controls');
  box.replaceChildren();
  for (const section of state.form.sections) {
    const set = el('fieldset', { 'data-section': section.name }, el('legend', { text: section.name }));
    for (const f of section.fields) {
      const row = el('div', { class: 'row' });
      const field = el('div', { class: 'field', 'data-name': f.name }, el('code', { text: f.name }), row,
                       el('div', { class: 'help', text: `${f.help} (${f.expected})` }), el('div', { class: 'error' }));
      const redraw = control(f, row);
      const reset = el('button', { type: 'button', class: 'reset', title: 'back to the preset\'s value', text: 'reset' });
      reset.addEventListener('click', () => { setValue(f.name, state.preset[f.name]); redraw(); });
      row.append(reset);
      field.classList.toggle('changed', text(state.values[f.name]) !== text(state.preset[f.name]));
      set.append(field);
    }
    box.append(set);
  }
}

function showError(message) {
  window.studio.error = message;
  document.querySelectorAll('.field .error').forEach((e) => { e.textContent = ''; });
  $('error').textContent = '';
  if (!message) return;
  const name = (message.match(/^([a-z0-9_.-]+) =/) || [])[1];
  const target = name && document.querySelector(`.field[data-name="${name}"] .error`);
  (target || $('error')).textContent = message;
  if (target) target.scrollIntoView({ block: 'nearest' });
}

function showMap(map) {
  const box = $('map');
  box.replaceChildren();
  if (!map) return;
  const table = el('table', { 'aria-label': 'the map: each square\'s level' });
  for (const rank of [...map].reverse()) {
    const tr = el('tr');
    for (const level of rank) {
      const shade = 235 - level * 30;
      tr.append(el('td', { text: String(level), style: `background: rgb(${shade},${shade - 10},${shade - 30})` }));
    }
    table.append(tr);
  }
  box.append(el('div', { text: 'the map (levels, rank 1 at the bottom)' }), table);
}

function showFacts(f) {
  const size = f.bbox_mm.size.map((x) => x.toFixed(1)).join(' × ');
  // the solid's own figures: its volume, and that volume in PLA (1.24 g/cm³), which is not what
  // it costs to print (walls and infill, not solid): the slicer's estimate, below, is
  const rows = [['size', `${size} mm`], ['solid volume', `${(f.volume_mm3 / 1000).toFixed(2)} cm³`],
                ['solid as PLA', `${f.mass_pla_g} g (its volume × 1.24 g/cm³; not the print's cost)`],
                ['triangles', String(f.triangles)],
                ['layers', f.profile ? `${f.profile.name}: ${f.profile.layer_height_mm} mm (first ${f.profile.first_layer_height_mm})` : ''],
                // the plate's file is named by the build once it has laid the job out (a board cut
                // in tiles goes on stem-plate-i-of-n.3mf): its link comes with /api/plate's answer
                ['plate', f.plate_name ? `print job ${f.plate_name}: its plate is being laid out...` : 'none']];
  $('facts').replaceChildren(...rows.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
  const q = query().toString();
  const stem = state.part.replace(/\.stl$/, '');
  const links = [[`${state.part}`, `STL`], [`${stem}.step`, 'STEP']];
  $('downloads').replaceChildren(el('div', { text: 'download' }),
    ...links.map(([file, what]) => el('a', { href: `/download/${state.game}/${file}?${q}`, download: file, text: `${what}: ${file}` })),
    el('a', { href: `/download/${state.game}.zip?${q}`, download: `${state.game}.zip`, text: `the whole set (zip, params.toml)` }));
}

function showPlate(plate) {
  // the plate the build writes for this part: its facts row and its download link
  const file = plate.split('/')[1];
  const dd = [...$('facts').querySelectorAll('dt')].find((dt) => dt.textContent === 'plate');
  if (dd) dd.nextElementSibling.textContent = file;
  const old = $('plate-link');
  if (old) old.remove();
  const link = el('a', { id: 'plate-link', href: `/download/${state.game}/${file}?${query()}`, download: file,
                         text: `plate (3MF): ${file}` });
  const links = $('downloads').querySelectorAll('a');
  links[links.length - 1].before(link);
}

function duration(seconds) {
  const minutes = Math.round(seconds / 60);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function plateText(p) {
  // the print's cost: PrusaSlicer's estimate for the plate (all the parts it holds), when it has one
  if (!p || !p.plate) return '';
  const name = p.plate.split('/')[1];
  const pr = p.print;
  if (!pr) return `plate ${name}: no slicer installed, so no estimate of the print's cost`;
  const holds = p.copies > 1 ? `the plate's ${p.copies} parts` : 'the plate';
  return `print cost (PrusaSlicer's estimate for ${holds}, ${name}): ${pr.filament_g} g of PLA (${pr.filament_m} m), `
    + `${duration(pr.time_s)}, ${pr.layers} layers`;
}
window.studio.plateText = plateText;

function progressText(s, doing) {
  // what the plate waits for, or how far its build is (the build's own last step)
  if (!s || s.state === 'idle') return `plate: ${doing}...`;
  if (s.state === 'waiting') {
    return s.ahead ? `plate: waiting for ${s.ahead} build${s.ahead === 1 ? '' : 's'} of this game's plates ahead (${s.for_s} s)`
      : `plate: starting (asked ${s.for_s} s ago)`;
  }
  return `plate: ${doing}, started ${s.for_s} s ago${s.step ? ` (last step: ${s.step})` : ''}`;
}
window.studio.progressText = progressText;

async function platePart(extra, doing, signal) {
  // one plate request of this client, its progress shown each second while it is open
  $('plate').textContent = progressText(null, doing);
  const timer = setInterval(async () => {
    try {
      const r = await fetch(`/api/plate-progress?client=${state.client}`, { signal });
      const s = r.ok ? await r.json() : null;
      if (!signal.aborted) $('plate').textContent = progressText(s, doing);
    } catch (e) { /* aborted: the plate's request went too */ }
  }, PLATE_PROGRESS_MS);
  try {
    const r = await fetch(`/api/plate/${state.game}/${state.part}?${query({ client: state.client, ...extra })}`, { signal });
    return r.ok ? await r.json() : null;
  } finally { clearInterval(timer); }
}

async function plateFigures() {
  if (state.plate_ctl) state.plate_ctl.abort();
  const ctl = state.plate_ctl = new AbortController();
  try {
    // first the plate's name (the parts made and the plates written, no slicer), then its figures
    const n = await platePart({ slice: '0' }, 'making the parts and laying the plates out', ctl.signal);
    if (!n || !n.plate) { $('plate').textContent = ''; return; }
    showPlate(n.plate);
    const p = await platePart({}, 'slicing (PrusaSlicer)', ctl.signal);
    $('plate').textContent = plateText(p);
  } catch (e) {
    // aborted by a change (refused or not): this plate's progress line no longer holds
    if (e.name !== 'AbortError' || state.plate_ctl === ctl) $('plate').textContent = '';
  }
}

function showSet() {
  // every part made and set out as build --step sets them: the first time, a minute or more
  $('status').textContent = 'making the whole set (every part, as build --step does)...';
  $('facts').replaceChildren(el('dt', { text: 'the whole set' }), el('dd', { text: 'every part, as it stands on the table' }));
  $('plate').textContent = '';
  $('downloads').replaceChildren(el('div', { text: 'download' }),
    el('a', { href: `/download/${state.game}.zip?${query()}`, download: `${state.game}.zip`, text: 'the whole set (zip, params.toml)' }));
  const frame = $('preview');
  frame.onload = shown;
  frame.src = `/set/${state.game}?${query()}`;
}

function shown() {
  window.studio.shownAt = performance.now(); // the page's clock: a benchmark's end of a change
  window.studio.previews += 1;
  window.studio.ready = true;
  $('status').textContent = '';
}

async function showPreview(address, signal) {
  // a part's preview: handed to the player the frame already holds (its glTF fetched, the
  // camera kept where the user turned it), or, the first time, its page loaded in the frame
  const frame = $('preview');
  const player = frame.contentWindow && frame.contentWindow.stratstone;
  if (player && player.ready && player.show) {
    const r = await fetch(`${address}.glb`, { signal });
    if (r.ok) {
      const data = await r.arrayBuffer();
      if (signal.aborted) return;
      try {
        await player.show(data);
        shown();
        return;
      } catch (e) { /* not a set's scene in the frame: the page loaded instead */ }
    }
  }
  if (signal.aborted) return;
  frame.onload = shown;
  frame.src = address;
}

function hold() {
  // the settings of the address shown, nothing asked of the server until Preview is pressed
  // (or a setting changed): another site's link must not make the studio build
  $('part').replaceChildren(el('option', { value: state.part, text: state.part || `(${WHOLE_SET})` }));
  $('status').textContent = 'opened from another site: nothing is made until you ask ';
  const go = el('button', { id: 'held', type: 'button', text: 'Preview' });
  go.addEventListener('click', () => { go.remove(); refresh(); });
  $('status').append(go);
}

async function refresh() {
  state.held = false;
  writeUrl();
  clearTimeout(state.plate_timer);
  if (state.plate_ctl) state.plate_ctl.abort();
  if (state.part_ctl) state.part_ctl.abort();
  const ctl = state.part_ctl = new AbortController();
  $('status').textContent = 'checking...';
  const partUrl = (name) => `/api/part/${state.game}/${name}?${query({ client: state.client })}`;
  // the part asked for beside the check, so a change of one of its settings is one round
  // trip; asked for again below when the check says the plan no longer makes it
  const guess = state.part && state.part !== WHOLE_SET ? state.part : null;
  const early = guess ? fetch(partUrl(guess), { signal: ctl.signal }) : null;
  if (early) early.catch(() => {}); // its failure is read below, or not at all (a refused check)
  try {
    const c = await fetch(`/api/check/${state.game}?${query()}`, { signal: ctl.signal });
    if (!c.ok) {
      const why = await c.text();
      showError(why); showCommand(why); $('status').textContent = 'refused: the last good preview stays'; return;
    }
    const checked = await c.json();
    showError('');
    showCommand(null);
    showMap(checked.map);
    const part = $('part');
    if (state.part !== WHOLE_SET && !checked.files.includes(`${state.game}/${state.part}`)) {
      state.part = (checked.files.find((f) => !/board/.test(f)) || checked.files[0]).split('/')[1];
    }
    part.replaceChildren(el('option', { value: WHOLE_SET, text: `(${WHOLE_SET})` }),
                         ...checked.files.map((f) => el('option', { value: f.split('/')[1], text: f.split('/')[1] })));
    part.value = state.part;
    writeUrl();
    if (state.part === WHOLE_SET) { showSet(); return; }
    $('status').textContent = `making ${state.part}...`;
    const r = await (early && state.part === guess ? early : fetch(partUrl(state.part), { signal: ctl.signal }));
    if (!r.ok) { showError(await r.text()); $('status').textContent = 'refused: the last good preview stays'; return; }
    const facts = await r.json();
    showFacts(facts);
    await showPreview(facts.preview, ctl.signal);
    // the plate's figures (a build of the plate and PrusaSlicer) once the settings rest a
    // second: a slider dragged starts no build of every part at each step
    state.plate_timer = setTimeout(plateFigures, PLATE_PAUSE_MS);
  } catch (e) {
    if (e.name !== 'AbortError') { showError(String(e)); }
  }
}

async function loadGame(game, sets) {
  state.game = game;
  state.form = await (await fetch(`/api/form/${game}`)).json();
  state.preset = {};
  for (const s of state.form.sections) for (const f of s.fields) state.preset[f.name] = text(f.value);
  state.values = { ...state.preset, ...sets };
  buildControls();
  if (state.held) { hold(); return; }
  await refresh();
}

async function start() {
  const url = new URLSearchParams(location.search);
  const games = await (await fetch('/api/games')).json();
  const sets = {};
  for (const s of url.getAll('set')) { const i = s.indexOf('='); if (i > 0) sets[s.slice(0, i)] = s.slice(i + 1); }
  const game = url.get('game') || games.game;
  $('game').replaceChildren(...games.games.map((g) => el('option', { value: g, text: g })));
  $('game').value = game;
  state.part = url.get('part') || '';
  const first = await (await fetch(`/api/form/${game}`)).json();
  state.printer = url.get('printer') || games.printer || first.printer;
  $('printer').replaceChildren(...first.printers.map((p) => el('option', { value: p.name, text: p.title })));
  $('printer').value = state.printer;
  $('game').addEventListener('change', () => { state.part = ''; state.held = false; loadGame($('game').value, {}); });
  $('part').addEventListener('change', () => { state.part = $('part').value; refresh(); });
  $('printer').addEventListener('change', () => { state.printer = $('printer').value; refresh(); });
  await loadGame(game, sets);
}

start();
