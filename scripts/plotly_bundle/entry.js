'use strict';
// cocoweb's partial plotly.js bundle: plotly.js's src/core.js with only the components cocoweb's
// figures use, and the trace types its figure builders make (scatter, bar, heatmap, histogram).
// tests/explorer/test_plotly_bundle.py compares TRACES with the trace types of every figure builder.
// Rebuild: see static/vendor/README.md.
exports.version = require('plotly.js/src/version').version;
require('plotly.js/build/plotcss');
var Registry = require('plotly.js/src/registry');
var register = (exports.register = Registry.register);
var plotApi = require('plotly.js/src/plot_api');
Object.keys(plotApi).forEach(function (name) {
    if (name.charAt(0) !== '_') exports[name] = plotApi[name];
    register({moduleType: 'apiMethod', name: name, fn: plotApi[name]});
});
// components (legend after shapes, fx after legend: plotly's own order)
register([
    require('plotly.js/src/components/annotations'),
    require('plotly.js/src/components/shapes'),
    require('plotly.js/src/components/grid'),
    require('plotly.js/src/components/errorbars'),
    require('plotly.js/src/components/colorscale'),
    require('plotly.js/src/components/colorbar'),
    require('plotly.js/src/components/legend'),
    require('plotly.js/src/components/fx'),
    require('plotly.js/src/components/modebar'),
]);
register([require('plotly.js/src/locale-en'), require('plotly.js/src/locale-en-us')]);
// TRACES
register([
    require('plotly.js/src/traces/scatter'),
    require('plotly.js/src/traces/bar'),
    require('plotly.js/src/traces/heatmap'),
    require('plotly.js/src/traces/histogram'),
]);
