// The studio's Training page (/training): a game's puzzles one after the other, each solved by
// clicking the move on the 2D board (board2d.js, the Play room's) as in the Play room: select,
// then a lit target. Every rule stays on the server: the position, the reach of a square and the
// verdict (right or wrong, the refutation, the studio's reply in a win in two) come from
// /api/training/...; this page only draws what it is told and sends the moves clicked.
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var q = new URLSearchParams(location.search);
  var tr = window.training = { ready: false, game: null, puzzles: [], puzzle: null, position: null, line: [],
                               verdict: null, shown: 'puzzle', busy: false };
  var selected = null, reach = [], pending = 0;
  var board = board2d($('board2d'), { board: function () { return tr.position && tr.position.board; },
                                      selected: function () { return selected; }, reach: function () { return reach; },
                                      toMove: function () { return tr.position && tr.position.to_move; },
                                      clicked: clicked, explain: function () {} });

  function json(r) {
    if (r.ok) return r.json();
    return r.text().then(function (t) { throw new Error(t); });
  }
  function line(moves, dice) {  // the moves from the puzzle's position (and the dice that fall before one)
    return moves.map(function (m) { return 'move=' + encodeURIComponent(m); })
      .concat(dice ? ['dice=' + dice.join('-')] : []).join('&');
  }
  function base() { return '/api/training/puzzle/' + tr.puzzle.id; }

  // ------------------------------------------------------------------ the game's puzzles
  function games() {
    return fetch('/api/games').then(json).then(function (g) {
      g.games.forEach(function (n) { $('game').add(new Option(n, n)); });
      $('game').value = q.get('game') || g.game;
      $('game').onchange = function () { load($('game').value, null); };
      return load($('game').value, q.get('puzzle'));
    });
  }
  function load(game, wanted) {
    tr.game = game;
    return fetch('/api/training/' + game).then(json).then(function (r) {
      tr.puzzles = r.puzzles;
      progress(r.progress);
      list(r.progress.results);
      if (!r.puzzles.length) {
        $('task').textContent = ''; $('verdict').textContent = r.message; $('board2d').innerHTML = '';
        tr.ready = true; return null;
      }
      var first = r.puzzles.filter(function (p) { return p.id === wanted; })[0] ||
                  r.puzzles.filter(function (p) { return !r.progress.results[p.id]; })[0] || r.puzzles[0];
      return open(first);
    });
  }
  function progress(p) {
    $('progress').textContent = p.solved + '/' + p.total + ' solved' + (p.failed ? ', ' + p.failed + ' failed' : '');
    $('progress').setAttribute('data-solved', p.solved);
  }
  function list(results) {
    var box = $('list'); box.innerHTML = '';
    tr.puzzles.forEach(function (p) {
      var a = document.createElement('a'); a.href = '/training?game=' + tr.game + '&puzzle=' + p.id;
      a.textContent = p.number; a.title = p.task + (p.depth === 3 ? ' (depth 3)' : '');
      a.setAttribute('data-puzzle', p.id);
      if (results[p.id]) a.setAttribute('data-result', results[p.id]);
      a.onclick = function (e) { e.preventDefault(); open(p); };
      box.appendChild(a);
    });
  }
  function mark(id, result) {
    var a = document.querySelector('#list [data-puzzle="' + id + '"]');
    if (a) a.setAttribute('data-result', result);
  }

  // ------------------------------------------------------------------ one puzzle
  function open(p) {
    tr.puzzle = p; tr.line = []; tr.verdict = null;
    document.querySelectorAll('#list a').forEach(function (a) { a.classList.toggle('on', a.dataset.puzzle === p.id); });
    history.replaceState(null, '', '/training?game=' + tr.game + '&puzzle=' + p.id);
    $('heading').textContent = 'puzzle ' + p.number + ' of ' + tr.puzzles.length + ' (' + tr.game +
      (p.depth === 3 ? ', depth 3' : '') + ')';
    $('task').textContent = p.task;
    $('hint').textContent = tr.game === 'sage-stones' ? 'Click a column, then a lit square in it: the studio judges ' +
      'the move.' : 'Click a piece, then the square it goes to (the lit ones): the studio judges the move.';
    say('', ''); $('again').hidden = $('show').hidden = true;
    return show([], 'puzzle');
  }
  function show(moves, what, dice) {
    var n = ++pending;
    return fetch(base() + (moves.length ? '?' + line(moves, dice) : '')).then(json).then(function (pos) {
      if (n !== pending) return;
      tr.position = pos; tr.shown = what; selected = null; reach = [];
      board.draw();
      $('board2d').setAttribute('data-shown', what);
      $('to3d').href = base() + '/view3d' + (moves.length ? '?' + line(moves, dice) : '') + '#ply=' +
        (tr.puzzle.ply - 1 + moves.length);
      others();
      tr.ready = true;
    });
  }
  function say(text, result) {
    $('verdict').textContent = text;
    if (result) $('verdict').setAttribute('data-result', result); else $('verdict').removeAttribute('data-result');
    $('why').textContent = '';
  }
  function solving() {
    return tr.position && tr.shown === 'puzzle' && !tr.busy && (!tr.verdict || !tr.verdict.done) &&
      tr.position.to_move === tr.puzzle.player;
  }

  // ------------------------------------------------------------------ clicks (as in the Play room)
  function clicked(square) {
    $('why').textContent = '';
    if (!solving()) return;
    var moves = reach.filter(function (m) { return m.to === square; });
    if (selected && moves.length) { choose(moves); return; }
    select(square);
  }
  function select(square) {
    selected = square;
    var got;
    if (tr.position.board.game === 'sage-stones') {  // the roll's column: the legal squares the server listed there
      var x = tr.position.board.squares.filter(function (s) { return s.square === square; })[0].x, col = {};
      tr.position.board.squares.forEach(function (s) { if (s.x === x) col[s.square] = true; });
      got = Promise.resolve(tr.position.legal.filter(function (m) { return col[m]; })
        .map(function (m) { return { move: m, to: m }; }));
    } else {
      got = fetch(base() + '/reach/' + square + (tr.line.length ? '?' + line(tr.line) : '')).then(json);
    }
    got.then(function (moves) {
      if (selected !== square) return;
      reach = moves; board.clear(); board.lit();
      if (!moves.length) $('why').textContent = square + ': nothing of ' + tr.position.to_move + ' can move from there';
    });
  }
  function others() {  // the moves no square shows (a pass): buttons
    var box = $('others'); box.innerHTML = '';
    if (!solving()) return;
    var squares = {};
    tr.position.board.squares.forEach(function (s) { squares[s.square] = true; });
    tr.position.legal.filter(function (m) { return tr.position.board.game === 'sage-stones' && !squares[m]; })
      .forEach(function (m) { button(box, m === '-' ? 'pass (' + m + ')' : m, function () { send(m); }); });
  }
  function button(box, text, fn) {
    var b = document.createElement('button'); b.type = 'button'; b.textContent = text; b.onclick = fn;
    box.appendChild(b);
  }
  function choose(moves) {
    if (moves.length === 1) { send(moves[0].move); return; }
    var box = $('others'); box.innerHTML = 'several moves end there: ';
    moves.forEach(function (m) { button(box, m.move, function () { send(m.move); }); });
  }
  function send(move) {
    var moves = tr.line.concat([move]);
    tr.busy = true; $('status').textContent = 'judging ' + move + '...';
    fetch(base() + '/move', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                              body: JSON.stringify({ moves: moves }) }).then(json).then(function (v) {
      tr.busy = false; $('status').textContent = '';
      tr.verdict = v; progress(v.progress);
      if (v.right && !v.done) { reply(moves, v); return; }
      if (v.solved) {
        tr.line = moves; mark(tr.puzzle.id, 'solved'); say(v.message, 'solved');
        show(moves, 'solved'); return;
      }
      mark(tr.puzzle.id, 'failed');
      refute(moves, v);
    }).catch(function (e) { tr.busy = false; $('status').textContent = ''; $('why').textContent = e.message; });
  }
  function reply(moves, v) {  // a win in two: the first move right, the studio's reply played, then the second
    say(v.message, 'right');
    tr.line = moves.concat([v.reply]);
    show(moves, 'puzzle').then(function () { return later(700); }).then(function () { return show(tr.line, 'puzzle'); });
  }
  function refute(moves, v) {  // the wrong move, then the other side's refutation played out
    say('wrong: ' + v.message, 'wrong');
    $('again').hidden = false; $('show').hidden = !v.solution.length;
    show(moves, 'wrong').then(function () {
      if (!v.refutation.length) return null;
      return later(700).then(function () { return show(moves.concat(v.refutation), 'refutation', v.dice); })
        .then(function () {
          $('verdict').textContent += '\nthe refutation: ' + v.refutation.join(', ');
          v.refutation.forEach(function (m) {  // the squares the refutation names, marked
            [m].concat(m.match(/[a-z]+[0-9]+/g) || []).forEach(function (s) {
              var g = board.node(s); if (g) g.classList.add('moved');
            });
          });
        });
    });
  }
  function later(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }

  $('again').onclick = function () {
    tr.verdict = null; tr.line = []; say('', ''); $('again').hidden = $('show').hidden = true; show([], 'puzzle');
  };
  $('show').onclick = function () {
    var v = tr.verdict, before = tr.line.length === 2 ? tr.line : [];
    show(before.concat(v.solution), 'solution').then(function () {
      $('verdict').textContent += '\nthe solution: ' + v.solution.join(', ');
    });
  };
  $('next').onclick = function () {
    var i = tr.puzzles.indexOf(tr.puzzle);
    if (tr.puzzles.length) open(tr.puzzles[(i + 1) % tr.puzzles.length]);
  };

  games().catch(function (e) { $('why').textContent = e.message; tr.ready = true; });
}());
