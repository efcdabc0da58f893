// Build cocoweb's partial plotly.js bundle (see static/vendor/README.md).
// usage: node build.js ENTRY OUTFILE
const esbuild = require('esbuild');
const acorn = require('acorn');
const walk = require('acorn-walk');
const fs = require('fs');

// Attribute documentation (the schema's text) is for Plotly.PlotSchema, never read when drawing;
// plotly.js v1 stripped it from its dist bundles the same way (tasks/util/strip_meta.js).
const META = new Set(['description']);

function stripMeta(src) {
  const ast = acorn.parse(src, {ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true});
  const cuts = [];
  walk.simple(ast, {
    ObjectExpression(node) {
      node.properties.forEach((p, i) => {
        if (p.type !== 'Property' || p.computed || p.kind !== 'init') return;
        const key = p.key.type === 'Identifier' ? p.key.name : p.key.value;
        if (!META.has(key)) return;
        if (p.value.type === 'FunctionExpression' || p.value.type === 'ArrowFunctionExpression') return;
        const next = node.properties[i + 1];
        const prev = node.properties[i - 1];
        if (next) cuts.push([p.start, next.start]);  // "key: value, " up to the next property
        else if (prev) cuts.push([prev.end, p.end]);  // ", key: value" after the previous one
        else cuts.push([p.start, node.end - 1]);  // the only property: up to the closing brace
      });
    },
  });
  cuts.sort((a, b) => a[0] - b[0]);
  const merged = [];  // adjacent documented properties give overlapping cuts: cut their union once
  for (const c of cuts) {
    const last = merged[merged.length - 1];
    if (last && c[0] <= last[1]) last[1] = Math.max(last[1], c[1]);
    else merged.push(c.slice());
  }
  for (let k = merged.length - 1; k >= 0; k--) src = src.slice(0, merged[k][0]) + src.slice(merged[k][1]);
  return src;
}

const strip = {
  name: 'strip-meta',
  setup(build) {
    build.onLoad({filter: /plotly\.js[\/\\]src[\/\\].*\.js$/}, async (args) => ({
      contents: stripMeta(await fs.promises.readFile(args.path, 'utf8')),
      loader: 'js',
    }));
  },
};

// registry.js imports maplibre-gl's CSS for map traces, which this bundle leaves out: no CSS file.
const noCss = {
  name: 'no-css',
  setup(build) {
    build.onResolve({filter: /\.css$/}, (args) => ({path: args.path, namespace: 'no-css'}));
    build.onLoad({filter: /.*/, namespace: 'no-css'}, () => ({contents: '', loader: 'js'}));
  },
};

esbuild.build({
  entryPoints: [process.argv[2]], outfile: process.argv[3], bundle: true, minify: true, format: 'iife',
  globalName: 'Plotly', target: 'es2016', define: {global: 'window', 'define.amd': 'false'},
  alias: {stream: 'stream-browserify'}, plugins: [strip, noCss], legalComments: 'none', logLevel: 'warning',
  banner: {js: '/*! plotly.js v' + require('plotly.js/package.json').version +
    ' (MIT), partial bundle of cocoweb: scripts/plotly_bundle/ */'},
}).catch(() => process.exit(1));
