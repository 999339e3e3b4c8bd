// tmgrammar_test.js - the TextMate grammar of editors/vscode on
// tests/editors/sample.graft: a tokenizer of TextMate's rules (at each
// place the pattern whose match starts first wins, ties to the earlier
// pattern; begin/end rules span lines), enough for this grammar, which
// uses only regular expressions that JavaScript and Oniguruma read alike.
// Prints "LINE:COL class SCOPE" for each case of syntax.cases (run by
// tests/editors_syntax.sh with node).  Usage: node tmgrammar_test.js
// GRAMMAR SAMPLE CASES
'use strict';
const fs = require('fs');
const [grammarPath, samplePath, casesPath] = process.argv.slice(2);
const grammar = JSON.parse(fs.readFileSync(grammarPath, 'utf8'));

// The top-level patterns with "#name" includes replaced by their patterns.
function flatten(patterns) {
  const out = [];
  for (const p of patterns) {
    if (p.include) {
      const rule = grammar.repository[p.include.slice(1)];
      if (!rule) throw new Error('unknown include ' + p.include);
      out.push(...flatten(rule.patterns));
    } else {
      out.push(p);
    }
  }
  return out;
}
const rules = flatten(grammar.patterns).map((p) => ({
  name: p.name,
  re: new RegExp(p.match || p.begin, 'g'),
  end: p.end ? new RegExp(p.end, 'g') : null,
}));

// The scope of each character of each line.
function tokenize(lines) {
  const scopes = [];
  let open = null; // the begin/end rule a line starts inside
  for (const line of lines) {
    const scope = new Array(line.length).fill(null);
    let pos = 0;
    while (pos <= line.length) {
      if (open) {
        open.end.lastIndex = pos;
        const m = open.end.exec(line);
        const stop = m ? m.index + m[0].length : line.length;
        scope.fill(open.name, pos, stop);
        if (!m) break;
        open = null;
        pos = stop;
        continue;
      }
      let best = null;
      for (const r of rules) {
        r.re.lastIndex = pos;
        const m = r.re.exec(line);
        if (m && (!best || m.index < best.m.index)) best = { r, m };
      }
      if (!best) break;
      const { r, m } = best;
      const stop = m.index + m[0].length;
      scope.fill(r.name, m.index, stop);
      if (r.end) open = r;
      pos = stop > m.index ? stop : m.index + 1;
    }
    scopes.push(scope);
  }
  return scopes;
}

const scopes = tokenize(fs.readFileSync(samplePath, 'utf8').split('\n'));
for (const c of fs.readFileSync(casesPath, 'utf8').split('\n').filter((l) => l)) {
  const [pos, cls] = c.split(' ');
  const [line, col] = pos.split(':').map(Number);
  console.log(`${pos} ${cls} ${scopes[line - 1][col - 1] || 'none'}`);
}
