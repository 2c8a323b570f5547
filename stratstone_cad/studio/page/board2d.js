// The 2D board (SVG, one element a square with data-square), drawn from the server's board
// answer (/api/table/{id}/board, /api/training/puzzle/{id}): the squares, their pieces and
// labels, and the reach of a selected square lit (data-reach, its cost in the terrain game).
// Shared by the Play room (play.js) and the Training page (training.js); no rule here.
// board2d(svg, view): view gives board(), selected(), reach(), toMove() and takes
// clicked(square) and explain(moves) (a lit square hovered).
window.board2d = function (svg, view) {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var CELL = 52;
  var COLOURS = { red: '#c62828', blue: '#1e5bd8', yellow: '#f2c200', green: '#2e7d32', white: '#f5f5f5',
                  black: '#222', tan: '#c8a97e', p1: '#f2c200', p2: '#c62828' };

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(e);
    return e;
  }
  function xy(s) {
    var b = view.board();
    return [CELL * (s.x + 1), CELL * (b.height - 1 - s.y) + top(b)];
  }
  function top(b) { return b.symbols ? CELL : CELL / 2; }
  function levelFill(level) {
    var l = Math.max(0, Math.min(1, level / 6));
    return 'rgb(' + Math.round(70 + 170 * l) + ',' + Math.round(130 + 95 * l) + ',' + Math.round(70 + 130 * l) + ')';
  }
  function draw() {
    var b = view.board();
    var h = top(b) + CELL * b.height + (b.symbols ? CELL : 0) + 24;
    svg.setAttribute('viewBox', '0 0 ' + CELL * (b.width + 2) + ' ' + h);
    svg.innerHTML = '';
    b.squares.forEach(function (s) { square(svg, s); });
    labels(svg, b);
    lit();
  }
  function square(svg, s) {
    var p = xy(s), g = el('g', { 'data-square': s.square, transform: 'translate(' + p[0] + ',' + p[1] + ')' }, svg);
    var fill = s.level !== undefined ? levelFill(s.level) : (view.board().game === 'stratstone' ? '#e9dcc0' : '#f7f2e6');
    el('rect', { 'class': 'cell', width: CELL - 2, height: CELL - 2, x: 1, y: 1, fill: fill, stroke: '#8d8270' }, g);
    if (s.level !== undefined) el('text', { 'class': 'label', x: 4, y: 12 }, g).textContent = s.level;
    s.pieces.forEach(function (pc, i) { piece(g, pc, i, s.pieces.length); });
    el('rect', { 'class': 'lit', width: CELL - 2, height: CELL - 2, x: 1, y: 1, fill: 'none' }, g);
    g.addEventListener('click', function () { view.clicked(s.square); });
  }
  function piece(g, pc, i, n) {
    var c = COLOURS[pc.colour] || pc.colour, h = CELL / 2, shape = view.board().symbols && view.board().symbols[pc.kind];
    var pts = { triangle: [[0, -16], [15, 12], [-15, 12]], diamond: [[0, -17], [14, 0], [0, 17], [-14, 0]],
                pentagon: [[0, -16], [15, -4], [9, 14], [-9, 14], [-15, -4]] }[shape];
    if (pts) {
      el('polygon', { points: pts.map(function (p) { return (h + p[0]) + ',' + (h + p[1]); }).join(' '),
                      fill: c, stroke: '#111', 'stroke-width': 1.5, 'data-piece': pc.kind }, g);
    } else if (pc.kind === 'gem') {
      el('circle', { cx: h, cy: h, r: 15, fill: c, stroke: '#111', 'data-piece': 'gem' }, g);
    } else {  // a stack: its stones bottom first, drawn as layers, the count on top
      var hh = Math.min(6, (CELL - 20) / n);
      el('rect', { x: 9, y: CELL - 5 - hh * (i + 1), width: CELL - 20, height: hh, rx: 2, fill: c, stroke: '#333',
                   'stroke-width': 0.6, 'data-piece': pc.colour }, g);
      if (i === n - 1) el('text', { 'class': 'label', x: h - 4, y: 13 }, g).textContent = n;
    }
  }
  function labels(svg, b) {
    var cols = {}, rows = {};
    b.squares.forEach(function (s) { cols[s.x] = cols[s.x] || s.square; rows[s.y] = rows[s.y] || s.square; });
    if (b.game !== 'sage-stones') Object.keys(rows).forEach(function (y) {
      el('text', { 'class': 'label', x: CELL / 2, y: CELL * (b.height - 1 - Number(y)) + top(b) + CELL / 2 + 4 }, svg)
        .textContent = rows[y].replace(/^[a-z]+/, '');
    });
    Object.keys(cols).forEach(function (x) {
      var name = cols[x], t = el('text', { 'class': 'label', x: CELL * (Number(x) + 1) + CELL / 2 - 6,
                                          y: top(b) + CELL * b.height + (b.symbols ? CELL : 0) + 18 }, svg);
      t.textContent = b.game === 'sage-stones' ? name.split('-')[0] : name.replace(/[0-9]+$/, '');
      if (b.game === 'sage-stones') { t.setAttribute('data-column', x); t.style.font = 'bold 16px system-ui'; }
    });
  }
  function node(square) { return svg.querySelector('[data-square="' + square + '"]'); }
  function lit() {
    var selected = view.selected();
    if (selected) { var n = node(selected); if (n) { n.classList.add('selected'); n.setAttribute('data-selected', ''); } }
    var byTo = {};
    view.reach().forEach(function (m) { (byTo[m.to] = byTo[m.to] || []).push(m); });
    Object.keys(byTo).forEach(function (to) {
      var ms = byTo[to], m = ms[0], g = to === 'exit' ? exitNode(m) : node(to);
      if (!g) return;
      g.setAttribute('data-reach', m.cost !== undefined ? String(Math.min.apply(null, ms.map(function (x) {
        return x.cost; }))) : '');
      g.setAttribute('data-kind', m.kind || 'move');
      g.setAttribute('data-moves', ms.map(function (x) { return x.move; }).join(' '));
      g.querySelector('.lit').setAttribute('fill', '#ffc107');
      var label = m.cost !== undefined ? String(m.cost) : '';
      if (ms.some(function (x) { return x.kind === 'special'; })) label = '\u2605';
      if (label) el('text', { 'class': 'cost', x: CELL - 18, y: CELL - 6 }, g).textContent = label;
      g.onmouseenter = function () { view.explain(ms); };
    });
  }
  function exitNode(m) {
    var b = view.board(), s = b.squares.filter(function (x) { return x.square === view.selected(); })[0];
    var up = b.exit_rank ? b.exit_rank[view.toMove()] === b.height - 1 : true;
    var y = up ? 0 : CELL * (b.height + 1);
    var g = el('g', { 'data-square': 'exit', transform: 'translate(' + CELL * (s.x + 1) + ',' + y + ')' }, svg);
    el('rect', { 'class': 'cell', width: CELL - 2, height: CELL - 2, x: 1, y: 1, fill: '#fff', 'stroke-dasharray': '4 3',
                 stroke: '#8d8270' }, g);
    el('text', { 'class': 'label', x: 6, y: 16 }, g).textContent = 'exit';
    el('rect', { 'class': 'lit', width: CELL - 2, height: CELL - 2, x: 1, y: 1, fill: 'none' }, g);
    g.addEventListener('click', function () { view.clicked('exit'); });
    return g;
  }
  function clear() {
    svg.querySelectorAll('[data-square="exit"]').forEach(function (n) { n.remove(); });
    svg.querySelectorAll('[data-square]').forEach(function (n) {
      n.classList.remove('selected'); n.removeAttribute('data-selected'); n.removeAttribute('data-reach');
      n.removeAttribute('data-kind'); n.removeAttribute('data-moves');
      n.querySelector('.lit').setAttribute('fill', 'none');
      var c = n.querySelector('text.cost'); if (c) c.remove();
    });
  }

  return { draw: draw, lit: lit, clear: clear, node: node };
};
