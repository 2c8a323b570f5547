// The studio's Play room (/play): a table made, then played in a 2D view (SVG, one element a
// square with data-square) or the 3D view (the replay page's player on the printed set).
// Every rule stays on the server: the moves and reach come from /api/table/..., this page
// only draws what it is told and sends the move the person clicked.
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var q = new URLSearchParams(location.search);
  var play = window.play = { ready: false, version: -1, reachMs: [], reach3dMs: [], reach3dParts: [], table: null, board: null };
  var tableId = q.get('table'), view = q.get('view') || '3d';
  var seats = {}, selected = null, reach = [], options = null;
  var board = board2d($('board2d'), { board: function () { return play.board; }, selected: function () { return selected; },
                                      reach: function () { return reach; }, toMove: function () { return play.table.to_move; },
                                      clicked: clicked, explain: explain });

  function status(text) { $('status').textContent = text; }
  function json(r) {
    if (r.ok) return r.json();
    return r.text().then(function (t) { throw new Error(t); });
  }
  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                         body: JSON.stringify(body) }).then(json);
  }

  // ------------------------------------------------------------------ the setup form
  function setup() {
    $('setup').hidden = false;
    fetch('/api/play/options').then(json).then(function (o) {
      options = o;
      o.games.forEach(function (g) { $('game').add(new Option(g.name, g.name)); });
      var v = $('variant');
      ['standard', 'two-player'].forEach(function (n) { v.add(new Option(n, n)); });
      $('game').onchange = $('variant').onchange = fillGame;
      fillGame();
      play.ready = true;
    });
    fetch('/api/tables').then(json).then(function (r) {  // the studio's tables: each opened to watch
      if (!r.tables.length) return;
      var box = $('tables'); box.textContent = 'the tables of this studio: ';
      r.tables.forEach(function (t) {
        var link = document.createElement('a'); link.href = '/play?table=' + t.id + '&view=2d';
        link.textContent = t.game + ' ' + t.id + ' (ply ' + t.ply + (t.over ? ', over' : '') + ') ';
        box.appendChild(link);
      });
    });
    $('new-terrain').onclick = function () { $('seed').value = ''; $('heightmap').value = ''; status('a new terrain'); };
    $('setup').onsubmit = function (ev) { ev.preventDefault(); start(); };
  }
  function game() { return options.games.filter(function (g) { return g.name === $('game').value; })[0]; }
  function sides() {
    var g = game();
    return g.variants ? g.variants[$('variant').value] : g.sides;
  }
  function fillGame() {
    var g = game(), side = $('side'), opp = $('opponent');
    $('variant-row').hidden = $('dice-row').hidden = !g.variants;
    $('terrain-map').hidden = g.name !== 'terrain';
    $('kit-row').hidden = !g.kit;
    side.innerHTML = ''; opp.innerHTML = '';
    sides().forEach(function (s) { side.add(new Option(s, s)); });
    opp.add(new Option('a person at this screen', 'person'));
    opp.add(new Option('a person on another device (join link)', 'remote'));
    opp.add(new Option('greedy', 'greedy'));
    g.levels.forEach(function (l) {
      opp.add(new Option('search, ' + l.name + ' (' + l.simulations + ' simulations)', l.kind));
    });
    opp.value = g.levels[g.levels.length - 1].kind;
  }
  function readMap() {
    var f = $('heightmap').files[0];
    if (!f) return Promise.resolve(null);
    return f.text().then(function (t) {
      var v;
      try { v = JSON.parse(t); } catch (e) { v = JSON.parse(t.split('\n')[0]); }
      return Array.isArray(v) ? v : (v.heightmap || (v.setup && v.setup.heightmap));
    });
  }
  function start() {
    var g = game(), mine = $('side').value, opp = $('opponent').value;
    var players = sides().map(function (s) { return s === mine ? 'person' : (opp === 'remote' ? 'person' : opp); });
    var body = { players: players }, setupBody = {};
    if ($('clock').value) body.clock = $('clock').value;
    if (g.variants) { setupBody.variant = $('variant').value; body.dice = $('dice').value; }
    readMap().then(function (map) {
      if (g.name === 'terrain') {
        if (g.kit && $('from-kit').checked) {  // a map of the printed kit: the seed (or a fresh one) picks it
          if (map) throw new Error('from the kit or a heightmap file: choose one');
          Object.assign(setupBody, g.kit);
          if ($('seed').value !== '') body.seed = Number($('seed').value);
        } else if (map) setupBody.heightmap = map;
        else if ($('seed').value !== '') body.seed = Number($('seed').value);
      }
      if (Object.keys(setupBody).length) body.setup = setupBody;
      return post('/api/table/' + g.name, body);
    }).then(function (made) {
      var keep = {};
      Object.keys(made.seats).forEach(function (s) { if (s === mine || opp === 'person') keep[s] = made.seats[s]; });
      sessionStorage.setItem('seats:' + made.id, JSON.stringify(keep));
      if (opp === 'remote') sessionStorage.setItem('join:' + made.id, JSON.stringify(made.join));
      location.href = '/play?table=' + made.id + '&seat=' + made.seats[mine] + '&view=' + ($('clock').value ? '2d' : '2d');
    }).catch(function (e) { $('setup-error').textContent = e.message; });
  }

  // ------------------------------------------------------------------ a table
  function open() {
    $('table').hidden = false; $('views').hidden = false;
    try { seats = JSON.parse(sessionStorage.getItem('seats:' + tableId) || '{}'); } catch (e) { seats = {}; }
    $('to2d').onclick = function (e) { e.preventDefault(); setView('2d'); };
    $('to3d').onclick = function (e) { e.preventDefault(); setView('3d'); };
    $('resign').onclick = function () { act('resign'); };
    $('draw').onclick = function () { act('draw'); };
    $('takeback').onclick = function () { act('takeback'); };
    setView(view);
    hook3d();
    var events = new EventSource('/api/table/' + tableId + '/events');
    events.addEventListener('table', function (e) { shown(JSON.parse(e.data)); });
    events.onerror = function () { status('connection lost: trying again'); };
    setInterval(tick, 250);
  }
  function setView(v) {
    view = v;
    $('boardbox').hidden = v !== '2d';
    $('view3d').hidden = v !== '3d';
    if (v === '3d' && play.table) load3d();
  }
  function load3d() {
    var src = '/api/table/' + tableId + '/view3d?v=' + play.table.version + '#ply=' + play.table.ply;
    if ($('view3d').getAttribute('src') !== src) $('view3d').src = src;
  }
  function mySeat(side) { return seats[side] || null; }
  function seatToken() {
    var t = play.table;
    return (t && t.to_move && mySeat(t.to_move)) || q.get('seat') || Object.values(seats)[0];
  }
  function act(what) {
    post('/api/table/' + tableId + '/' + what, { seat: seatToken() })
      .then(function (r) { if (r.draw) status('draw ' + r.draw); })
      .catch(function (e) { $('why').textContent = e.message; });
  }
  function shown(t) {
    if (t.version <= play.version) return;
    play.table = t; $('title').textContent = t.game + ', table ' + t.id;
    fetch('/api/table/' + tableId + '/board?seat=' + encodeURIComponent(q.get('seat') || '')).then(json).then(function (b) {
      if (b.ply !== play.table.ply) return;  // a newer table is on its way
      if (b.you) seats[b.you] = q.get('seat');
      if (!play.board || b.ply !== play.board.ply) { selected = null; reach = []; }  // a new position: nothing selected
      play.board = b;
      board.draw();
      panel();
      play.version = t.version;
      if (view === '3d') load3d();
    });
  }

  // ------------------------------------------------------------------ the 2D view
  // drawn by board2d.js (shared with the Training page): draw, lit, clear

  // ------------------------------------------------------------------ clicks
  function clicked(square, t0) {  // t0: the click's time (the 3D view's: before its pick)
    var t = play.table;
    $('why').textContent = '';
    if (!t || t.over) return;
    var target = square === 'exit' ? 'exit' : square;
    var moves = reach.filter(function (m) { return m.to === target; });
    if (selected && moves.length) { choose(moves); return; }
    if (selected && square !== selected && !hasPiece(square) && play.board.game !== 'sage-stones') {
      whyNot(selected, square); return;
    }
    select(square, t0);
  }
  function hasPiece(square) {
    var s = play.board.squares.filter(function (x) { return x.square === square; })[0];
    return s && s.pieces.length && play.board.game !== 'sage-stones';
  }
  function select(square, t0) {
    t0 = t0 === undefined ? performance.now() : t0;
    var t = play.table;
    selected = play.selected = square;
    var got;
    if (play.board.game === 'sage-stones') {  // the roll's column: the legal squares the server listed there
      var x = play.board.squares.filter(function (s) { return s.square === square; })[0].x;
      var col = {};
      play.board.squares.forEach(function (s) { if (s.x === x) col[s.square] = true; });
      got = Promise.resolve(t.legal.filter(function (m) { return col[m]; }).map(function (m) { return { move: m, to: m }; }));
      others(t.legal.filter(function (m) { return !col[m] && !/^[0-9]+-[0-9]+$/.test(m); }));
    } else if (view === '3d') {  // one request: the reach and its drawing over the scene
      got = lit3d(t0).then(function (r) { return r.moves; });
    } else {
      got = fetch('/api/table/' + tableId + '/reach/' + square).then(json);
    }
    got.then(function (moves) {
      if (selected !== square) return;
      reach = moves; board.clear(); board.lit();
      if (view === '3d' && play.board.game === 'sage-stones') lit3d(t0);  // its column: what the 2D view lit
      requestAnimationFrame(function () { play.reachMs.push(performance.now() - t0); });  // drawn: the next frame
      if (!moves.length) whyNot(square, null);
      explainAttacks(moves);
    });
  }
  function others(moves) {
    var box = $('others'); box.innerHTML = '';
    moves.forEach(function (m) {
      var b = document.createElement('button'); b.type = 'button'; b.textContent = m === '-' ? 'pass (' + m + ')' : m;
      b.onclick = function () { send(m); }; box.appendChild(b);
    });
  }
  function explain(moves) {  // the engine's words for the moves ending on a lit square (a sowing's path)
    Promise.all(moves.map(function (m) {
      return fetch('/api/table/' + tableId + '/words?move=' + encodeURIComponent(m.move)).then(json)
        .then(function (w) { return m.move + ': ' + w.words; });
    })).then(function (lines) { $('explain').textContent = lines.join('\n'); });
  }
  function explainAttacks(moves) {
    $('explain').textContent = '';
    moves.filter(function (m) { return m.kind === 'attack'; }).forEach(function (m) {
      fetch('/api/table/' + tableId + '/words?move=' + encodeURIComponent(m.move)).then(json).then(function (w) {
        $('explain').textContent += m.move + ': ' + w.words + '\n';
      });
    });
  }
  function whyNot(frm, to) {
    if (!to) { $('why').textContent = frm + ': nothing of ' + play.table.to_move + ' can move from there'; return; }
    fetch('/api/table/' + tableId + '/words?from=' + frm + '&to=' + to).then(json).then(function (w) {
      $('why').textContent = w.why;
    });
  }
  function choose(moves) {
    if (moves.length === 1) { send(moves[0].move); return; }
    others(moves.map(function (m) { return m.move; }));
    $('explain').textContent = 'several moves end there: choose one';
  }
  function send(move) {
    var t = play.table, token = mySeat(t.to_move);
    if (!token) { $('why').textContent = t.to_move + ' is to move: not this screen\'s seat'; return; }
    post('/api/table/' + tableId + '/move', { move: move, ply: t.ply, seat: token })
      .then(function (r) { $('others').innerHTML = ''; shown(r); })
      .catch(function (e) { $('why').textContent = e.message; });
  }

  // ------------------------------------------------------------------ the 3D view's clicks
  // A click in the 3D view is the 2D view's click on the square under it: the player's ray finds
  // the board's point or the piece it meets, the server's places of the squares name the square.
  var places = null, targets = [];
  function hook3d() {
    $('view3d').onload = function () {
      var w = $('view3d').contentWindow;
      var got = places ? Promise.resolve() : fetch('/api/table/' + tableId + '/squares3d').then(json)
        .then(function (p) { places = p; });
      got.then(function ready() {  // the squares' places known, then the player ready: clicks are taken
        if (w.stratstone && w.stratstone.error) return;  // no 3D view (no WebGL): the page says why
        if (!w.stratstone || !w.stratstone.ready) { w.requestAnimationFrame(ready); return; }
        var canvas = w.document.querySelector('canvas'), down = [0, 0];
        canvas.addEventListener('pointerdown', function (e) { down = [e.clientX, e.clientY]; });
        canvas.addEventListener('click', function (e) {
          if (Math.abs(e.clientX - down[0]) + Math.abs(e.clientY - down[1]) > 6) return;  // an orbit's drag
          var t0 = performance.now(), hit = w.stratstone.pick(e.clientX, e.clientY);
          var sq = hit && at3d(hit.node === 'board' ? hit.point : hit.centre);
          if (sq) clicked(sq, t0);
        });
        w.stratstone.keepSet(true);  // the set drawn once, the reach over it at each click (a frame of the drawings)
        play.view3d = w.stratstone; targets = [];
        if (selected) lit3d(performance.now());
      });
    };
  }
  function at3d(p) {  // the lit place (a reach's target, an exit's arrow) or else the square nearest p
    if (!places) return null;
    var best = null, d = Infinity;
    function near(q, name, within) {
      var e = Math.hypot(q[0] - p[0], q[2] - p[2]);
      if (e < d && e < within * places.pitch) { best = name; d = e; }
    }
    targets.forEach(function (t) { near(t, t[3], 0.6); });
    if (best) return best;
    Object.keys(places.squares).forEach(function (s) { near(places.squares[s], s, 0.75); });
    return best;
  }
  // t0: the click's time; play.reach3dMs: each reach drawn, by the page's clock, and reach3dParts: its
  // parts (from the click to the server's answer, the drawings built, to the player's frame drawn)
  function lit3d(t0) {  // its answer: the reach and its drawing
    var square = selected, also = '';
    if (play.board.game === 'sage-stones') {  // the roll's column, as the 2D view lit it
      also = '?lit=' + encodeURIComponent(reach.map(function (m) { return m.to; }).join(','));
    }
    var asked = fetch('/api/table/' + tableId + '/reach3d/' + square + also).then(json);
    asked.then(function (r) {
      if (selected !== square || !play.view3d) return;
      var t1 = performance.now();
      targets = r.targets;
      play.view3d.overlay(r.draw);
      play.lit3d = { square: square, targets: r.targets };
      var t2 = performance.now();
      $('view3d').contentWindow.requestAnimationFrame(function () {  // after the player's frame with it
        var t3 = performance.now();
        play.reach3dMs.push(t3 - t0);
        play.reach3dParts.push({ answered: t1 - t0, built: t2 - t1, drawn: t3 - t2 });
      });
    }, function () {});  // a refused request: the caller's to say (select's reach)
    return asked;
  }

  // ------------------------------------------------------------------ the panel
  function panel() {
    var t = play.table;
    $('turn').textContent = t.over ? 'game over' : (t.to_move + (t.roll ? ' to roll' : ' to move') +
      (t.thinking ? ' (thinking...)' : '') + ', ply ' + (t.ply + 1));
    $('dice-box').textContent = t.dice ? 'dice: ' + t.dice.join(' ') : '';
    if (t.roll && mySeat(t.to_move)) rollForm();
    var engine = Object.keys(t.kinds).some(function (s) { return t.kinds[s] !== 'person'; });
    $('takeback').hidden = !engine;
    $('draw').textContent = t.draw_offer && !seats[t.draw_offer] ? 'accept the draw' : 'offer a draw';
    $('plies').textContent = t.plies.map(function (p) { return p.ply + '. ' + p.player + ' ' + p.move; }).join('\n');
    joins(t);
    kitSetup(t);
    $('others').innerHTML = '';
    if (play.board.game === 'sage-stones') others(t.legal.filter(function (m) { return !/^[0-9]+-[0-9]+$/.test(m); }));
    if (t.over) {
      var r = t.result || {};
      $('over').innerHTML = '';
      var p = document.createElement('p');
      p.textContent = (r.winner ? r.winner + ' wins' : 'no winner') + ' (' + r.reason + ')';
      var a = document.createElement('a'); a.href = '/api/table/' + t.id + '/log'; a.download = t.id + '.jsonl';
      a.textContent = 'download its log'; a.id = 'download-log';
      var rv = document.createElement('a'); rv.href = '/api/table/' + t.id + '/view3d?review=1'; rv.target = '_blank';
      rv.textContent = 'its review (each move judged by the search, on the replay)'; rv.id = 'review';
      $('over').append(p, a, document.createElement('br'), rv);
      $('actions').hidden = true;
    }
  }
  function kitSetup(t) {  // a map of the printed kit: how to lay its tiles (kit setup's picture)
    var kit = t.setup && t.setup.kit, box = $('kit');
    if (!kit || !kit.tiles || box.childElementCount) return;
    var words = Object.keys(kit.tiles).map(function (q) {
      return q.toUpperCase() + ': tile ' + kit.tiles[q].design + ', turn ' + kit.tiles[q].turn;
    }).join('; ');
    var p = document.createElement('p'); p.textContent = 'lay the printed kit: ' + words;
    var img = document.createElement('img'); img.id = 'kit-setup'; img.alt = 'how to lay the kit\'s tiles: ' + words;
    img.src = '/api/table/' + t.id + '/kit-setup.png';
    var a = document.createElement('a'); a.href = img.src; a.target = '_blank'; a.appendChild(img);  // full size
    box.append(p, a);
  }
  function rollForm() {
    var box = $('dice-box'); box.innerHTML = 'the printed dice: ';
    var inputs = [0, 1, 2].map(function () {
      var i = document.createElement('input'); i.type = 'number'; i.min = 1; i.max = 3; i.value = 1; i.style.width = '3em';
      box.appendChild(i); return i;
    });
    var b = document.createElement('button'); b.type = 'button'; b.textContent = 'roll'; box.appendChild(b);
    b.onclick = function () {
      post('/api/table/' + tableId + '/roll', { dice: inputs.map(function (i) { return Number(i.value); }),
                                                ply: play.table.ply, seat: mySeat(play.table.to_move) })
        .then(shown).catch(function (e) { $('why').textContent = e.message; });
    };
  }
  function joins(t) {
    var join = null;
    try { join = JSON.parse(sessionStorage.getItem('join:' + t.id) || 'null'); } catch (e) { join = null; }
    var box = $('join');
    if (!join || t.over || box.childElementCount) return;
    Object.keys(join).forEach(function (side) {
      if (seats[side]) return;
      var token = new URLSearchParams(join[side].split('?')[1]).get('seat');
      var p = document.createElement('p'); p.textContent = 'the second device (' + side + '): ';
      var a = document.createElement('a'); a.href = join[side] + '&view=2d'; a.textContent = location.host + join[side];
      a.className = 'join-link';
      var qr = document.createElement('div'); qr.className = 'qr'; qr.setAttribute('aria-label', 'QR code of the join link');
      fetch('/api/table/' + t.id + '/join.svg?seat=' + token).then(function (r) { return r.text(); })
        .then(function (svg) { qr.innerHTML = svg; });  // the server's SVG, inline (it has no namespace of its own)
      p.appendChild(a); box.append(p, qr);
    });
  }
  function tick() {
    var t = play.table;
    if (!t || !t.clock) { $('clock').textContent = ''; return; }
    var now = performance.now(), box = $('clock');
    if (t._at === undefined) t._at = now;
    box.innerHTML = '';
    Object.keys(t.clock.left).forEach(function (side) {
      var left = t.clock.left[side] - (t.clock.running === side && !t.over ? (now - t._at) / 1000 : 0);
      left = Math.max(0, left);
      var s = document.createElement('span'); s.className = t.clock.running === side ? 'running' : '';
      s.textContent = side + ' ' + Math.floor(left / 60) + ':' + ('0' + Math.floor(left % 60)).slice(-2);
      box.appendChild(s);
    });
  }

  if (tableId) open(); else setup();
}());
